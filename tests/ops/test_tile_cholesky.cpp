// tile_cholesky: the rounding to each tile precision against independent oracles (the compiler's
// IEEE half conversion; a brute-force nearest value among every E4M3 / BF16 neighbour), the
// precision rule against hand-computed tile norms, and the factor against a long-double solve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/ops/tile_cholesky.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

// Every finite E4M3 value, decoded from its 8 bits (bias 7; exponent field 0 = subnormal; the
// pattern S.1111.111 is NaN).
std::vector<double> e4m3_values() {
  std::vector<double> v;
  for (int bits = 0; bits < 256; ++bits) {
    const int sign = bits >> 7, e = (bits >> 3) & 15, f = bits & 7;
    if (e == 15 && f == 7) continue;
    const double mag = e == 0 ? std::ldexp(f / 8.0, -6) : std::ldexp(1 + f / 8.0, e - 7);
    v.push_back(sign ? -mag : mag);
  }
  return v;
}

// Nearest of `values` to x, ties to the one with an even last mantissa bit (index parity of the
// sorted positive magnitudes); x beyond the largest saturates.
double nearest(const std::vector<double>& sorted, double x) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), x);
  if (it == sorted.end()) return sorted.back();
  if (it == sorted.begin()) return *it;
  const double hi = *it, lo = *(it - 1);
  if (x - lo < hi - x) return lo;
  if (hi - x < x - lo) return hi;
  // tie: the even one (mantissa bit 0): its index among magnitudes is even
  auto mag_index = [&](double v) {
    std::vector<double> pos;
    for (double s : sorted)
      if (s >= 0) pos.push_back(s);
    return std::lower_bound(pos.begin(), pos.end(), std::fabs(v)) - pos.begin();
  };
  return mag_index(lo) % 2 == 0 ? lo : hi;
}

TEST(TileCholesky, Fp16RoundingIsIeeeHalf) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> expo(-26, 16);
  for (int k = 0; k < 200000; ++k) {
    const float x = std::ldexp(mant(rng), expo(rng)) * (k % 2 ? -1.0f : 1.0f);
    const float want = static_cast<float>(static_cast<_Float16>(x));
    ASSERT_EQ(round_to_precision(x, tile_precision::fp16), want) << x;
  }
  EXPECT_EQ(round_to_precision(65519.0f, tile_precision::fp16), 65504.0f);
  EXPECT_TRUE(std::isinf(round_to_precision(65520.0f, tile_precision::fp16)));
}

