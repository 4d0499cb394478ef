#pragma once
#include "panoramix/ops/table_products.hpp"

namespace pmx::kernels {
#define PMX_TABLE_PRODUCT_KERNELS                                                                   \
  void table_crossprod(const executor& exec, const variant_major_view& g,                          \
                       std::span<const code_table> tables, double* C, int64_t ld);                 \
  void table_rowsums(const executor& exec, const variant_major_view& g,                            \
                     std::span<const code_table> tables, std::span<double> y);                     \
  void missing_crossprod(const executor& exec, const variant_major_view& g,                        \
                         std::span<const code_table> tables, std::span<const double> r, double* Y, \
                         double* R, int64_t ld)
namespace reference { PMX_TABLE_PRODUCT_KERNELS; }
namespace cpu { PMX_TABLE_PRODUCT_KERNELS; }
namespace cuda { PMX_TABLE_PRODUCT_KERNELS; }  // cuda.cu, or cuda_stub.cpp without CUDA
#undef PMX_TABLE_PRODUCT_KERNELS
}  // namespace pmx::kernels
