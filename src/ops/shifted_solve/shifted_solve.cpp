// Shifted solves: validation and dispatch (cpu.cpp, reference.cpp, cuda.cu).
#include "panoramix/ops/shifted_solve.hpp"

#include <algorithm>

#include "ops/shifted_solve/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

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
  switch (A.exec().kind()) {
    case backend::reference: return kernels::reference::shifted_cholesky_solve(A, a, b, m, B, ldb);
    case backend::cpu: return kernels::cpu::shifted_cholesky_solve(A, a, b, m, B, ldb);
    case backend::cuda: return kernels::cuda::shifted_cholesky_solve(A, a, b, m, B, ldb);
  }
  return 0.0;
}

void shifted_multiply(const shifted_operand& A, double a, double b, int64_t m, const double* X, int64_t ldx,
                      double* Y, int64_t ldy) {
  const int64_t n = A.n();
  PMX_EXPECTS(m >= 0, "negative number of columns");
  PMX_EXPECTS(ldx >= std::max<int64_t>(n, 1) && ldy >= std::max<int64_t>(n, 1), "leading dimension smaller than n");
  PMX_EXPECTS(n == 0 || m == 0 || (X && Y), "operand is null");
  if (n == 0 || m == 0) return;
  switch (A.exec().kind()) {
    case backend::reference: return kernels::reference::shifted_multiply(A, a, b, m, X, ldx, Y, ldy);
    case backend::cpu: return kernels::cpu::shifted_multiply(A, a, b, m, X, ldx, Y, ldy);
    case backend::cuda: return kernels::cuda::shifted_multiply(A, a, b, m, X, ldx, Y, ldy);
  }
}

}  // namespace pmx
