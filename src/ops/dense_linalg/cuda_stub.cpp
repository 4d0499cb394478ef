// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/dense_linalg/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

double cholesky_solve(const executor&, int64_t, double*, int64_t, int64_t, double*, int64_t) {
  throw unsupported_error("Cholesky solve: the CUDA backend is not compiled in (use --device cpu)");
}
double shifted_cholesky_solve(const executor&, int64_t, const double*, int64_t, double, int64_t, double*, int64_t) {
  throw unsupported_error("Cholesky solve: the CUDA backend is not compiled in (use --device cpu)");
}
void shifted_residual(const executor&, int64_t, const double*, int64_t, double, int64_t, const double*, const double*,
                      double*) {
  throw unsupported_error("residual: the CUDA backend is not compiled in (use --device cpu)");
}
double shifted_norm_inf(const executor&, int64_t, const double*, int64_t, double) {
  throw unsupported_error("norm: the CUDA backend is not compiled in (use --device cpu)");
}
bool is_device_memory(const void*) { return false; }
void symmetric_eigen(const executor&, int64_t, double*, int64_t, int64_t, double*, double*, int64_t) {
  throw unsupported_error("eigendecomposition: the CUDA backend is not compiled in (use --device cpu)");
}

}  // namespace pmx::kernels::cuda
