// dense_linalg: validation and dispatch (reference.cpp, cpu.cpp, cuda.cu).
#include "panoramix/ops/dense_linalg.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/dense_linalg/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

double cholesky_solve(const executor& exec, int64_t n, double* A, int64_t lda, int64_t m, double* B,
                      int64_t ldb) {
  PMX_EXPECTS(n >= 0 && m >= 0, "negative matrix size");
  PMX_EXPECTS(lda >= std::max<int64_t>(n, 1) && ldb >= std::max<int64_t>(n, 1), "leading dimension smaller than n");
  PMX_EXPECTS(n == 0 || A, "matrix is null");
  PMX_EXPECTS(n == 0 || m == 0 || B, "right-hand side is null");
  if (n == 0) return 0.0;
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::cholesky_solve(exec, n, A, lda, m, B, ldb);
    case backend::cpu: return kernels::cpu::cholesky_solve(exec, n, A, lda, m, B, ldb);
    case backend::cuda: return kernels::cuda::cholesky_solve(exec, n, A, lda, m, B, ldb);
  }
  return 0.0;
}

double shifted_cholesky_solve(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                              double* B, int64_t ldb) {
  PMX_EXPECTS(n >= 0 && m >= 0 && lda >= std::max<int64_t>(n, 1), "matrix sizes");
  PMX_EXPECTS(std::isfinite(shift), "finite shift");
  if (n == 0) return 0.0;
  PMX_EXPECTS(A && (m == 0 || B), "operands are null");
  if (exec.kind() == backend::cuda) return kernels::cuda::shifted_cholesky_solve(exec, n, A, lda, shift, m, B, ldb);
  std::vector<double> copy(static_cast<size_t>(n * n));  // host memory on the host backends
  for (int64_t c = 0; c < n; ++c)
    for (int64_t r = 0; r < n; ++r) copy[c * n + r] = A[c * lda + r] + (r == c ? shift : 0.0);
  return cholesky_solve(exec, n, copy.data(), n, m, B, ldb);
}

void shifted_residual(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                      const double* W, const double* Y, double* R) {
  PMX_EXPECTS(n >= 0 && m >= 0 && lda >= std::max<int64_t>(n, 1), "matrix sizes");
  if (n == 0 || m == 0) return;
  PMX_EXPECTS(A && W && Y && R, "operands are null");
  if (exec.kind() == backend::cuda && kernels::cuda::is_device_memory(A))
    return kernels::cuda::shifted_residual(exec, n, A, lda, shift, m, W, Y, R);
  const executor host = exec.kind() == backend::cuda ? exec.host() : exec;
  std::copy_n(Y, n * m, R);
  dense_gemm(host, false, false, n, m, n, -1.0, A, lda, W, n, 1.0, R, n);
  for (int64_t i = 0; i < n * m; ++i) R[i] -= shift * W[i];
}

double shifted_norm_inf(const executor& exec, int64_t n, const double* A, int64_t lda, double shift) {
  PMX_EXPECTS(n >= 0 && lda >= std::max<int64_t>(n, 1) && (n == 0 || A), "matrix sizes");
  if (exec.kind() == backend::cuda && n > 0 && kernels::cuda::is_device_memory(A))
    return kernels::cuda::shifted_norm_inf(exec, n, A, lda, shift);
  double worst = 0;
#pragma omp parallel for reduction(max : worst) num_threads(exec.threads())
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;  // row i = column i (symmetric)
    for (int64_t j = 0; j < n; ++j) s += std::fabs(A[i * lda + j] + (i == j ? shift : 0.0));
    worst = std::max(worst, s);
  }
  return worst;
}

void symmetric_eigen(const executor& exec, int64_t n, double* A, int64_t lda, int64_t count,
                     double* values, double* vectors, int64_t ldv) {
  PMX_EXPECTS(n >= 0 && count >= 0 && count <= n, "need 0 <= count <= n");
  PMX_EXPECTS(lda >= std::max<int64_t>(n, 1), "leading dimension smaller than n");
  PMX_EXPECTS(!vectors || ldv >= std::max<int64_t>(n, 1), "eigenvector leading dimension smaller than n");
  PMX_EXPECTS(n == 0 || A, "matrix is null");
  PMX_EXPECTS(count == 0 || values, "eigenvalue output is null");
  if (count == 0) return;
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::symmetric_eigen(exec, n, A, lda, count, values, vectors, ldv);
    case backend::cpu: return kernels::cpu::symmetric_eigen(exec, n, A, lda, count, values, vectors, ldv);
    case backend::cuda: return kernels::cuda::symmetric_eigen(exec, n, A, lda, count, values, vectors, ldv);
  }
}

void orthonormalize(const executor& exec, int64_t rows, int64_t cols, double* A, int64_t lda) {
  PMX_EXPECTS(cols >= 0 && rows >= cols, "need rows >= cols >= 0");
  PMX_EXPECTS(lda >= std::max<int64_t>(rows, 1), "leading dimension smaller than the row count");
  PMX_EXPECTS(cols == 0 || A, "matrix is null");
  if (cols == 0) return;
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::orthonormalize(exec, rows, cols, A, lda);
    case backend::cpu:
    case backend::cuda: return kernels::cpu::orthonormalize(exec, rows, cols, A, lda);  // host memory (header)
  }
}

void dense_gemm(const executor& exec, bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                int64_t k, double alpha, const double* A, int64_t lda, const double* B, int64_t ldb,
                double beta, double* C, int64_t ldc) {
  PMX_EXPECTS(m >= 0 && n >= 0 && k >= 0, "negative matrix size");
  PMX_EXPECTS(lda >= std::max<int64_t>(transpose_a ? k : m, 1), "leading dimension of A too small");
  PMX_EXPECTS(ldb >= std::max<int64_t>(transpose_b ? n : k, 1), "leading dimension of B too small");
  PMX_EXPECTS(ldc >= std::max<int64_t>(m, 1), "leading dimension of C too small");
  PMX_EXPECTS(m == 0 || n == 0 || C, "output is null");
  PMX_EXPECTS(k == 0 || m == 0 || n == 0 || (A && B), "input is null");
  if (m == 0 || n == 0) return;
  switch (exec.kind()) {
    case backend::reference:
      return kernels::reference::dense_gemm(exec, transpose_a, transpose_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    case backend::cpu:
    case backend::cuda:  // host memory (header)
      return kernels::cpu::dense_gemm(exec, transpose_a, transpose_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
}

}  // namespace pmx
