// Shifted solves by plain loops: the lower triangle of a·A + b·I (a = 0 included) factorised by
// dense_linalg's textbook Cholesky; products row by row from the lower triangle. The oracle.
#include <vector>

#include "ops/dense_linalg/kernels.hpp"
#include "ops/shifted_solve/kernels.hpp"

namespace pmx::kernels::reference {

double shifted_cholesky_solve(const shifted_operand& A, double a, double b, int64_t m, double* B, int64_t ldb) {
  const int64_t n = A.n(), lda = A.lda();
  const double* src = A.host();
  std::vector<double> H(static_cast<size_t>(n * n), 0.0);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j; i < n; ++i) H[j * n + i] = a * src[j * lda + i] + (i == j ? b : 0.0);
  return kernels::reference::cholesky_solve(A.exec(), n, H.data(), n, m, B, ldb);
}

void shifted_multiply(const shifted_operand& A, double a, double b, int64_t m, const double* X, int64_t ldx,
                      double* Y, int64_t ldy) {
  const int64_t n = A.n(), lda = A.lda();
  const double* src = A.host();
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = 0; i < n; ++i) {
      double s = 0.0;
      for (int64_t j = 0; j < n; ++j) s += (i >= j ? src[j * lda + i] : src[i * lda + j]) * X[c * ldx + j];
      Y[c * ldy + i] = a * s + b * X[c * ldx + i];
    }
}

}  // namespace pmx::kernels::reference
