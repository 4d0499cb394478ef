// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/lmm_search/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

namespace {
[[noreturn]] void not_built() {
  throw unsupported_error("lmm search: the CUDA backend is not compiled in (use --device cpu)");
}
}  // namespace

lmm_search_operand::device_copy* upload_lmm_model(const lmm_search_operand&) { not_built(); }
void release_lmm_model(lmm_search_operand::device_copy*) noexcept {}
void lmm_fit_variants(const lmm_search_operand&, int64_t, const double*, int64_t, const uint8_t*, double,
                      lmm_variant_fit*) {
  not_built();
}

}  // namespace pmx::kernels::cuda
