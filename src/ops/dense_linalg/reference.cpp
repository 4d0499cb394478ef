// Dense linear algebra by textbook loops: the oracle of the LAPACK (cpu) and cuSOLVER (cuda)
// backends. Cholesky by the column-by-column recurrence, the symmetric eigenproblem by cyclic
// Jacobi rotations, orthonormalisation by Householder QR with LAPACK's reflector convention
// (dlarfg: β = −sign(α)·‖(α, x)‖), so Q matches dgeqrf + dorgqr column by column up to rounding.
// Column-major with leading dimensions, as in dense_linalg.hpp.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ops/dense_linalg/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::reference {

double cholesky_solve(const executor&, int64_t n, double* A, int64_t lda, int64_t m, double* B, int64_t ldb) {
  auto L = [&](int64_t i, int64_t j) -> double& { return A[j * lda + i]; };  // lower triangle, i >= j
  for (int64_t j = 0; j < n; ++j) {
    double d = L(j, j);
    for (int64_t k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    if (!(d > 0))
      throw numeric_error("Cholesky factorisation: the matrix is not positive definite (leading minor of order " +
                          std::to_string(j + 1) + " of " + std::to_string(n) + ")");
    L(j, j) = std::sqrt(d);
    for (int64_t i = j + 1; i < n; ++i) {
      double s = L(i, j);
      for (int64_t k = 0; k < j; ++k) s -= L(i, k) * L(j, k);
      L(i, j) = s / L(j, j);
    }
  }
  for (int64_t c = 0; c < m; ++c) {
    double* x = B + c * ldb;
    for (int64_t i = 0; i < n; ++i) {  // L y = b
      double s = x[i];
      for (int64_t k = 0; k < i; ++k) s -= L(i, k) * x[k];
      x[i] = s / L(i, i);
    }
    for (int64_t i = n - 1; i >= 0; --i) {  // Lᵀ x = y
      double s = x[i];
      for (int64_t k = i + 1; k < n; ++k) s -= L(k, i) * x[k];
      x[i] = s / L(i, i);
    }
  }
  double logdet = 0.0;
  for (int64_t i = 0; i < n; ++i) logdet += std::log(L(i, i));
  return 2.0 * logdet;
}

void symmetric_eigen(const executor&, int64_t n, double* A, int64_t lda, int64_t count, double* values,
                     double* vectors, int64_t ldv) {
  // M: the full symmetric matrix from A's lower triangle (row-major n × n); V: the rotations.
  std::vector<double> M(static_cast<size_t>(n * n)), V(static_cast<size_t>(n * n), 0.0);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j; i < n; ++i) M[i * n + j] = M[j * n + i] = A[j * lda + i];
  for (int64_t i = 0; i < n; ++i) V[i * n + i] = 1.0;
  double norm = 0.0;
  for (double x : M) norm += x * x;
  norm = std::sqrt(norm);
  // An off-diagonal entry is negligible below ε·sqrt(|M_pp M_qq|) (relative accuracy), or far
  // below ε·‖M‖ (absolute accuracy of the eigenvalues in any case).
  const double eps = DBL_EPSILON, floor = 1e-3 * eps * norm;
  bool converged = false;
  for (int sweep = 0; sweep < 60 && !converged; ++sweep) {
    converged = true;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        const double app = M[p * n + p], aqq = M[q * n + q], apq = M[p * n + q];
        if (std::fabs(apq) <= std::max(eps * std::sqrt(std::fabs(app * aqq)), floor)) continue;
        converged = false;
        // J = [c s; −s c] in rows/columns (p, q) zeroes M_pq in Jᵀ M J (Golub & Van Loan, sym.schur2).
        const double tau = (aqq - app) / (2.0 * apq);
        const double t = (tau >= 0 ? 1.0 : -1.0) / (std::fabs(tau) + std::sqrt(1.0 + tau * tau));
        const double c = 1.0 / std::sqrt(1.0 + t * t), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // M J
          const double mp = M[k * n + p], mq = M[k * n + q];
          M[k * n + p] = c * mp - s * mq;
          M[k * n + q] = s * mp + c * mq;
        }
        for (int64_t k = 0; k < n; ++k) {  // Jᵀ (M J)
          const double mp = M[p * n + k], mq = M[q * n + k];
          M[p * n + k] = c * mp - s * mq;
          M[q * n + k] = s * mp + c * mq;
        }
        M[p * n + q] = M[q * n + p] = 0.0;
        for (int64_t k = 0; k < n; ++k) {  // V J
          const double vp = V[k * n + p], vq = V[k * n + q];
          V[k * n + p] = c * vp - s * vq;
          V[k * n + q] = s * vp + c * vq;
        }
      }
  }
  if (!converged) throw numeric_error("symmetric eigendecomposition (Jacobi) did not converge");
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return M[x * n + x] > M[y * n + y]; });
  for (int64_t c = 0; c < count; ++c) {
    const int64_t e = order[static_cast<size_t>(c)];
    values[c] = M[e * n + e];
    if (vectors)
      for (int64_t i = 0; i < n; ++i) vectors[c * ldv + i] = V[i * n + e];
  }
}

