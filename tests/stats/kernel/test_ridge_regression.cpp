// Ridge regression's normal equations (ridge_regression.hpp) against a long-double evaluation of
// the definitions on the decoded dosages: X = [Z | C] over a subset of the samples (the fitted
// ones), Z the dosages centred by 2p with missing calls at 0, p over every sample; XᵀX, XᵀY and
// the predictions X_new β of other samples, on every cpu-side backend, with and without missing
// calls (an all-missing and a monomorphic variant included), over two tiles of variants (one
// with and one without missing calls when the rate is 0).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "panoramix/ridge_regression.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

std::vector<double> frequencies(const packed_genotypes& g) {
  std::vector<double> p(g.n_variants());
  for (int64_t l = 0; l < g.n_variants(); ++l) {
    int64_t sum = 0, called = 0;
    for (int64_t i = 0; i < g.n_samples(); ++i)
      if (const int d = dosage(g, i, l); d >= 0) sum += d, ++called;
    p[l] = called ? double(sum) / double(2 * called) : 0.5;
  }
  return p;
}

// Row i of X (long double): the centred dosages of sample `s` of g, then its covariates.
std::vector<long double> x_row(const packed_genotypes& g, int64_t s, const std::vector<double>& p,
                               const double* cov, int64_t nc) {
  std::vector<long double> x;
  for (int64_t l = 0; l < g.n_variants(); ++l) {
    const int d = dosage(g, s, l);
    x.push_back(d >= 0 ? (long double)d - 2.0L * (long double)p[l] : 0.0L);
  }
  for (int64_t k = 0; k < nc; ++k) x.push_back(cov[k]);
  return x;
}

void check_normal_equations(const executor& exec, int64_t m, int64_t n_all, double missing) {
  const int64_t nc = 3, t = 2;
  const packed_genotypes g = random_genotypes(n_all, m, missing, 11, true);
  const std::vector<double> p = frequencies(g);
  std::vector<int64_t> samples;
  for (int64_t i = 0; i < n_all; ++i)
    if (i % 7 != 3) samples.push_back(i);
  const int64_t n = static_cast<int64_t>(samples.size()), dim = m + nc;
  std::vector<double> C(n * nc), Y(n * t);
  for (int64_t k = 0; k < n * nc; ++k) C[k] = std::sin(0.37 * double(k) + 0.1) * 1.5;
  for (int64_t k = 0; k < n * t; ++k) Y[k] = std::cos(0.91 * double(k)) * 2 - 0.3;

  const memory_genotypes data(g.view());
  const ridge_normal_equations r =
      compute_ridge_normal_equations(exec, data, p, samples, C.data(), nc, Y.data(), t, nullptr);
  ASSERT_EQ(r.m, m);
  ASSERT_EQ(r.c, nc);
  ASSERT_EQ(static_cast<int64_t>(r.XtX.size()), dim * dim);

  std::vector<std::vector<long double>> X;
  for (int64_t i = 0; i < n; ++i) X.push_back(x_row(g, samples[i], p, C.data() + i * nc, nc));
  std::vector<long double> want(dim * dim), wanty(dim * t);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t a = 0; a < dim; ++a) {
      const long double xa = X[i][a];
      if (xa == 0) continue;
      for (int64_t b = 0; b <= a; ++b) want[a * dim + b] += xa * X[i][b];
      for (int64_t j = 0; j < t; ++j) wanty[a + j * dim] += xa * (long double)Y[j * n + i];
    }
  for (int64_t a = 0; a < dim; ++a)
    for (int64_t b = 0; b < a; ++b) want[b * dim + a] = want[a * dim + b];
  // The long-double sums round each term to 2^-64: entries that cancel to ~1e-17 (centred
  // variants nearly uncorrelated over the samples, an exact 0 with rational p) are below that
  // resolution. For m <= 400 the SNP × SNP block is re-evaluated in binary128 (__float128: the
  // products of the 54-bit centred values are exact, the sums round to 2^-113), so every entry is
  // checked to 1e-13 of itself; above, the long-double value is used with its own rounding bound
  // 2^-60 Σ|terms| added to the tolerance.
  std::vector<long double> abs_terms(m * m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t a = 0; a < m; ++a)
      if (X[i][a] != 0)
        for (int64_t b = 0; b <= a; ++b) abs_terms[a * m + b] += fabsl(X[i][a] * X[i][b]);
  for (int64_t a = 0; a < m; ++a)
    for (int64_t b = 0; b < a; ++b) abs_terms[b * m + a] = abs_terms[a * m + b];
  auto oracle_error = [&](int64_t a, int64_t b) -> long double {
    return m <= 400 ? 0.0L : ldexpl(abs_terms[a * m + b], -60);
  };
  if (m <= 400) {
    std::vector<__float128> q(m * m, 0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t a = 0; a < m; ++a) {
        const int da = dosage(g, samples[i], a);
        if (da < 0) continue;
        const __float128 xa = (__float128)da - 2 * (__float128)p[a];
        for (int64_t b = 0; b <= a; ++b) {
          const int db = dosage(g, samples[i], b);
          if (db >= 0) q[a * m + b] += xa * ((__float128)db - 2 * (__float128)p[b]);
        }
      }
    for (int64_t a = 0; a < m; ++a)
      for (int64_t b = 0; b <= a; ++b) want[a * dim + b] = want[b * dim + a] = (long double)q[a * m + b];
  }
  long double yy[2] = {0, 0};
  for (int64_t j = 0; j < t; ++j)
    for (int64_t i = 0; i < n; ++i) yy[j] += (long double)Y[j * n + i] * Y[j * n + i];

  // SNP × SNP: every entry to 1e-13 of itself (exact zeros stay exact). Blocks from the gemm op and
  // double sums (covariates, XᵀY): to 1e-13 of the entry's Cauchy–Schwarz scale √(A_aa A_bb), the
  // normwise measure a dgemm-accurate product meets.
  double worst_snp = 0, worst_rest = 0, worst_y = 0;
  for (int64_t a = 0; a < dim; ++a)
    for (int64_t b = 0; b < dim; ++b) {
      const long double w = want[a * dim + b], got = r.XtX[a * dim + b];
      ASSERT_EQ(r.XtX[a * dim + b], r.XtX[b * dim + a]) << a << " " << b;  // symmetric to the bit
      if (a < m && b < m) {
        if (w == 0) ASSERT_EQ(got, 0.0L) << a << " " << b;
        else worst_snp = std::max(worst_snp, double((fabsl(got - w) - oracle_error(a, b)) / fabsl(w)));
      } else {
        const long double scale = sqrtl(want[a * dim + a] * want[b * dim + b]);
        if (scale > 0) worst_rest = std::max(worst_rest, double(fabsl(got - w) / scale));
        else ASSERT_EQ(got, 0.0L);
      }
    }
  for (int64_t a = 0; a < dim; ++a)
    for (int64_t j = 0; j < t; ++j) {
      const long double scale = sqrtl(want[a * dim + a] * yy[j]), w = wanty[a + j * dim];
      const double got = r.XtY[a + j * dim];
      if (scale > 0) worst_y = std::max(worst_y, double(fabsl(got - w) / scale));
      else ASSERT_EQ(got, 0.0);
    }
  EXPECT_LE(worst_snp, 1e-13) << "m " << m << " missing " << missing;
  if (std::getenv("PMX_TEST_VERBOSE"))
    std::printf("m %ld missing %g: SNPxSNP %.2e, covariate blocks %.2e, X'Y %.2e\n", long(m), missing, worst_snp,
                worst_rest, worst_y);
  EXPECT_LE(worst_rest, 1e-13) << "m " << m << " missing " << missing;
  EXPECT_LE(worst_y, 1e-13) << "m " << m << " missing " << missing;
  // The data must exercise what is claimed: non-trivial values, the zero rows of the all-missing
  // and monomorphic variants.
  EXPECT_GT(want[5 * dim + 5], 1.0L);
  EXPECT_EQ(r.XtX[0], 0.0);
  EXPECT_EQ(r.XtX[1 * dim + 1], 0.0);

  // Predictions for other samples (a second genotype set over the same variants) with β random,
  // centred by the same (training) p; a NaN covariate gives NaN predictions.
  const int64_t n2 = 17;
  const packed_genotypes g2 = random_genotypes(n2, m, missing, 12, false);
  std::vector<double> C2(n2 * nc), beta(dim * t), pred(n2 * t);
  for (int64_t k = 0; k < n2 * nc; ++k) C2[k] = std::cos(0.13 * double(k));
  C2[5 * nc + 1] = std::nan("");
  for (int64_t k = 0; k < dim * t; ++k) beta[k] = std::sin(1.7 * double(k) + 0.5) * 0.1;
  ridge_predict(exec, memory_genotypes(g2.view()), p, C2.data(), nc, beta.data(), dim, t, pred.data(), n2, nullptr);
  double worst_pred = 0;
  for (int64_t i = 0; i < n2; ++i) {
    const std::vector<long double> x = x_row(g2, i, p, C2.data() + i * nc, nc);
    for (int64_t j = 0; j < t; ++j) {
      if (i == 5) {
        EXPECT_TRUE(std::isnan(pred[j * n2 + i]));
        continue;
      }
      long double s = 0, xx = 0, bb = 0;
      for (int64_t a = 0; a < dim; ++a)
        s += x[a] * (long double)beta[j * dim + a], xx += x[a] * x[a], bb += (long double)beta[j * dim + a] * beta[j * dim + a];
      worst_pred = std::max(worst_pred, double(fabsl(pred[j * n2 + i] - s) / sqrtl(xx * bb)));
    }
  }
  EXPECT_LE(worst_pred, 1e-13) << "m " << m << " missing " << missing;
}

