#pragma once
#include "panoramix/ops/crossprod.hpp"

namespace pmx::kernels {
#define PMX_CROSSPROD_KERNELS                                                                 \
  void crossprod(const executor& exec, const packed_rows_view& A, const packed_rows_view& B,  \
                 const crossprod_outputs& out);                                               \
  void crossprod_symmetric(const executor& exec, const packed_rows_view& A, const crossprod_outputs& out); \
  missing_sums_fn missing_sums_kernel(const executor& exec)
namespace reference { PMX_CROSSPROD_KERNELS; }
namespace cpu { PMX_CROSSPROD_KERNELS; }
namespace cuda { PMX_CROSSPROD_KERNELS; }  // cuda.cu, or cuda_stub.cpp without CUDA
#undef PMX_CROSSPROD_KERNELS
}  // namespace pmx::kernels
