// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/ldl_sweeps/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
ldl_sweeps::device_copy* upload_ldl_sweeps(const executor&, const ldl_schedule&) {
  throw unsupported_error("LDL' sweeps: the CUDA backend is not compiled in (use --device cpu)");
}
void release_ldl_sweeps(ldl_sweeps::device_copy*) noexcept {}
void ldl_solve_permuted(const ldl_sweeps&, int64_t, double*) {
  throw unsupported_error("LDL' sweeps: the CUDA backend is not compiled in (use --device cpu)");
}
}  // namespace pmx::kernels::cuda