TEST(RidgeRegression, NormalEquationsEqualLongDoubleDefinition) {
  for (const executor& exec : {executor::reference(), executor(backend::cpu, 2)})
    for (double missing : {0.0, 0.07}) check_normal_equations(exec, 333, 90, missing);
}

// 2,100 variants: two tiles of the SNP × SNP product (the second without missing calls at rate 0).
TEST(RidgeRegression, NormalEquationsOverTwoTiles) {
  for (const executor& exec : {executor::reference(), executor(backend::cpu, 2)})
    for (double missing : {0.0, 0.05}) check_normal_equations(exec, 2100, 40, missing);
}

TEST(RidgeRegression, BadArgumentsAreRefused) {
  const packed_genotypes g = random_genotypes(10, 4, 0.0, 1, false);
  const memory_genotypes data(g.view());
  const std::vector<double> p(4, 0.3), bad_p = {0.3, 0.3, 1.5, 0.3};
  const std::vector<int64_t> unsorted = {3, 1}, ok = {1, 3};
  std::vector<double> y(2, 1.0);
  const executor exec(backend::cpu, 1);
  EXPECT_THROW(compute_ridge_normal_equations(exec, data, p, unsorted, nullptr, 0, y.data(), 1, nullptr), logic_error);
  EXPECT_THROW(compute_ridge_normal_equations(exec, data, bad_p, ok, nullptr, 0, y.data(), 1, nullptr), logic_error);
  EXPECT_THROW(compute_ridge_normal_equations(exec, data, std::vector<double>(3, 0.3), ok, nullptr, 0, y.data(), 1, nullptr),
               logic_error);
}

}  // namespace
}  // namespace pmx
