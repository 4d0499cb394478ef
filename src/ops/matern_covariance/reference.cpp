// matern_covariance by summing every node of the table, one distance after another: the oracle of
// the windowed cpu and cuda sums. The trapezoid route: its per-distance code, serially (what the
// cpu and cuda backends must reproduce).
#include "ops/matern_covariance/kernels.hpp"
#include "ops/matern_covariance/quadrature_table.hpp"
#include "ops/matern_covariance/trapezoid.hpp"

namespace pmx::kernels::reference {

void matern_quadrature(const executor&, const detail::matern_consts& k, const double* h, int64_t n,
                       const matern_outputs& out) {
  const detail::matern_table& t = detail::matern_quadrature_table();
  for (int64_t i = 0; i < n; ++i)
    store_matern(out, i, detail::matern_full(k, t, detail::matern_nodes, detail::matern_origin, h[i]));
}

void matern_trapezoid(const executor&, const detail::matern_consts& k, const double* h, int64_t n,
                      const matern_outputs& out) {
  const detail::trap_table table = detail::build_trap_table_for(k.nu, k.a_per_h2, h, n);
  const detail::matern_table& q = detail::matern_quadrature_table();
  for (int64_t i = 0; i < n; ++i) store_matern(out, i, detail::matern_trapezoid_point(k, table.view(), q, h[i]));
}

}  // namespace pmx::kernels::reference