void orthonormalize(const executor&, int64_t rows, int64_t cols, double* A, int64_t lda) {
  auto a = [&](int64_t i, int64_t j) -> double& { return A[j * lda + i]; };
  // QR: reflector j is H_j = I − τ_j v vᵀ, v = (1, A[j+1.., j]) (stored below the diagonal).
  std::vector<double> tau(static_cast<size_t>(cols), 0.0);
  for (int64_t j = 0; j < cols; ++j) {
    const double alpha = a(j, j);
    double xnorm = 0.0;
    for (int64_t i = j + 1; i < rows; ++i) xnorm += a(i, j) * a(i, j);
    xnorm = std::sqrt(xnorm);
    if (xnorm == 0.0) continue;  // H_j = I
    const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
    tau[j] = (beta - alpha) / beta;
    for (int64_t i = j + 1; i < rows; ++i) a(i, j) /= alpha - beta;
    a(j, j) = beta;
    for (int64_t c = j + 1; c < cols; ++c) {
      double w = a(j, c);
      for (int64_t i = j + 1; i < rows; ++i) w += a(i, j) * a(i, c);
      a(j, c) -= tau[j] * w;
      for (int64_t i = j + 1; i < rows; ++i) a(i, c) -= tau[j] * w * a(i, j);
    }
  }
  // Q = H_0 H_1 ... H_{cols−1} applied to the first `cols` columns of the identity.
  std::vector<double> Q(static_cast<size_t>(rows * cols), 0.0);  // column-major, leading dimension rows
  for (int64_t j = 0; j < cols; ++j) Q[j * rows + j] = 1.0;
  for (int64_t j = cols - 1; j >= 0; --j)
    for (int64_t c = 0; c < cols; ++c) {
      double* q = Q.data() + c * rows;
      double w = q[j];
      for (int64_t i = j + 1; i < rows; ++i) w += a(i, j) * q[i];
      q[j] -= tau[j] * w;
      for (int64_t i = j + 1; i < rows; ++i) q[i] -= tau[j] * w * a(i, j);
    }
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t i = 0; i < rows; ++i) a(i, c) = Q[c * rows + i];
}

void dense_gemm(const executor&, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, double alpha,
                const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double s = 0.0;
      if (alpha != 0.0)
        for (int64_t l = 0; l < k; ++l)
          s += (transpose_a ? A[i * lda + l] : A[l * lda + i]) * (transpose_b ? B[l * ldb + j] : B[j * ldb + l]);
      double& c = C[j * ldc + i];
      c = alpha * s + (beta != 0.0 ? beta * c : 0.0);
    }
}

}  // namespace pmx::kernels::reference
