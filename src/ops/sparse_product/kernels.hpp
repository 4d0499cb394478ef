#pragma once
#include "panoramix/ops/sparse_product.hpp"

namespace pmx::kernels::cuda {
sparse_operand::device_copy* upload_sparse(const executor& exec, const csr_view& s);
void release_sparse(sparse_operand::device_copy* d) noexcept;
void sparse_multiply(const sparse_operand& s, int64_t t, const double* X, double* Y);
}  // namespace pmx::kernels::cuda
