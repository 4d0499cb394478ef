// Test cases of dense_linalg shared by every backend's tests (test_dense_linalg.cpp: reference and
// cpu; test_cuda_dense_linalg.cpp: cuda). Every backend, the reference included, is checked
// against independent oracles: long-double Gaussian elimination for solves and log-determinants,
// the eigenvalues a matrix was built from and the defining equations A v = λ v, VᵀV = I, QᵀQ = I
// with Qᵀ A upper triangular for orthonormalize, long-double products for dense_gemm; and against
// the reference backend's results (eigenvectors up to sign where the eigenvalue is isolated; Q
// column by column, LAPACK's and the reference's reflectors having the same signs).
// Operands have leading dimensions larger than their row counts, with NaN in the padding.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "test_support.hpp"

namespace pmx::dense_linalg_cases {

inline const double qnan = std::numeric_limits<double>::quiet_NaN();

/// n × n from a row-major dense matrix into leading dimension ld, NaN in the padding rows.
inline std::vector<double> with_ld(const std::vector<double>& A, int64_t rows, int64_t cols, int64_t ld) {
  std::vector<double> p(static_cast<size_t>(ld * cols), qnan);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) p[j * ld + i] = A[j * rows + i];
  return p;
}

inline std::string tag(const executor& e, const std::string& what) { return std::string(backend_name(e.kind())) + ": " + what; }

/// Cholesky solves of SPD matrices (spectrum 0.5 + i) against long-double elimination and the reference.
inline void cholesky_cases(const executor& e) {
  for (int64_t n : {int64_t{1}, int64_t{2}, int64_t{57}})
    for (int64_t m : {int64_t{0}, int64_t{1}, int64_t{3}}) {
      const int64_t ld = n + 4;
      std::vector<double> lambda(n);
      for (int64_t i = 0; i < n; ++i) lambda[i] = 0.5 + static_cast<double>(i);
      const auto A0 = test::matrix_with_spectrum(lambda, 7 + n);
      std::mt19937_64 rng(3 + n);
      std::uniform_real_distribution<double> u(-1, 1);
      std::vector<double> rhs(static_cast<size_t>(n * m));
      for (auto& x : rhs) x = u(rng);
      auto A = with_ld(A0, n, n, ld), Ar = A, B = with_ld(rhs, n, m, ld), Br = B;
      const double logdet = cholesky_solve(e, n, A.data(), ld, m, B.data(), ld);
      const double logdet_r = cholesky_solve(executor::reference(), n, Ar.data(), ld, m, Br.data(), ld);
      std::vector<long double> M(A0.begin(), A0.end()), X(static_cast<size_t>(n * m));
      for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < m; ++c) X[i * m + c] = rhs[c * n + i];
      const long double ld_ref = test::ld_solve(M, X, n, m);
      const std::string what = tag(e, "Cholesky n = " + std::to_string(n) + ", m = " + std::to_string(m));
      EXPECT_NEAR(logdet, static_cast<double>(ld_ref), 1e-11 * std::fabs(static_cast<double>(ld_ref)) + 1e-14) << what;
      EXPECT_NEAR(logdet, logdet_r, 1e-11 * std::fabs(logdet_r) + 1e-14) << what;
      for (int64_t c = 0; c < m; ++c)
        for (int64_t i = 0; i < n; ++i) {
          const double x = static_cast<double>(X[i * m + c]);
          ASSERT_NEAR(B[c * ld + i], x, 1e-12 * std::fabs(x) + 1e-13) << what;
          ASSERT_NEAR(B[c * ld + i], Br[c * ld + i], 1e-12 * std::fabs(x) + 1e-13) << what << " vs reference";
        }
    }
  // Not positive definite: eigenvalues 3 and −1; and a zero leading minor.
  for (std::vector<double> A : {std::vector<double>{1, 2, 2, 1}, std::vector<double>{0, 1, 1, 1}}) {
    std::vector<double> b = {1, 1};
    EXPECT_THROW(cholesky_solve(e, 2, A.data(), 2, 1, b.data(), 2), numeric_error) << tag(e, "indefinite");
  }
}

