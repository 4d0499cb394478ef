// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/shifted_solve/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
shifted_operand::device_copy* upload_shifted(const executor&, int64_t, const double*, int64_t) {
  throw unsupported_error("shifted solve: the CUDA backend is not compiled in (use --device cpu)");
}
void release_shifted(shifted_operand::device_copy*) noexcept {}
double shifted_cholesky_solve(const shifted_operand&, double, double, int64_t, double*, int64_t) {
  throw unsupported_error("shifted solve: the CUDA backend is not compiled in (use --device cpu)");
}
void shifted_multiply(const shifted_operand&, double, double, int64_t, const double*, int64_t, double*, int64_t) {
  throw unsupported_error("shifted multiply: the CUDA backend is not compiled in (use --device cpu)");
}
}  // namespace pmx::kernels::cuda
