// matern_covariance by summing every node of the table, one distance after another: the oracle of
// the windowed cpu and cuda sums.
#include "ops/matern_covariance/kernels.hpp"
#include "ops/matern_covariance/quadrature_table.hpp"

namespace pmx::kernels::reference {

void matern_quadrature(const executor&, const detail::matern_consts& k, const double* h, int64_t n,
                       const matern_outputs& out) {
  const detail::matern_table& t = detail::matern_quadrature_table();
  for (int64_t i = 0; i < n; ++i)
    store_matern(out, i, detail::matern_full(k, t, detail::matern_nodes, detail::matern_origin, h[i]));
}

}  // namespace pmx::kernels::reference
