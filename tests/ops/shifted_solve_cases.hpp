// Test cases of shifted_solve shared by every backend's tests (test_shifted_solve.cpp: reference
// and cpu; test_cuda_shifted_solve.cpp: cuda): GRM-like matrices of known spectrum (A = Q Λ Qᵀ),
// stored with a leading dimension larger than n and NaN in the strict upper triangle (only the
// lower one may be read); several shifts of one operand, repeated shifts (cuda keeps the last
// factor), the a = 0 shift (b·I, closed form), products (a·A + b·I) X, and a shift that is not
// positive definite. Every backend, the reference included, is checked against the closed forms
// (residual and log det Σ log(a λ_i + b) in long double) and against the reference backend.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "test_support.hpp"

namespace pmx::shifted_solve_cases {

struct spd_case {
  int64_t n = 0, lda = 0, m = 0;
  std::vector<double> lambda, A, padded, B;  ///< A: n × n dense; padded: lda × n, NaN above the diagonal
};

/// λ_i = top · decay^i (GRM-like: decaying, positive), m right-hand sides.
inline spd_case make(int64_t n, int64_t m, double top, double decay, uint64_t seed) {
  spd_case c;
  c.n = n, c.lda = n + 3, c.m = m;
  for (int64_t i = 0; i < n; ++i) c.lambda.push_back(top * std::pow(decay, static_cast<double>(i)));
  c.A = test::matrix_with_spectrum(c.lambda, seed);
  c.padded.assign(static_cast<size_t>(c.lda * n), std::numeric_limits<double>::quiet_NaN());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j; i < n; ++i) c.padded[j * c.lda + i] = c.A[j * n + i];
  for (int64_t i = 0; i < n * m; ++i) c.B.push_back(std::sin(0.37 * static_cast<double>(i)) + 0.2);
  return c;
}

inline std::vector<spd_case> every_case() { return {make(1, 1, 3.0, 0.9, 1), make(7, 2, 3.0, 0.8, 2), make(80, 3, 3.0, 0.93, 21)}; }

/// The shifts (a, b) of the cases: REML's h², 1 − h² (with repeats), gBLUP's G + λI, and b·I.
inline const std::vector<std::pair<double, double>> shifts = {{0.05, 0.95}, {0.5, 0.5}, {0.5, 0.5}, {0.95, 0.05},
                                                              {1.0, 0.3},   {0.0, 2.0}, {0.05, 0.95}};

/// Solves and products of case `c` on `e`: within the closed forms, and within rounding of the
/// reference backend's results.
inline void expect_solves_and_products(const executor& e, const spd_case& c) {
  const int64_t n = c.n, m = c.m, ld = c.lda;
  const std::string tag = std::string(backend_name(e.kind())) + " n = " + std::to_string(n);
  const shifted_operand op(e, n, c.padded.data(), ld), ref(executor::reference(), n, c.padded.data(), ld);
  // Right-hand sides and solutions with leading dimension ld (padding NaN, left alone).
  auto padded_columns = [&](const std::vector<double>& x) {
    std::vector<double> p(static_cast<size_t>(ld * m), std::numeric_limits<double>::quiet_NaN());
    for (int64_t col = 0; col < m; ++col) std::copy_n(x.data() + col * n, n, p.data() + col * ld);
    return p;
  };
  auto compact = [&](const std::vector<double>& p) {
    std::vector<double> x(static_cast<size_t>(n * m));
    for (int64_t col = 0; col < m; ++col) std::copy_n(p.data() + col * ld, n, x.data() + col * n);
    return x;
  };
  for (const auto& [a, b] : shifts) {
    const std::string what = tag + " shift (" + std::to_string(a) + ", " + std::to_string(b) + ")";
    auto X = padded_columns(c.B), Xr = X;
    const double logdet = shifted_cholesky_solve(op, a, b, m, X.data(), ld);
    const double logdet_r = shifted_cholesky_solve(ref, a, b, m, Xr.data(), ld);
    EXPECT_LT(test::shifted_solve_error(c.A, c.lambda, a, b, c.B, compact(X), m, logdet), 1e-12) << what;
    EXPECT_NEAR(logdet, logdet_r, 1e-12 * (std::fabs(logdet_r) + 1)) << what;
    double xmax = 0;
    for (int64_t i = 0; i < ld * m; ++i)
      if (i % ld < n) xmax = std::max(xmax, std::fabs(Xr[i]));
    for (int64_t i = 0; i < ld * m; ++i) {
      if (i % ld >= n) {
        ASSERT_TRUE(std::isnan(X[i])) << what << ": padding of B written";
        continue;
      }
      ASSERT_NEAR(X[i], Xr[i], 1e-11 * xmax) << what << " X[" << i << "]";
    }
    // Products: Y = (a·A + b·I) X against the reference and against A written out in long double.
    std::vector<double> Y(static_cast<size_t>(ld * m), std::numeric_limits<double>::quiet_NaN()), Yr = Y;
    const auto P = padded_columns(c.B);
    shifted_multiply(op, a, b, m, P.data(), ld, Y.data(), ld);
    shifted_multiply(ref, a, b, m, P.data(), ld, Yr.data(), ld);
    for (int64_t col = 0; col < m; ++col)
      for (int64_t i = 0; i < n; ++i) {
        long double y = static_cast<long double>(b) * c.B[col * n + i], size = std::fabs(y);
        for (int64_t j = 0; j < n; ++j) {
          const long double t = static_cast<long double>(a) * c.A[i * n + j] * c.B[col * n + j];
          y += t, size += std::fabs(t);
        }
        const double bound = 4.0 * static_cast<double>(n + 2) * 0x1p-53 * static_cast<double>(size);
        ASSERT_LE(std::fabs(Y[col * ld + i] - static_cast<double>(y)), bound) << what << " Y(" << i << "," << col << ")";
        ASSERT_LE(std::fabs(Yr[col * ld + i] - static_cast<double>(y)), bound) << what << " reference Y";
      }
  }
  // Shifted below zero: not positive definite on every backend.
  auto X = padded_columns(c.B);
  EXPECT_THROW(shifted_cholesky_solve(op, 1.0, -4.0, m, X.data(), ld), numeric_error) << tag;
  EXPECT_THROW(shifted_cholesky_solve(op, 0.0, -1.0, m, X.data(), ld), numeric_error) << tag;
}

inline void every_case(const executor& e) {
  for (const spd_case& c : every_case()) {
    expect_solves_and_products(e, c);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace pmx::shifted_solve_cases
