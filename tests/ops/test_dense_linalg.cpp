// dense_linalg (LAPACK on cpu) against independent oracles: a long-double Gaussian elimination
// for solves and log-determinants, and the defining equations A v = λ v, VᵀV = I plus the
// eigenvalues of a matrix built from known ones.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using test::matrix_with_spectrum;

TEST(DenseLinalg, CholeskySolveMatchesLongDoubleElimination) {
  const int64_t n = 57, m = 3, ld = 61;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 0.5 + i;
  const auto A0 = matrix_with_spectrum(lambda, 7);
  std::vector<double> A(ld * n), B(ld * m), rhs(n * m);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) A[j * ld + i] = A0[j * n + i];
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = 0; i < n; ++i) B[c * ld + i] = rhs[c * n + i] = u(rng);
  const double logdet = cholesky_solve(executor(backend::cpu, 2), n, A.data(), ld, m, B.data(), ld);
  // Oracle: Gaussian elimination in long double.
  std::vector<long double> M(A0.begin(), A0.end()), X(n * m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < m; ++c) X[i * m + c] = rhs[c * n + i];
  const long double ld_ref = test::ld_solve(M, X, n, m);
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(B[c * ld + i], static_cast<double>(X[i * m + c]), 1e-12 * std::fabs(static_cast<double>(X[i * m + c])) + 1e-13);
  EXPECT_NEAR(logdet, static_cast<double>(ld_ref), 1e-11 * std::fabs(static_cast<double>(ld_ref)));
}

TEST(DenseLinalg, CholeskyRejectsIndefiniteMatrix) {
  std::vector<double> A = {1, 2, 2, 1};  // eigenvalues 3 and -1
  std::vector<double> b = {1, 1};
  EXPECT_THROW(cholesky_solve(executor(backend::cpu, 1), 2, A.data(), 2, 1, b.data(), 2), numeric_error);
}

TEST(DenseLinalg, EigenpairsOfAKnownSpectrum) {
  const int64_t n = 40;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = std::pow(0.8, i) * 10;  // clear gaps
  const auto A0 = matrix_with_spectrum(lambda, 11);
  for (int64_t count : {int64_t{5}, n}) {
    auto A = A0;
    std::vector<double> w(count), V(n * count);
    symmetric_eigen(executor(backend::cpu, 2), n, A.data(), n, count, w.data(), V.data(), n);
    for (int64_t c = 0; c < count; ++c) {
      EXPECT_NEAR(w[c], lambda[c], 1e-12 * lambda[0]) << "eigenvalue " << c;
      for (int64_t i = 0; i < n; ++i) {  // A v = λ v
        double av = 0;
        for (int64_t j = 0; j < n; ++j) av += A0[i * n + j] * V[c * n + j];
        EXPECT_NEAR(av, w[c] * V[c * n + i], 1e-12 * lambda[0]);
      }
      for (int64_t d = 0; d <= c; ++d) {  // orthonormal columns
        double dot = 0;
        for (int64_t i = 0; i < n; ++i) dot += V[c * n + i] * V[d * n + i];
        EXPECT_NEAR(dot, c == d ? 1.0 : 0.0, 1e-12);
      }
    }
  }
}

TEST(ShiftedSolve, ManyShiftsOfOneMatrixMatchClosedForms) {
  const int64_t n = 80, m = 2;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 3.0 * std::pow(0.93, i);  // GRM-like: decaying, >= 0
  const auto A = matrix_with_spectrum(lambda, 21);
  std::vector<double> B(n * m);
  for (int64_t i = 0; i < n * m; ++i) B[i] = std::sin(0.37 * i) + 0.2;
  const shifted_operand op(executor(backend::cpu, 2), n, A.data(), n);
  for (double h2 : {0.05, 0.5, 0.95}) {
    auto X = B;
    const double logdet = shifted_cholesky_solve(op, h2, 1 - h2, m, X.data(), n);
    EXPECT_LT(test::shifted_solve_error(A, lambda, h2, 1 - h2, B, X, m, logdet), 1e-12) << "h2 " << h2;
  }
  auto X = B;
  EXPECT_THROW(shifted_cholesky_solve(op, 1.0, -4.0, m, X.data(), n), numeric_error);  // shifted below 0
}

}  // namespace
}  // namespace pmx
