// Shifted solves on the host: the lower triangle of a·A + b·I in a scratch copy, factorised by
// dense_linalg's LAPACK Cholesky; products by BLAS dsymm on the caller's lower triangle.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/blas_threads.hpp"
#include "ops/dense_linalg/kernels.hpp"
#include "ops/shifted_solve/kernels.hpp"
#include "panoramix/error.hpp"
#include "panoramix/matrix_buffer.hpp"

namespace pmx::kernels {

void gather_lower_columns(double* dst, const double* A, int64_t lda, int64_t n, int64_t j0, int64_t cols,
                          int threads) {
  const int64_t rows = n - j0;
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
  for (int64_t c = 0; c < cols; ++c)
    std::copy_n(A + (j0 + c) * lda + j0, rows, dst + c * rows);
}

double solve_scaled_identity(int64_t n, double b, int64_t m, double* B, int64_t ldb) {
  if (!(b > 0))
    throw numeric_error("Cholesky factorisation of the shifted matrix: not positive definite (0·A + " +
                        std::to_string(b) + "·I)");
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = 0; i < n; ++i) B[c * ldb + i] /= b;
  return static_cast<double>(n) * std::log(b);
}

namespace cpu {

double shifted_cholesky_solve(const shifted_operand& A, double a, double b, int64_t m, double* B, int64_t ldb) {
  const int64_t n = A.n();
  if (a == 0) return solve_scaled_identity(n, b, m, B, ldb);  // b·I: nothing to factorise
  matrix_buffer<double> H(static_cast<size_t>(n * n));
  const double* src = A.host();
  const int64_t lda = A.lda();
#pragma omp parallel for schedule(dynamic, 64) num_threads(std::max(1, A.exec().threads()))
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = j; i < n; ++i) H[j * n + i] = a * src[j * lda + i];
    H[j * n + j] += b;
  }
  return kernels::cpu::cholesky_solve(A.exec(), n, H.data(), n, m, B, ldb);
}

void shifted_multiply(const shifted_operand& A, double a, double b, int64_t m, const double* X, int64_t ldx,
                      double* Y, int64_t ldy) {
  const int64_t n = A.n();
  // Y = a·A X (dsymm on the lower triangle, the executor's threads), then Y += b·X.
  {
    const pmx::detail::blas_threads threads(A.exec().threads());
    cblas_dsymm(CblasColMajor, CblasLeft, CblasLower, static_cast<int>(n), static_cast<int>(m), a, A.host(),
                static_cast<int>(A.lda()), X, static_cast<int>(ldx), 0.0, Y, static_cast<int>(ldy));
  }
  if (b != 0)
    for (int64_t c = 0; c < m; ++c)
      for (int64_t i = 0; i < n; ++i) Y[c * ldy + i] += b * X[c * ldx + i];
}

}  // namespace cpu
}  // namespace pmx::kernels