/// Eigenpairs of a known spectrum (clear gaps, then a repeated eigenvalue) against the spectrum,
/// the defining equations and the reference.
// (A + shift·I) X = B with A left unchanged, against cholesky_solve on A + shift·I added by hand.
inline void shifted_cholesky_cases(const executor& e) {
  for (int64_t n : {int64_t{1}, int64_t{40}})
    for (double shift : {0.0, 0.3}) {
      const int64_t ld = n + 3, m = 2;
      std::vector<double> lambda(n);
      for (int64_t i = 0; i < n; ++i) lambda[i] = 0.1 + static_cast<double>(i) / 7.0;
      const auto A = with_ld(test::matrix_with_spectrum(lambda, 11 + n), n, n, ld);
      auto A_shifted = A;
      for (int64_t i = 0; i < n; ++i) A_shifted[i * ld + i] += shift;
      std::vector<double> B(static_cast<size_t>(ld * m)), Br;
      for (size_t k = 0; k < B.size(); ++k) B[k] = std::cos(double(k));
      Br = B;
      const auto A_before = A;
      const double logdet = shifted_cholesky_solve(e, n, A.data(), ld, shift, m, B.data(), ld);
      const double logdet_r = cholesky_solve(executor::reference(), n, A_shifted.data(), ld, m, Br.data(), ld);
      const std::string what = tag(e, "shifted Cholesky n = " + std::to_string(n));
      EXPECT_EQ(std::memcmp(A.data(), A_before.data(), sizeof(double) * A.size()), 0) << what << ": A changed";
      EXPECT_NEAR(logdet, logdet_r, 1e-12 * std::fabs(logdet_r) + 1e-14) << what;
      for (int64_t c = 0; c < m; ++c)
        for (int64_t i = 0; i < n; ++i)
          ASSERT_NEAR(B[c * ld + i], Br[c * ld + i], 1e-11 * std::fabs(Br[c * ld + i]) + 1e-13) << what;
      // The residual of that solution is rounding; against a long-double product for a random W.
      std::vector<double> W(static_cast<size_t>(n * m)), Y(W.size()), R(W.size());
      for (size_t k = 0; k < W.size(); ++k) W[k] = std::sin(1.0 + double(k)), Y[k] = std::cos(2.0 * double(k));
      shifted_residual(e, n, A.data(), ld, shift, m, W.data(), Y.data(), R.data());
      long double worst_row = 0;
      for (int64_t i = 0; i < n; ++i) {
        long double row = 0;
        for (int64_t j = 0; j < n; ++j) row += fabsl((long double)A[j * ld + i] + (i == j ? shift : 0.0));
        worst_row = std::max(worst_row, row);
        for (int64_t c = 0; c < m; ++c) {
          long double want = Y[c * n + i] - (long double)shift * W[c * n + i];
          for (int64_t j = 0; j < n; ++j) want -= (long double)A[j * ld + i] * W[c * n + j];
          EXPECT_NEAR(R[c * n + i], double(want), 1e-13 * (1 + double(fabsl(want)))) << what << " residual";
        }
      }
      EXPECT_NEAR(shifted_norm_inf(e, n, A.data(), ld, shift), double(worst_row), 1e-13 * double(worst_row)) << what;
    }
}

