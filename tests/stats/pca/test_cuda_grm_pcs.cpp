// CUDA against cpu for the GRM-in-memory path of `gblup --pcs`: shifted_multiply on the resident
// operand (lower triangle uploaded in pinned pieces, mirrored on the device) against host dsymm,
// with padding and garbage in the upper triangle; solves after products on the same operand;
// grm_top_eigenpairs on cuda against cpu (known spectrum, mice GRM).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "panoramix/grm.hpp"
#include "panoramix/grm_pcs.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

double abs_cos(const double* x, const double* y, int64_t n) {
  long double xy = 0, xx = 0, yy = 0;
  for (int64_t i = 0; i < n; ++i)
    xy += (long double)x[i] * y[i], xx += (long double)x[i] * x[i], yy += (long double)y[i] * y[i];
  return static_cast<double>(std::fabs(xy) / std::sqrt(xx * yy));
}

// Symmetric lower triangle in a column-major n × n array with leading dimension lda; the upper
// triangle and the padding hold garbage the op must not read.
std::vector<double> lower_with_garbage(int64_t n, int64_t lda, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::vector<double> A(static_cast<size_t>(lda * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < lda; ++i) A[j * lda + i] = i >= j && i < n ? z(rng) : 1e30;
  for (int64_t j = 0; j < n; ++j) A[j * lda + j] += n;  // positive definite for the solve below
  return A;
}

TEST(CudaShiftedMultiply, MatchesCpuOverSizes) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda), cpu(backend::cpu, 2);
  for (const int64_t n : {1, 3, 31, 32, 33, 129, 1000, 5003}) {
    const int64_t lda = n + 3, m = n > 1000 ? 5 : 3;
    const std::vector<double> A = lower_with_garbage(n, lda, 10 + n);
    std::mt19937_64 rng(n);
    std::normal_distribution<double> z;
    std::vector<double> X(static_cast<size_t>(lda * m));
    for (double& x : X) x = z(rng);
    std::vector<double> Yc(X.size(), -1.0), Yg(X.size(), -1.0);
    const shifted_operand oc(cpu, n, A.data(), lda), og(gpu, n, A.data(), lda);
    shifted_multiply(oc, 0.8, 0.25, m, X.data(), lda, Yc.data(), lda);
    shifted_multiply(og, 0.8, 0.25, m, X.data(), lda, Yg.data(), lda);
    double worst = 0, scale = 0;
    for (int64_t c = 0; c < m; ++c)
      for (int64_t i = 0; i < n; ++i) {
        worst = std::max(worst, std::fabs(Yc[c * lda + i] - Yg[c * lda + i]));
        scale = std::max(scale, std::fabs(Yc[c * lda + i]));
      }
    EXPECT_LE(worst, 1e-13 * scale) << "n = " << n;
    for (int64_t c = 0; c < m; ++c)
      for (int64_t i = n; i < lda; ++i) EXPECT_EQ(Yg[c * lda + i], -1.0) << "padding written, n = " << n;
    // The resident copy still factorises (the mirror did not touch what Xpotrf reads).
    if (n <= 1000) {
      std::vector<double> Bc(X), Bg(X);
      const double lc = shifted_cholesky_solve(oc, 0.8, 0.25, m, Bc.data(), lda);
      const double lg = shifted_cholesky_solve(og, 0.8, 0.25, m, Bg.data(), lda);
      EXPECT_NEAR(lg, lc, 1e-10 * std::fabs(lc)) << n;
      double w2 = 0, s2 = 0;
      for (int64_t c = 0; c < m; ++c)
        for (int64_t i = 0; i < n; ++i)
          w2 = std::max(w2, std::fabs(Bc[c * lda + i] - Bg[c * lda + i])), s2 = std::max(s2, std::fabs(Bc[c * lda + i]));
      EXPECT_LE(w2, 1e-11 * s2) << n;
    }
  }
}

TEST(CudaGrmPcs, KnownSpectrumMatchesCpu) {
  PMX_REQUIRE_GPU();
  const int64_t n = 400;
  std::vector<double> lambda(n);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u01(0, 1);
  for (int64_t i = 0; i < n; ++i) lambda[i] = i < 10 ? 20.0 - 1.5 * i : u01(rng);
  const std::vector<double> G = test::matrix_with_spectrum(lambda, 21);
  grm_pcs_options o;
  o.tolerance = 1e-11;
  const grm_pcs_result c = grm_top_eigenpairs(shifted_operand(executor(backend::cpu, 2), n, G.data(), n), o, nullptr);
  const grm_pcs_result g = grm_top_eigenpairs(shifted_operand(executor(backend::cuda), n, G.data(), n), o, nullptr);
  ASSERT_TRUE(g.converged);
  for (int k = 0; k < 10; ++k) {
    EXPECT_NEAR(g.values[k], 20.0 - 1.5 * k, 1e-11 * 20) << k;
    EXPECT_NEAR(g.values[k], c.values[k], 1e-12 * 20) << k;
    EXPECT_GE(abs_cos(g.vectors.data() + k * n, c.vectors.data() + k * n, n), 1 - 1e-12) << k;
  }
}

