#pragma once
#include "panoramix/ops/shifted_solve.hpp"

namespace pmx::kernels {
/// Host half of the cuda upload (plain C++, OpenMP): columns [j0, j0 + cols) of column-major A
/// (leading dimension lda), rows j0..n-1 of each, packed into dst with leading dimension n - j0.
void gather_lower_columns(double* dst, const double* A, int64_t lda, int64_t n, int64_t j0, int64_t cols,
                          int threads);
}  // namespace pmx::kernels

namespace pmx::kernels::cuda {
shifted_operand::device_copy* upload_shifted(const executor& exec, int64_t n, const double* A, int64_t lda);
void release_shifted(shifted_operand::device_copy* d) noexcept;
double shifted_cholesky_solve(const shifted_operand& A, double a, double b, int64_t m, double* B, int64_t ldb);
void shifted_multiply(const shifted_operand& A, double a, double b, int64_t m, const double* X, int64_t ldx,
                      double* Y, int64_t ldy);
}  // namespace pmx::kernels::cuda
