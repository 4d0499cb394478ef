// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/genotype_gemm/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

namespace {
[[noreturn]] void not_built() { throw unsupported_error("gemm: the CUDA backend is not compiled in (use --device cpu)"); }
}  // namespace

gemm_operand::device_copy* upload(const executor&, const variant_major_view&) { not_built(); }
void release(gemm_operand::device_copy*) noexcept {}
void gemm(const gemm_operand&, const gemm_centring&, int64_t, const double*, int64_t, double, double*, int64_t) {
  not_built();
}
void gemm_transposed(const gemm_operand&, const gemm_centring&, int64_t, const double*, int64_t, double, double*,
                     int64_t) {
  not_built();
}

}  // namespace pmx::kernels::cuda
