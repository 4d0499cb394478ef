// Backend kernels of lmm_search (signatures once; validated and dispatched by lmm_search.cpp).
#pragma once
#include "panoramix/ops/lmm_search.hpp"

namespace pmx::kernels {
#define PMX_LMM_SEARCH_KERNELS                                                                             \
  void lmm_fit_variants(const lmm_search_operand& model, int64_t count, const double* Xt, int64_t ldx, \
                        const uint8_t* test, double fixed_lambda, lmm_variant_fit* out)
namespace reference { PMX_LMM_SEARCH_KERNELS; }  // reference.cpp: the host search on one thread
namespace cpu { PMX_LMM_SEARCH_KERNELS; }        // cpu.cpp: the host search, variants in parallel
namespace cuda { PMX_LMM_SEARCH_KERNELS; }       // cuda.cu (a thread block per variant), or cuda_stub.cpp
#undef PMX_LMM_SEARCH_KERNELS

/// The host search (cpu.cpp) on `threads` threads: the cpu and reference backends, and the cuda
/// backend's fall-back for more than max_device_columns columns.
void host_fit_variants(const lmm_search_operand& model, int64_t count, const double* Xt, int64_t ldx,
                       const uint8_t* test, double fixed_lambda, lmm_variant_fit* out, int threads);

namespace cuda {
/// d, the grid and Uᵀ[W | y] on the device (cuda.cu), and their release.
lmm_search_operand::device_copy* upload_lmm_model(const lmm_search_operand& model);
void release_lmm_model(lmm_search_operand::device_copy* d) noexcept;
}  // namespace cuda
}  // namespace pmx::kernels
