// Dense symmetric algebra on the host: LAPACK as shipped inside OpenBLAS (Debian's
// libopenblas0, LP64: 32-bit LAPACK integers, so n < 2^31).
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "core/blas_threads.hpp"
#include "ops/dense_linalg/kernels.hpp"
#include "panoramix/error.hpp"

extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, double* b,
             const int* ldb, int* info);
void dsyevr_(const char* jobz, const char* range, const char* uplo, const int* n, double* a, const int* lda,
             const double* vl, const double* vu, const int* il, const int* iu, const double* abstol, int* m,
             double* w, double* z, const int* ldz, int* isuppz, double* work, const int* lwork, int* iwork,
             const int* liwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}

namespace pmx::kernels::cpu {
namespace {

int lapack_int(int64_t v, const char* what) {
  if (v > INT_MAX) throw unsupported_error(std::string(what) + " exceeds LAPACK's 32-bit integers");
  return static_cast<int>(v);
}

}  // namespace

double cholesky_solve(const executor& exec, int64_t n64, double* A, int64_t lda64, int64_t m64, double* B,
                      int64_t ldb64) {
  const pmx::detail::blas_threads t(exec.threads());
  const int n = lapack_int(n64, "matrix order"), lda = lapack_int(lda64, "leading dimension");
  const int m = lapack_int(m64, "right-hand sides"), ldb = lapack_int(ldb64, "leading dimension");
  int info = 0;
  dpotrf_("L", &n, A, &lda, &info);
  if (info > 0)
    throw numeric_error("Cholesky factorisation: the matrix is not positive definite (leading minor of order " +
                        std::to_string(info) + " of " + std::to_string(n) + ")");
  if (info < 0) throw logic_error("dpotrf: argument " + std::to_string(-info) + " invalid");
  if (m > 0) {
    dpotrs_("L", &n, &m, A, &lda, B, &ldb, &info);
    if (info < 0) throw logic_error("dpotrs: argument " + std::to_string(-info) + " invalid");
  }
  double logdet = 0.0;
  for (int64_t i = 0; i < n64; ++i) logdet += std::log(A[i * lda64 + i]);
  return 2.0 * logdet;
}

void symmetric_eigen(const executor& exec, int64_t n64, double* A, int64_t lda64, int64_t count64,
                     double* values, double* vectors, int64_t ldv64) {
  const pmx::detail::blas_threads t(exec.threads());
  const int n = lapack_int(n64, "matrix order"), lda = lapack_int(lda64, "leading dimension");
  const int count = static_cast<int>(count64);
  const int il = n - count + 1, iu = n;
  const char* range = count == n ? "A" : "I";
  const char* jobz = vectors ? "V" : "N";
  const double zero = 0.0, abstol = 0.0;
  int found = 0, info = 0;
  std::vector<double> w(static_cast<size_t>(n));
  const int ldz = vectors ? lapack_int(ldv64, "leading dimension") : 1;
  std::vector<double> z(vectors ? static_cast<size_t>(ldz) * static_cast<size_t>(count) : 1);
  std::vector<int> isuppz(2 * static_cast<size_t>(std::max(count, 1)));
  int lwork = -1, liwork = -1, iwq = 0;
  double wq = 0;
  dsyevr_(jobz, range, "L", &n, A, &lda, &zero, &zero, &il, &iu, &abstol, &found, w.data(), z.data(), &ldz,
          isuppz.data(), &wq, &lwork, &iwq, &liwork, &info);
  lwork = static_cast<int>(wq);
  liwork = iwq;
  std::vector<double> work(static_cast<size_t>(std::max(lwork, 1)));
  std::vector<int> iwork(static_cast<size_t>(std::max(liwork, 1)));
  dsyevr_(jobz, range, "L", &n, A, &lda, &zero, &zero, &il, &iu, &abstol, &found, w.data(), z.data(), &ldz,
          isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info > 0) throw numeric_error("symmetric eigendecomposition (dsyevr) did not converge");
  if (info < 0) throw logic_error("dsyevr: argument " + std::to_string(-info) + " invalid");
  if (found != count) throw numeric_error("dsyevr returned " + std::to_string(found) + " of " +
                                          std::to_string(count) + " eigenpairs");
  // LAPACK gives ascending order; the op promises descending.
  for (int c = 0; c < count; ++c) {
    const int src = count - 1 - c;
    values[c] = w[static_cast<size_t>(src)];
    if (vectors)
      std::copy_n(z.data() + static_cast<size_t>(src) * ldz, n, vectors + static_cast<int64_t>(c) * ldv64);
  }
}

void orthonormalize(const executor& exec, int64_t rows64, int64_t cols64, double* A, int64_t lda64) {
  const pmx::detail::blas_threads t(exec.threads());
  const int m = lapack_int(rows64, "rows"), n = lapack_int(cols64, "columns");
  const int lda = lapack_int(lda64, "leading dimension");
  std::vector<double> tau(static_cast<size_t>(n));
  int info = 0, lwork = -1;
  double wq_qr = 0, wq_q = 0;
  dgeqrf_(&m, &n, A, &lda, tau.data(), &wq_qr, &lwork, &info);
  dorgqr_(&m, &n, &n, A, &lda, tau.data(), &wq_q, &lwork, &info);
  lwork = std::max({static_cast<int>(wq_qr), static_cast<int>(wq_q), 1});
  std::vector<double> work(static_cast<size_t>(lwork));
  dgeqrf_(&m, &n, A, &lda, tau.data(), work.data(), &lwork, &info);
  if (info < 0) throw logic_error("dgeqrf: argument " + std::to_string(-info) + " invalid");
  dorgqr_(&m, &n, &n, A, &lda, tau.data(), work.data(), &lwork, &info);
  if (info < 0) throw logic_error("dorgqr: argument " + std::to_string(-info) + " invalid");
}

void dense_gemm(const executor& exec, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                double alpha, const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                int64_t ldc) {
  const pmx::detail::blas_threads t(exec.threads());
  cblas_dgemm(CblasColMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              lapack_int(m, "rows"), lapack_int(n, "columns"), lapack_int(k, "inner dimension"), alpha, A,
              lapack_int(lda, "leading dimension"), B, lapack_int(ldb, "leading dimension"), beta, C,
              lapack_int(ldc, "leading dimension"));
}

}  // namespace pmx::kernels::cpu