inline void eigen_cases(const executor& e) {
  for (int64_t n : {int64_t{1}, int64_t{6}, int64_t{40}}) {
    std::vector<double> lambda(n);
    for (int64_t i = 0; i < n; ++i) lambda[i] = std::pow(0.8, static_cast<double>(i)) * 10 - (i % 3 == 2 ? 4 : 0);
    if (n >= 6) lambda[n - 1] = lambda[n - 2] = -1.5;  // a repeated (and negative) eigenvalue
    std::vector<double> sorted = lambda;
    std::sort(sorted.rbegin(), sorted.rend());
    const auto A0 = test::matrix_with_spectrum(lambda, 11 + n);
    const double scale = std::max(std::fabs(sorted.front()), std::fabs(sorted.back()));
    const int64_t ld = n + 2;
    for (int64_t count : {int64_t{1}, std::min<int64_t>(5, n), n})
      for (bool want_vectors : {true, false}) {
        const std::string what = tag(e, "eigen n = " + std::to_string(n) + ", count = " + std::to_string(count) +
                                            (want_vectors ? "" : ", values only"));
        auto A = with_ld(A0, n, n, ld), Ar = A;
        std::vector<double> w(count), wr(count), V(want_vectors ? ld * count : 0, qnan), Vr(ld * count, qnan);
        symmetric_eigen(e, n, A.data(), ld, count, w.data(), want_vectors ? V.data() : nullptr, ld);
        symmetric_eigen(executor::reference(), n, Ar.data(), ld, count, wr.data(), Vr.data(), ld);
        for (int64_t c = 0; c < count; ++c) {
          EXPECT_NEAR(w[c], sorted[c], 1e-12 * scale) << what << " eigenvalue " << c;
          EXPECT_NEAR(wr[c], sorted[c], 1e-12 * scale) << what << " reference eigenvalue " << c;
          if (!want_vectors) continue;
          for (int64_t i = 0; i < n; ++i) {  // A v = λ v
            double av = 0;
            for (int64_t j = 0; j < n; ++j) av += A0[i * n + j] * V[c * ld + j];
            ASSERT_NEAR(av, w[c] * V[c * ld + i], 1e-12 * scale) << what << " A v = λ v, vector " << c;
          }
          for (int64_t d = 0; d <= c; ++d) {  // orthonormal columns
            double dot = 0;
            for (int64_t i = 0; i < n; ++i) dot += V[c * ld + i] * V[d * ld + i];
            ASSERT_NEAR(dot, c == d ? 1.0 : 0.0, 1e-12) << what << " VᵀV, " << c << "," << d;
          }
          const bool isolated = (c == 0 || sorted[c - 1] - sorted[c] > 1e-3 * scale) &&
                                (c + 1 == n || sorted[c] - sorted[c + 1] > 1e-3 * scale);
          if (isolated) {  // the same vector as the reference's, up to sign
            double dot = 0;
            for (int64_t i = 0; i < n; ++i) dot += V[c * ld + i] * Vr[c * ld + i];
            EXPECT_NEAR(std::fabs(dot), 1.0, 1e-10) << what << " vs reference, vector " << c;
          }
        }
      }
  }
}

/// orthonormalize: QᵀQ = I and Qᵀ A0 upper triangular (column c of Q in the span of columns 0..c
/// of A0), the reference's Q column by column; a rank-deficient A still gives orthonormal columns.
inline void orthonormalize_cases(const executor& e) {
  struct shape {
    int64_t rows, cols;
    bool deficient;
  };
  for (shape s : {shape{1, 1, false}, shape{10, 3, false}, shape{200, 12, false}, shape{50, 6, true}}) {
    const int64_t r = s.rows, k = s.cols, ld = r + 3;
    std::mt19937_64 rng(r * 31 + k);
    std::normal_distribution<double> z;
    std::vector<double> A0(static_cast<size_t>(r * k));
    for (auto& x : A0) x = z(rng);
    if (s.deficient)  // column 3 = column 1 + 2 column 0
      for (int64_t i = 0; i < r; ++i) A0[3 * r + i] = A0[r + i] + 2 * A0[i];
    auto Q = with_ld(A0, r, k, ld), Qr = Q;
    orthonormalize(e, r, k, Q.data(), ld);
    orthonormalize(executor::reference(), r, k, Qr.data(), ld);
    const std::string what = tag(e, "orthonormalize " + std::to_string(r) + " x " + std::to_string(k) +
                                        (s.deficient ? " (rank-deficient)" : ""));
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t d = 0; d < k; ++d) {
        double qq = 0, qa = 0;
        for (int64_t i = 0; i < r; ++i) qq += Q[c * ld + i] * Q[d * ld + i], qa += Q[c * ld + i] * A0[d * r + i];
        ASSERT_NEAR(qq, c == d ? 1.0 : 0.0, 1e-12) << what << " QᵀQ " << c << "," << d;
        if (c > d) {
          ASSERT_NEAR(qa, 0.0, 1e-12 * std::sqrt(double(r))) << what << " QᵀA lower " << c << "," << d;
        }
      }
      if (s.deficient) continue;
      for (int64_t i = 0; i < r; ++i) ASSERT_NEAR(Q[c * ld + i], Qr[c * ld + i], 1e-11) << what << " vs reference, column " << c;
    }
    for (int64_t c = 0; c < k; ++c)
      for (int64_t i = r; i < ld; ++i) ASSERT_TRUE(std::isnan(Q[c * ld + i])) << what << ": padding written";
  }
}