TEST(TileCholesky, Fp8AndBf16RoundToNearestEven) {
  std::vector<double> e4m3 = e4m3_values();
  std::sort(e4m3.begin(), e4m3.end());
  EXPECT_EQ(e4m3.back(), 448.0);
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(-500, 500);
  for (int k = 0; k < 20000; ++k) {
    const float x = static_cast<float>(k % 3 ? u(rng) : u(rng) / 300.0);
    ASSERT_EQ(double(round_to_precision(x, tile_precision::fp8)), nearest(e4m3, x)) << x;
  }
  for (double v : e4m3)  // representable values stay as they are
    ASSERT_EQ(round_to_precision(float(v), tile_precision::fp8), float(v));
  EXPECT_EQ(round_to_precision(1.0625f, tile_precision::fp8), 1.0f);      // tie -> even (1.000)
  EXPECT_EQ(round_to_precision(1.1875f, tile_precision::fp8), 1.25f);     // tie -> even (1.010)
  EXPECT_EQ(round_to_precision(1e6f, tile_precision::fp8), 448.0f);       // saturates
  // BF16 keeps the top 16 bits of a float, rounded to nearest even.
  std::uniform_real_distribution<float> f(-1e3f, 1e3f);
  for (int k = 0; k < 20000; ++k) {
    const float x = f(rng);
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    const uint32_t lo = bits & 0xFFFF, base = bits & 0xFFFF0000u;
    uint32_t r = base;
    if (lo > 0x8000 || (lo == 0x8000 && (base & 0x10000))) r += 0x10000;
    float want;
    std::memcpy(&want, &r, 4);
    ASSERT_EQ(round_to_precision(x, tile_precision::bf16), want) << x;
  }
  EXPECT_EQ(unit_roundoff(tile_precision::fp32), std::ldexp(1.0, -24));
  EXPECT_EQ(unit_roundoff(tile_precision::fp16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(tile_precision::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff(tile_precision::fp8), std::ldexp(1.0, -4));
}

// A = I·d + tiles (i, j) filled with the constant c_ij: ‖A_ij‖_F = |c_ij|·tile exactly.
TEST(TileCholesky, PrecisionRuleFollowsTileNorms) {
  const int64_t tile = 4, nt = 4, n = tile * nt;
  std::vector<double> A(n * n, 0.0);
  const double c[4][4] = {{0, 0, 0, 0}, {1e-2, 0, 0, 0}, {1e-4, 1e-3, 0, 0}, {1e-7, 1.0, 1e-5, 0}};
  for (int64_t i = 0; i < nt; ++i)
    for (int64_t j = 0; j < i; ++j)
      for (int64_t r = 0; r < tile; ++r)
        for (int64_t s = 0; s < tile; ++s) A[(j * tile + s) * n + i * tile + r] = A[(i * tile + r) * n + j * tile + s] = c[i][j];
  for (int64_t i = 0; i < n; ++i) A[i * n + i] = 10;
  double total = 0;
  for (double v : A) total += v * v;
  const double norm = std::sqrt(total), eps = 1e-4;
  const executor cpu(backend::cpu, 1);
  const tile_precision_map m = choose_tile_precisions(cpu, A.data(), n, n, 0.0, tile, eps);
  for (int64_t i = 0; i < nt; ++i)
    for (int64_t j = 0; j < i; ++j) {
      const double ratio = std::fabs(c[i][j]) * tile * nt / norm;
      tile_precision want = tile_precision::fp32;
      for (tile_precision q : {tile_precision::fp8, tile_precision::bf16, tile_precision::fp16})
        if (ratio < eps / unit_roundoff(q)) {
          want = q;
          break;
        }
      EXPECT_EQ(m.at(i, j), want) << i << "," << j << " ratio " << ratio;
    }
  EXPECT_EQ(m.at(3, 0), tile_precision::fp8);
  EXPECT_EQ(m.at(3, 1), tile_precision::fp32);
  // `lowest` caps the rule.
  EXPECT_EQ(choose_tile_precisions(cpu, A.data(), n, n, 0.0, tile, eps, tile_precision::fp16).at(3, 0), tile_precision::fp16);
}

// SPD A = Q diag(λ) Qᵀ; x from the factor against the long-double solve.
struct spd_case {
  int64_t n, tile;
  double kappa;
};

double solve_error(const executor& exec, const std::vector<double>& A, int64_t n, const tile_precision_map& map,
                   const std::vector<double>& b) {
  tile_cholesky f(exec, n, A.data(), n, 0.0, map);
  std::vector<double> x = b;
  f.solve(x.data(), n, 1);
  std::vector<long double> M(A.begin(), A.end()), B(b.begin(), b.end());
  ld_solve(M, B, n, 1);
  long double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) num += (x[i] - B[i]) * (x[i] - B[i]), den += B[i] * B[i];
  return double(std::sqrt(num / den));
}

TEST(TileCholesky, Fp32FactorSolvesToFp32Accuracy) {
  for (const spd_case c : {spd_case{37, 8, 1e2}, spd_case{100, 16, 1e3}, spd_case{130, 64, 1e1}, spd_case{50, 50, 1e2}}) {
    std::vector<double> lambda(c.n);
    for (int64_t i = 0; i < c.n; ++i) lambda[i] = std::pow(c.kappa, -double(i) / double(c.n - 1));
    const std::vector<double> A = matrix_with_spectrum(lambda, 7 + c.n);
    std::vector<double> b(c.n);
    for (int64_t i = 0; i < c.n; ++i) b[i] = std::sin(double(i + 1));
    const auto map = tile_precision_map::uniform(c.n, c.tile);
    for (const executor& exec : {executor::reference(), executor(backend::cpu, 2)}) {
      const double err = solve_error(exec, A, c.n, map, b);
      // forward error of a backward-stable FP32 solve: O(κ n u32)
      EXPECT_LT(err, c.kappa * double(c.n) * unit_roundoff(tile_precision::fp32)) << c.n << " " << c.tile;
      EXPECT_GT(err, 0.0);
    }
  }
}

// With low-precision tiles the factor is that of A rounded tile by tile: its backward error
// ‖A − L Lᵀ‖ is of the order the rule promises (ε‖A‖), far above FP32's, and the same on both backends.
TEST(TileCholesky, LowPrecisionTilesGiveTheRulesAccuracy) {
  const int64_t n = 96, tile = 16;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 1 + 9 * double(i) / double(n - 1);
  const std::vector<double> A = matrix_with_spectrum(lambda, 11);
  for (double eps : {1e-2, 1e-3}) {
    const tile_precision_map map = choose_tile_precisions(executor(backend::cpu, 1), A.data(), n, n, 0.0, tile, eps);
    EXPECT_GT(map.count(tile_precision::fp8) + map.count(tile_precision::bf16) + map.count(tile_precision::fp16), 0);
    std::vector<double> b(n, 1.0);
    const double err_ref = solve_error(reference_executor(), A, n, map, b);
    const double err_cpu = solve_error(executor(backend::cpu, 2), A, n, map, b);
    const double kappa = 10;
    const double err_fp32 = solve_error(executor(backend::cpu, 2), A, n, tile_precision_map::uniform(n, tile), b);
    for (double err : {err_ref, err_cpu}) {
      EXPECT_LT(err, 4 * kappa * eps) << eps;    // within the rule's promise
      EXPECT_GT(err, 100 * err_fp32) << eps;     // the rounding happened: far from FP32's error
    }
    EXPECT_LT(std::fabs(err_ref - err_cpu), 0.5 * std::max(err_ref, err_cpu)) << eps;
  }
}

// The factor of A + shift·I equals that of the matrix with the shift added by hand; residuals
// and ‖·‖∞ are those of A + shift·I in FP64.
TEST(TileCholesky, ShiftIsAddedToTheDiagonal) {
  const int64_t n = 70, tile = 16;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 0.1 + double(i) / double(n);
  const std::vector<double> A = matrix_with_spectrum(lambda, 5);
  std::vector<double> B = A;
  for (int64_t i = 0; i < n; ++i) B[i * n + i] += 0.75;
  const auto map = tile_precision_map::uniform(n, tile);
  for (const executor& exec : {executor::reference(), executor(backend::cpu, 2)}) {
    tile_cholesky fa(exec, n, A.data(), n, 0.75, map), fb(exec, n, B.data(), n, 0.0, map);
    std::vector<double> xa(n, 1.0), xb(n, 1.0), ra(n), rb(n), y(n, 1.0);
    fa.solve(xa.data(), n, 1);
    fb.solve(xb.data(), n, 1);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(xa[i], xb[i]);
    fa.residual(xa.data(), y.data(), ra.data(), 1);
    fb.residual(xa.data(), y.data(), rb.data(), 1);
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(ra[i], rb[i], 1e-14);
    EXPECT_NEAR(fa.norm_inf(), fb.norm_inf(), 1e-13 * fb.norm_inf());
    double want = 0;
    for (int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (int64_t j = 0; j < n; ++j) s += std::fabs(B[i * n + j]);
      want = std::max(want, s);
    }
    EXPECT_NEAR(fa.norm_inf(), want, 1e-13 * want);
  }
}

TEST(TileCholesky, NotPositiveDefiniteIsNamed) {
  const int64_t n = 20;
  std::vector<double> lambda(n, 1.0);
  lambda[n - 1] = -0.5;
  const std::vector<double> A = matrix_with_spectrum(lambda, 3);
  for (const executor& exec : {executor::reference(), executor(backend::cpu, 1)}) {
    try {
      tile_cholesky f(exec, n, A.data(), n, 0.0, tile_precision_map::uniform(n, 8));
      FAIL() << "an indefinite matrix was factorised";
    } catch (const numeric_error& e) {
      EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pmx
