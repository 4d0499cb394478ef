// Shifted solves: validation, the cpu path (a shifted copy factorised by dense_linalg's LAPACK
// Cholesky) and dispatch to cuda.
#include "panoramix/ops/shifted_solve.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/blas_threads.hpp"
#include "ops/shifted_solve/kernels.hpp"
#include "panoramix/error.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx {

namespace kernels {
void gather_lower_columns(double* dst, const double* A, int64_t lda, int64_t n, int64_t j0, int64_t cols,
                          int threads) {
  const int64_t rows = n - j0;
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
  for (int64_t c = 0; c < cols; ++c)
    std::copy_n(A + (j0 + c) * lda + j0, rows, dst + c * rows);
}
}  // namespace kernels

shifted_operand::shifted_operand(const executor& exec, int64_t n, const double* A, int64_t lda)
    : exec_(exec), n_(n), lda_(lda), A_(A) {
  PMX_EXPECTS(n >= 0, "negative matrix order");
  PMX_EXPECTS(lda >= std::max<int64_t>(n, 1), "leading dimension smaller than n");
  PMX_EXPECTS(n == 0 || A, "matrix is null");
  if (exec.kind() == backend::cuda && n > 0) device_.reset(kernels::cuda::upload_shifted(exec, n, A, lda));
}
shifted_operand::~shifted_operand() = default;
shifted_operand::shifted_operand(shifted_operand&&) noexcept = default;
shifted_operand& shifted_operand::operator=(shifted_operand&&) noexcept = default;
void shifted_operand::device_copy_deleter::operator()(device_copy* d) const { kernels::cuda::release_shifted(d); }

double shifted_cholesky_solve(const shifted_operand& A, double a, double b, int64_t m, double* B, int64_t ldb) {
  const int64_t n = A.n();
  PMX_EXPECTS(m >= 0, "negative number of right-hand sides");
  PMX_EXPECTS(ldb >= std::max<int64_t>(n, 1), "leading dimension smaller than n");
  PMX_EXPECTS(n == 0 || m == 0 || B, "right-hand side is null");
  if (n == 0) return 0.0;
  if (a == 0) {  // b·I: nothing to factorise
    if (!(b > 0))
      throw numeric_error("Cholesky factorisation of the shifted matrix: not positive definite (0·A + " +
                          std::to_string(b) + "·I)");
    for (int64_t c = 0; c < m; ++c)
      for (int64_t i = 0; i < n; ++i) B[c * ldb + i] /= b;
    return static_cast<double>(n) * std::log(b);
  }
  if (A.exec().kind() == backend::cuda) return kernels::cuda::shifted_cholesky_solve(A, a, b, m, B, ldb);
  // cpu/reference: the lower triangle of a·A + b·I in a scratch copy, factorised by LAPACK.
  matrix_buffer<double> H(static_cast<size_t>(n * n));
  const double* src = A.host();
  const int64_t lda = A.lda();
#pragma omp parallel for schedule(dynamic, 64) num_threads(std::max(1, A.exec().threads()))
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = j; i < n; ++i) H[j * n + i] = a * src[j * lda + i];
    H[j * n + j] += b;
  }
  return cholesky_solve(A.exec(), n, H.data(), n, m, B, ldb);
}

void shifted_multiply(const shifted_operand& A, double a, double b, int64_t m, const double* X, int64_t ldx,
                      double* Y, int64_t ldy) {
  const int64_t n = A.n();
  PMX_EXPECTS(m >= 0, "negative number of columns");
  PMX_EXPECTS(ldx >= std::max<int64_t>(n, 1) && ldy >= std::max<int64_t>(n, 1), "leading dimension smaller than n");
  PMX_EXPECTS(n == 0 || m == 0 || (X && Y), "operand is null");
  if (n == 0 || m == 0) return;
  if (A.exec().kind() == backend::cuda) return kernels::cuda::shifted_multiply(A, a, b, m, X, ldx, Y, ldy);
  // cpu/reference: Y = a·A X (dsymm on the lower triangle, the executor's threads), then Y += b·X.
  {
    const pmx::detail::blas_threads threads(A.exec().threads());
    cblas_dsymm(CblasColMajor, CblasLeft, CblasLower, static_cast<int>(n), static_cast<int>(m), a, A.host(),
                static_cast<int>(A.lda()), X, static_cast<int>(ldx), 0.0, Y, static_cast<int>(ldy));
  }
  if (b != 0)
    for (int64_t c = 0; c < m; ++c)
      for (int64_t i = 0; i < n; ++i) Y[c * ldy + i] += b * X[c * ldx + i];
}

}  // namespace pmx
