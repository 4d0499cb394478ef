#include "panoramix/ops/dense_linalg.hpp"

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
  if (exec.kind() == backend::cuda) return kernels::cuda::cholesky_solve(exec, n, A, lda, m, B, ldb);
  return kernels::cpu::cholesky_solve(exec, n, A, lda, m, B, ldb);
}

void symmetric_eigen(const executor& exec, int64_t n, double* A, int64_t lda, int64_t count,
                     double* values, double* vectors, int64_t ldv) {
  PMX_EXPECTS(n >= 0 && count >= 0 && count <= n, "need 0 <= count <= n");
  PMX_EXPECTS(lda >= std::max<int64_t>(n, 1), "leading dimension smaller than n");
  PMX_EXPECTS(!vectors || ldv >= std::max<int64_t>(n, 1), "eigenvector leading dimension smaller than n");
  PMX_EXPECTS(n == 0 || A, "matrix is null");
  PMX_EXPECTS(count == 0 || values, "eigenvalue output is null");
  if (count == 0) return;
  if (exec.kind() == backend::cuda)
    return kernels::cuda::symmetric_eigen(exec, n, A, lda, count, values, vectors, ldv);
  kernels::cpu::symmetric_eigen(exec, n, A, lda, count, values, vectors, ldv);
}

}  // namespace pmx