// A VanRaden-style G = Z Zᵀ / k of simulated dosages from 3 subpopulations (2 separated
// eigenvalues, then a Marchenko–Pastur bulk: the PCs 3–10 of the pipeline).
TEST(CudaGrmPcs, SimulatedStructuredMatchesCpu) {
  PMX_REQUIRE_GPU();
  const int64_t n = 700, k = 3000;
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u01(0.05, 0.95);
  std::vector<double> Z(static_cast<size_t>(n * k));
  for (int64_t l = 0; l < k; ++l) {
    const double base = u01(rng);
    double p[3];
    for (double& q : p) q = std::clamp(base + 0.1 * (u01(rng) - 0.5), 0.01, 0.99);
    double mean = 0;
    for (int64_t i = 0; i < n; ++i) {
      std::binomial_distribution<int> b(2, p[3 * i / n]);
      mean += Z[i * k + l] = b(rng);
    }
    mean /= n;
    for (int64_t i = 0; i < n; ++i) Z[i * k + l] -= mean;
  }
  std::vector<double> G(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += Z[i * k + l] * Z[j * k + l];
      G[i * n + j] = G[j * n + i] = s / k;
    }
  grm_pcs_options o;
  o.tolerance = 1e-9;
  o.max_iterations = 2000;
  const grm_pcs_result c = grm_top_eigenpairs(shifted_operand(executor(backend::cpu, 2), n, G.data(), n), o, nullptr);
  const grm_pcs_result g = grm_top_eigenpairs(shifted_operand(executor(backend::cuda), n, G.data(), n), o, nullptr);
  ASSERT_TRUE(g.converged && c.converged);
  std::printf("simulated: cpu %d steps, cuda %d steps; lambda_1..3 = %.6f %.6f %.6f, lambda_10 = %.6f\n", c.iterations,
              g.iterations, c.values[0], c.values[1], c.values[2], c.values[9]);
  for (int q = 0; q < 10; ++q) {
    EXPECT_NEAR(g.values[q], c.values[q], 1e-12 * c.values[0]) << q;
    const double gap = std::min(q ? c.values[q - 1] - c.values[q] : INFINITY, q < 9 ? c.values[q] - c.values[q + 1] : INFINITY);
    if (gap > 1e-3 * c.values[0]) {
      EXPECT_GE(abs_cos(g.vectors.data() + q * n, c.vectors.data() + q * n, n), 1 - 1e-8) << q;
    }
  }
}

TEST(CudaGrmPcs, MiceVanRadenMatchesCpu) {
  PMX_REQUIRE_GPU();
  const std::string prefix = test::shared_data("bglr_mice/mice");
  if (prefix.empty()) GTEST_SKIP() << "bglr_mice not found under ../shared/data";
  plink_fileset data(prefix);
  const chromosome_set chroms = chromosome_set::human();
  data.filter_variants([&](const variant_record& v) { return chroms.diploid(v.chrom); });
  grm_options go;
  go.method = grm_method::vanraden;
  go.pair_counts = false;
  const grm_result r = compute_grm(executor(backend::cpu, 2), data, go, nullptr);
  const int64_t n = r.n;
  grm_pcs_options o;
  o.tolerance = 1e-10;
  const grm_pcs_result c = grm_top_eigenpairs(shifted_operand(executor(backend::cpu, 2), n, r.G.data(), n), o, nullptr);
  const grm_pcs_result g = grm_top_eigenpairs(shifted_operand(executor(backend::cuda), n, r.G.data(), n), o, nullptr);
  ASSERT_TRUE(g.converged && c.converged);
  for (int k = 0; k < 10; ++k) {
    EXPECT_NEAR(g.values[k], c.values[k], 1e-12 * c.values[0]) << k;
    const double gap = std::min(k ? c.values[k - 1] - c.values[k] : INFINITY, k < 9 ? c.values[k] - c.values[k + 1] : INFINITY);
    if (gap > 1e-4 * c.values[0]) {
      EXPECT_GE(abs_cos(g.vectors.data() + k * n, c.vectors.data() + k * n, n), 1 - 1e-10) << k;
    }
  }
}

}  // namespace
}  // namespace pmx
