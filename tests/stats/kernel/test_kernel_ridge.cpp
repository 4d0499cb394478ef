// solve_kernel_ridge against a long-double Gaussian elimination of (K + αI) W = Y: fp64; fp32 and
// adaptive with classical refinement; a factor too inaccurate for classical refinement (it must
// fall back to fp64, saying why) that GMRES-IR still refines to the asked backward error;
// prediction accuracy against its closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/kernel_ridge.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

struct system {
  int64_t n, t;
  double alpha;
  std::vector<double> K, Y;
  std::vector<long double> W;  // the oracle's solution
  double kappa;
};

// K = Q diag(λ) Qᵀ with λ from kmax down to kmax / spread (K itself positive definite), Y smooth.
system make_system(int64_t n, int64_t t, double kmax, double spread, double alpha, uint64_t seed) {
  system s{n, t, alpha, {}, {}, {}, 0};
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = kmax * std::pow(spread, -double(i) / double(n - 1));
  s.K = matrix_with_spectrum(lambda, seed);
  s.kappa = (kmax + alpha) / (kmax / spread + alpha);
  s.Y.resize(n * t);
  for (int64_t i = 0; i < n * t; ++i) s.Y[i] = std::sin(0.37 * double(i)) + 0.5;
  std::vector<long double> M(n * n);
  for (int64_t i = 0; i < n * n; ++i) M[i] = s.K[i] + (i / n == i % n ? alpha : 0.0);
  std::vector<long double> B(n * t);  // ld_solve: row-major n × t
  for (int64_t c = 0; c < t; ++c)
    for (int64_t i = 0; i < n; ++i) B[i * t + c] = s.Y[c * n + i];
  ld_solve(M, B, n, t);
  s.W.resize(n * t);
  for (int64_t c = 0; c < t; ++c)
    for (int64_t i = 0; i < n; ++i) s.W[c * n + i] = B[i * t + c];
  return s;
}

double error(const system& s, const matrix_buffer<double>& W) {
  long double num = 0, den = 0;
  for (int64_t i = 0; i < s.n * s.t; ++i) num += (W[i] - s.W[i]) * (W[i] - s.W[i]), den += s.W[i] * s.W[i];
  return double(sqrtl(num / den));
}

const executor cpu(backend::cpu, 2);

TEST(KernelRidge, Fp64EqualsLongDoubleSolve) {
  const system s = make_system(150, 3, 10, 1e3, 0.5, 1);
  const kernel_ridge_solution r = solve_kernel_ridge(cpu, s.n, s.K.data(), s.alpha, s.t, s.Y.data(), {});
  EXPECT_EQ(r.used, solve_precision::fp64);
  EXPECT_LT(error(s, r.W), s.kappa * 1e-14);
  EXPECT_LT(r.backward_error, 1e-15);
}

TEST(KernelRidge, RefinedLowPrecisionReachesTheAccuracy) {
  const system s = make_system(160, 2, 10, 1e2, 0.1, 2);
  for (const solve_precision p : {solve_precision::fp32, solve_precision::adaptive})
    for (const executor& exec : {executor::reference(), cpu}) {
      kernel_ridge_options o;
      o.precision = p, o.tile = 32, o.accuracy = 1e-12, o.tile_accuracy = 1e-3, o.refinement = refinement_method::classical;
      const kernel_ridge_solution r = solve_kernel_ridge(exec, s.n, s.K.data(), s.alpha, s.t, s.Y.data(), o);
      EXPECT_TRUE(r.fallback.empty()) << r.fallback;
      EXPECT_EQ(r.used, p);
      EXPECT_GT(r.refinements, 0);
      EXPECT_LE(r.backward_error, 1e-12);
      EXPECT_LT(error(s, r.W), 4 * s.kappa * 1e-12) << solve_precision_name(p);
      if (p == solve_precision::adaptive) {
        EXPECT_GT(r.map.count(tile_precision::fp16) + r.map.count(tile_precision::bf16) + r.map.count(tile_precision::fp8), 0);
      }
    }
}

// κ(A)·ε of an all-BF16/FP8 factor is far above 1: classical refinement diverges or stagnates (and
// must fall back to fp64, saying so); GMRES-IR converges to the accuracy with the same factor.
TEST(KernelRidge, GmresRefinesWhereClassicalCannot) {
  const system s = make_system(192, 3, 100, 1e3, 0.1, 3);
  kernel_ridge_options o;
  o.precision = solve_precision::adaptive, o.tile = 32, o.accuracy = 1e-11, o.tile_accuracy = 0.05;
  o.refinement = refinement_method::classical;
  const kernel_ridge_solution classical = solve_kernel_ridge(cpu, s.n, s.K.data(), s.alpha, s.t, s.Y.data(), o);
  EXPECT_EQ(classical.used, solve_precision::fp64);
  EXPECT_NE(classical.fallback.find("stagnated"), std::string::npos) << classical.fallback;
  EXPECT_LT(error(s, classical.W), s.kappa * 1e-14);  // the fallback's answer is the fp64 one
  for (const refinement_method m : {refinement_method::automatic, refinement_method::gmres}) {
    o.refinement = m;
    const kernel_ridge_solution r = solve_kernel_ridge(cpu, s.n, s.K.data(), s.alpha, s.t, s.Y.data(), o);
    EXPECT_TRUE(r.fallback.empty()) << refinement_name(m) << ": " << r.fallback;
    EXPECT_EQ(r.used, solve_precision::adaptive);
    EXPECT_GT(r.gmres_steps, 0);
    EXPECT_LE(r.backward_error, 1e-11);
    EXPECT_LT(error(s, r.W), 4 * s.kappa * 1e-11) << refinement_name(m);
  }
}

TEST(KernelRidge, NotPositiveDefiniteIsNamed) {
  std::vector<double> lambda(40, 1.0);
  lambda[39] = -2;
  const std::vector<double> K = matrix_with_spectrum(lambda, 4);
  const std::vector<double> Y(40, 1.0);
  for (const solve_precision p : {solve_precision::fp64, solve_precision::fp32}) {
    kernel_ridge_options o;
    o.precision = p, o.tile = 16;
    try {
      solve_kernel_ridge(cpu, 40, K.data(), 0.5, 1, Y.data(), o);
      FAIL() << "an indefinite K + alpha I was solved";
    } catch (const numeric_error& e) {
      EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
    }
  }
}

TEST(KernelRidge, PredictionAccuracyClosedForm) {
  const std::vector<double> y = {1, 2, NAN, 4, 5, 7}, p = {1.5, 1.5, 9, 3, 6, NAN};
  const prediction_accuracy a = measure_prediction(y, p);
  EXPECT_EQ(a.n, 4);
  EXPECT_DOUBLE_EQ(a.mspe, (0.25 + 0.25 + 1 + 1) / 4);
  // Pearson of (1,2,4,5) with (1.5,1.5,3,6): means 3 and 3; sums of products 7.5, 10, 13.5
  EXPECT_NEAR(a.pearson, 10.5 / std::sqrt(10.0 * 13.5), 1e-15);
}

}  // namespace
}  // namespace pmx
