// Backend kernels of sparse_product (signatures once; validated and dispatched by sparse_product.cpp).
#pragma once
#include "panoramix/ops/sparse_product.hpp"

namespace pmx::kernels {
#define PMX_SPARSE_PRODUCT_KERNELS void sparse_multiply(const sparse_operand& s, int64_t t, const double* X, double* Y)
namespace reference { PMX_SPARSE_PRODUCT_KERNELS; }  // reference.cpp: plain loops
namespace cpu { PMX_SPARSE_PRODUCT_KERNELS; }        // cpu.cpp: rows in parallel (OpenMP)
namespace cuda { PMX_SPARSE_PRODUCT_KERNELS; }       // cuda.cu (cuSPARSE, a kernel), or cuda_stub.cpp
#undef PMX_SPARSE_PRODUCT_KERNELS

namespace cuda {
/// The device copy of S made by the operand's constructor on cuda (cuda.cu), and its release.
sparse_operand::device_copy* upload_sparse(const executor& exec, const csr_view& s);
void release_sparse(sparse_operand::device_copy* d) noexcept;
}  // namespace cuda
}  // namespace pmx::kernels
