// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/matern_covariance/bessel_k.hpp"
#include "ops/matern_covariance/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

void matern_quadrature(const executor&, const detail::matern_consts&, const double*, int64_t, const matern_outputs&) {
  throw unsupported_error("Matérn covariance: the CUDA backend is not compiled in (use --device cpu)");
}

void matern_trapezoid(const executor& e, const detail::matern_consts& k, const double* h, int64_t n,
                      const matern_outputs& out) {
  matern_quadrature(e, k, h, n, out);
}

void matern_bessel(const executor& e, const detail::bessel_consts&, const double* h, int64_t n,
                   const matern_outputs& out) {
  matern_quadrature(e, {}, h, n, out);
}

}  // namespace pmx::kernels::cuda
