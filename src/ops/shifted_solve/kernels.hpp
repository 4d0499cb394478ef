#pragma once
#include "panoramix/ops/shifted_solve.hpp"

namespace pmx::kernels::cuda {
shifted_operand::device_copy* upload_shifted(const executor& exec, int64_t n, const double* A, int64_t lda);
void release_shifted(shifted_operand::device_copy* d) noexcept;
double shifted_cholesky_solve(const shifted_operand& A, double a, double b, int64_t m, double* B, int64_t ldb);
}  // namespace pmx::kernels::cuda
