#pragma once
#include "panoramix/ops/genotype_gemm.hpp"

namespace pmx::kernels {
#define PMX_GENOTYPE_GEMM_KERNELS                                                                \
  void gemm(const executor& exec, const variant_major_view& g, const gemm_centring& centring,   \
            int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* Y,         \
            int64_t ld_y);                                                                      \
  void gemm_transposed(const executor& exec, const variant_major_view& g,                       \
                       const gemm_centring& centring, int64_t l, const double* lambda,          \
                       int64_t ld_lambda, double beta, double* W, int64_t ld_w)
namespace reference { PMX_GENOTYPE_GEMM_KERNELS; }
namespace cpu { PMX_GENOTYPE_GEMM_KERNELS; }
#undef PMX_GENOTYPE_GEMM_KERNELS
}  // namespace pmx::kernels
