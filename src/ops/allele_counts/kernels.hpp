// Backend kernels of allele_counts (signatures once; validated by ops/allele_counts.cpp).
#pragma once
#include "panoramix/ops/allele_counts.hpp"

namespace pmx::kernels {
#define PMX_ALLELE_COUNTS_KERNEL                                                      \
  void allele_counts(const executor& exec, const variant_major_view& g,             \
                     std::span<const uint8_t> include, std::span<variant_counts> out)
namespace reference { PMX_ALLELE_COUNTS_KERNEL; }
namespace cpu { PMX_ALLELE_COUNTS_KERNEL; }
namespace cuda { PMX_ALLELE_COUNTS_KERNEL; }  // cuda.cu, or cuda_stub.cpp without CUDA
#undef PMX_ALLELE_COUNTS_KERNEL
}  // namespace pmx::kernels