/// dense_gemm, every transpose combination, β = 0 (C NaN: never read) and β ≠ 0, against long
/// double and the reference.
inline void gemm_cases(const executor& e) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (double beta : {0.0, -0.75})
        for (int64_t m : {int64_t{1}, int64_t{17}})
          for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{33}}) {
            const int64_t n = 9, lda = (ta ? k : m) + 2, ldb = (tb ? n : k) + 1, ldc = m + 3;
            std::vector<double> A(static_cast<size_t>(lda * (ta ? m : k)), qnan), B(static_cast<size_t>(ldb * (tb ? k : n)), qnan);
            for (int64_t j = 0; j < (ta ? m : k); ++j)
              for (int64_t i = 0; i < (ta ? k : m); ++i) A[j * lda + i] = u(rng);
            for (int64_t j = 0; j < (tb ? k : n); ++j)
              for (int64_t i = 0; i < (tb ? n : k); ++i) B[j * ldb + i] = u(rng);
            std::vector<double> C0(static_cast<size_t>(ldc * n), qnan);
            for (int64_t j = 0; j < n; ++j)
              for (int64_t i = 0; i < m; ++i) C0[j * ldc + i] = beta != 0 ? u(rng) : qnan;
            auto C = C0, Cr = C0;
            const double alpha = 1.25;
            dense_gemm(e, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
            dense_gemm(executor::reference(), ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, Cr.data(), ldc);
            const std::string what = tag(e, std::string("dense_gemm ") + (ta ? "T" : "N") + (tb ? "T" : "N") + " m = " +
                                                std::to_string(m) + ", k = " + std::to_string(k) + ", beta = " +
                                                std::to_string(beta));
            for (int64_t j = 0; j < n; ++j)
              for (int64_t i = 0; i < m; ++i) {
                long double s = 0, size = 0;
                for (int64_t l = 0; l < k; ++l) {
                  const long double t = static_cast<long double>(ta ? A[i * lda + l] : A[l * lda + i]) *
                                        (tb ? B[l * ldb + j] : B[j * ldb + l]);
                  s += t, size += std::fabs(t);
                }
                const long double want = alpha * s + (beta != 0 ? beta * C0[j * ldc + i] : 0.0L);
                const double bound = 4.0 * static_cast<double>(k + 2) * 0x1p-53 *
                                     static_cast<double>(alpha * size + std::fabs(beta != 0 ? beta * C0[j * ldc + i] : 0.0));
                ASSERT_LE(std::fabs(C[j * ldc + i] - static_cast<double>(want)), bound) << what << " (" << i << "," << j << ")";
                ASSERT_LE(std::fabs(Cr[j * ldc + i] - static_cast<double>(want)), bound) << what << " reference";
              }
          }
}

inline void every_case(const executor& e) {
  shifted_cholesky_cases(e);
  cholesky_cases(e);
  if (::testing::Test::HasFatalFailure()) return;
  eigen_cases(e);
  if (::testing::Test::HasFatalFailure()) return;
  orthonormalize_cases(e);
  if (::testing::Test::HasFatalFailure()) return;
  gemm_cases(e);
}

}  // namespace pmx::dense_linalg_cases
