// Test cases of lmm_search shared by every backend's tests (test_lmm_search.cpp: reference and
// cpu; test_cuda_lmm_search.cpp: cuda). Problems already in the eigenbasis of K: eigenvalues with
// exact zeros, fixed-effect columns (1 to 16 of them, so that the device's pair chunks and its
// host fall-back above 16 columns are met), y drawn with a genetic variance, and variants that are
// collinear with the covariates or not to be tested. Oracles, in long double, independent of the
// op's Gram-and-Schur-complement route:
//  - at a fixed λ, the Wald test is generalised least squares of y on [W | x] with covariance
//    λ diag(d) + I (normal equations solved by Cholesky), and the likelihood is GEMMA's REML
//    formula from the same dense pieces;
//  - a searched λ is a maximum of that dense likelihood: no better value 0.1 % to either side
//    (GEMMA stops Newton at 1e-5 relative, so only that neighbourhood is its promise).
#pragma once
#include <gtest/gtest.h>

#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "panoramix/ops/lmm_search.hpp"

namespace pmx::lmm_search_cases {

struct problem {
  int64_t n = 0;
  int c = 0;                // fixed-effect columns
  int64_t variants = 0;
  std::vector<double> d, Wy, Xt;  // Wy: n × (c + 1); Xt: n × variants, leading dimension n + 2
  std::vector<uint8_t> test;
  int64_t ldx() const { return n + 2; }
  const double* x(int64_t j) const { return Xt.data() + j * ldx(); }
};

inline problem make(int64_t n, int c, int64_t variants, uint64_t seed) {
  problem p;
  p.n = n, p.c = c, p.variants = variants;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  for (int64_t i = 0; i < n; ++i) p.d.push_back(i % 17 == 5 ? 0.0 : 3.0 * std::exp(-4.0 * double(i) / double(n)));
  p.Wy.resize(static_cast<size_t>(n * (c + 1)));
  for (int a = 0; a < c; ++a)
    for (int64_t i = 0; i < n; ++i) p.Wy[a * n + i] = a == 0 ? 1.0 + 0.1 * normal(rng) : normal(rng);
  for (int64_t i = 0; i < n; ++i)  // y ~ N(W·1, 0.8 d + 1): λ near 0.8
    p.Wy[c * n + i] = 0.5 * p.Wy[i] + std::sqrt(0.8 * p.d[i] + 1.0) * normal(rng);
  p.Xt.assign(static_cast<size_t>(p.ldx() * variants), std::numeric_limits<double>::quiet_NaN());
  p.test.assign(static_cast<size_t>(variants), 1);
  for (int64_t j = 0; j < variants; ++j) {
    double* x = p.Xt.data() + j * p.ldx();
    const double effect = j % 5 == 0 ? 0.4 : 0.0;  // every fifth variant correlated with y
    for (int64_t i = 0; i < n; ++i) x[i] = normal(rng);
    if (effect != 0)
      for (int64_t i = 0; i < n; ++i) x[i] = 0.7 * x[i] + effect * p.Wy[c * n + i];
  }
  if (variants > 2) {
    const int a = c > 1 ? 1 : 0;  // collinear with a covariate
    for (int64_t i = 0; i < n; ++i) p.Xt[1 * p.ldx() + i] = -2.0 * p.Wy[a * n + i];
    p.test[2] = 0;
  }
  return p;
}

inline std::vector<problem> every_case() {
  return {make(300, 1, 30, 1), make(257, 4, 30, 2), make(200, 13, 20, 3), make(150, 16, 12, 4)};
}

// ---- the dense oracle -------------------------------------------------------------------------
using real = long double;

struct gls {
  double beta = 0, se = 0, p = 0, logl = 0;
};

// Cholesky of the k × k matrix A (row-major) in place; log det.
inline real cholesky(std::vector<real>& A, int k) {
  real logdet = 0;
  for (int j = 0; j < k; ++j) {
    real s = A[j * k + j];
    for (int t = 0; t < j; ++t) s -= A[j * k + t] * A[j * k + t];
    A[j * k + j] = std::sqrt(s);
    logdet += 2 * std::log(A[j * k + j]);
    for (int i = j + 1; i < k; ++i) {
      real v = A[i * k + j];
      for (int t = 0; t < j; ++t) v -= A[i * k + t] * A[j * k + t];
      A[i * k + j] = v / A[j * k + j];
    }
  }
  return logdet;
}

inline std::vector<real> solve(const std::vector<real>& L, int k, std::vector<real> b) {
  for (int i = 0; i < k; ++i) {
    for (int t = 0; t < i; ++t) b[i] -= L[i * k + t] * b[t];
    b[i] /= L[i * k + i];
  }
  for (int i = k - 1; i >= 0; --i) {
    for (int t = i + 1; t < k; ++t) b[i] -= L[t * k + i] * b[t];
    b[i] /= L[i * k + i];
  }
  return b;
}

/// GLS of y on [W | x] at λ, and GEMMA's restricted log-likelihood there.
inline gls dense_fit(const problem& p, const double* x, double lambda) {
  const int64_t n = p.n;
  const int k = p.c + 1;
  auto col = [&](int a, int64_t i) -> real { return a < p.c ? p.Wy[a * n + i] : x[i]; };
  std::vector<real> XtHX(static_cast<size_t>(k * k), 0), XtX(static_cast<size_t>(k * k), 0), XtHy(k, 0);
  real logdet_h = 0;
  for (int64_t i = 0; i < n; ++i) {
    const real h = 1 / (real(lambda) * p.d[i] + 1);
    logdet_h += std::log(real(lambda) * p.d[i] + 1);
    const real y = p.Wy[p.c * n + i];
    for (int a = 0; a < k; ++a) {
      XtHy[a] += h * col(a, i) * y;
      for (int b = 0; b < k; ++b) XtHX[a * k + b] += h * col(a, i) * col(b, i), XtX[a * k + b] += col(a, i) * col(b, i);
    }
  }
  std::vector<real> L = XtHX;
  const real logdet_xhx = cholesky(L, k), logdet_xx = cholesky(XtX, k);
  const std::vector<real> coef = solve(L, k, XtHy);
  real yPy = 0;
  for (int64_t i = 0; i < n; ++i) {
    real r = p.Wy[p.c * n + i];
    for (int a = 0; a < k; ++a) r -= coef[a] * col(a, i);
    yPy += r * r / (real(lambda) * p.d[i] + 1);
  }
  std::vector<real> e(k, 0);
  e[k - 1] = 1;
  const real var_x = solve(L, k, e)[k - 1];  // [(XᵀH⁻¹X)⁻¹]_xx
  const real df = real(n) - k;
  gls g;
  g.beta = double(coef[k - 1]);
  g.se = double(std::sqrt(yPy / df * var_x));
  const double F = double(coef[k - 1] * coef[k - 1] / (yPy / df * var_x));
  g.p = boost::math::cdf(boost::math::complement(boost::math::fisher_f(1.0, double(df)), F));
  const real pi = 3.141592653589793238462643383279502884L;
  g.logl = double(0.5L * df * (std::log(df) - std::log(2 * pi) - 1) - 0.5L * logdet_h - 0.5L * (logdet_xhx - logdet_xx) -
                  0.5L * df * std::log(yPy));
  return g;
}

inline std::string where(const problem& p, int64_t j) {
  return "n = " + std::to_string(p.n) + ", c = " + std::to_string(p.c) + ", variant " + std::to_string(j);
}

/// Every variant of `p` fitted on `e` (Xt from `x`, host or device memory): searched λ (a maximum
/// of the dense likelihood, its log-likelihood and Wald test equal to the dense ones at that λ)
/// and a fixed λ (the dense GLS). Returns the searched fits for comparisons across backends.
inline std::vector<lmm_variant_fit> expect_fits(const executor& e, const problem& p, const double* x) {
  const lmm_search_operand model(e, p.n, p.c, p.d.data(), p.Wy.data());
  std::vector<lmm_variant_fit> searched(static_cast<size_t>(p.variants)), fixed(searched.size());
  lmm_fit_variants(model, p.variants, x, p.ldx(), p.test.data(), std::numeric_limits<double>::quiet_NaN(),
                   searched.data());
  lmm_fit_variants(model, p.variants, x, p.ldx(), p.test.data(), 0.8, fixed.data());
  const std::string tag = std::string(backend_name(e.kind())) + ": ";
  int tested = 0;
  for (int64_t j = 0; j < p.variants; ++j) {
    const lmm_variant_fit &s = searched[j], &f = fixed[j];
    if (j == 1 && p.variants > 2) {
      EXPECT_EQ(s.status, lmm_fit_status::collinear_with_covariates) << tag << where(p, j);
      EXPECT_EQ(f.status, lmm_fit_status::collinear_with_covariates) << tag << where(p, j);
      continue;
    }
    if (j == 2 && p.variants > 2) {
      EXPECT_EQ(s.status, lmm_fit_status::not_tested) << tag << where(p, j);
      EXPECT_TRUE(std::isnan(s.beta)) << tag << where(p, j);
      continue;
    }
    EXPECT_EQ(f.status, lmm_fit_status::tested) << tag << where(p, j);
    if (f.status != lmm_fit_status::tested) continue;
    const gls at_fixed = dense_fit(p, p.x(j), 0.8);
    EXPECT_NEAR(f.beta, at_fixed.beta, 1e-10 * (std::fabs(at_fixed.beta) + at_fixed.se)) << tag << where(p, j);
    EXPECT_NEAR(f.se, at_fixed.se, 1e-10 * at_fixed.se) << tag << where(p, j);
    EXPECT_NEAR(f.p, at_fixed.p, 1e-9 * at_fixed.p) << tag << where(p, j);
    EXPECT_NEAR(f.logl, at_fixed.logl, 1e-10 * std::fabs(at_fixed.logl)) << tag << where(p, j);
    EXPECT_EQ(f.lambda, 0.8);
    if (s.status == lmm_fit_status::lambda_not_found) continue;
    EXPECT_EQ(s.status, lmm_fit_status::tested) << tag << where(p, j);
    if (s.status != lmm_fit_status::tested) continue;
    ++tested;
    const gls at = dense_fit(p, p.x(j), s.lambda);
    EXPECT_NEAR(s.beta, at.beta, 1e-10 * (std::fabs(at.beta) + at.se)) << tag << where(p, j);
    EXPECT_NEAR(s.se, at.se, 1e-10 * at.se) << tag << where(p, j);
    EXPECT_NEAR(s.p, at.p, 1e-9 * at.p) << tag << where(p, j);
    EXPECT_NEAR(s.logl, at.logl, 1e-10 * std::fabs(at.logl)) << tag << where(p, j);
    for (double step : {0.999, 1.001}) {
      const double l = s.lambda * step;
      if (l <= 1e-5 || l >= 1e5) continue;
      EXPECT_LE(dense_fit(p, p.x(j), l).logl, at.logl + 1e-12 * std::fabs(at.logl)) << tag << where(p, j);
    }
  }
  EXPECT_GT(tested, p.variants / 2) << tag << "most variants have a λ";
  return searched;
}

}  // namespace pmx::lmm_search_cases
