// matern_covariance on the cpu: OpenMP over the distances, each sum walking outward from the
// integrand's peak (point.hpp) so that only the nodes that matter are visited (about a third of
// the table for distances of order ρ); the trapezoid route's per-call table is built once, then
// the distances are shared out the same way.
#include "ops/matern_covariance/kernels.hpp"
#include "ops/matern_covariance/quadrature_table.hpp"
#include "ops/matern_covariance/trapezoid.hpp"

namespace pmx::kernels::cpu {

void matern_quadrature(const executor& exec, const detail::matern_consts& k, const double* h, int64_t n,
                       const matern_outputs& out) {
  const detail::matern_table& t = detail::matern_quadrature_table();
#pragma omp parallel for schedule(dynamic, 256) num_threads(exec.threads())
  for (int64_t i = 0; i < n; ++i)
    store_matern(out, i,
                 detail::matern_window(k, t, detail::matern_nodes, detail::matern_origin, detail::matern_delta, h[i]));
}

void matern_trapezoid(const executor& exec, const detail::matern_consts& k, const double* h, int64_t n,
                      const matern_outputs& out) {
  const detail::trap_table table = detail::build_trap_table_for(k.nu, k.a_per_h2, h, n);
  const detail::trap_view t = table.view();
  const detail::matern_table& q = detail::matern_quadrature_table();
#pragma omp parallel for schedule(dynamic, 256) num_threads(exec.threads())
  for (int64_t i = 0; i < n; ++i) store_matern(out, i, detail::matern_trapezoid_point(k, t, q, h[i]));
}

}  // namespace pmx::kernels::cpu
