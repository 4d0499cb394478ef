// Test cases of solver_vectors shared by every backend's tests (test_solver_vectors.cpp: reference
// and cpu; test_cuda_solver_vectors.cpp: cuda): lengths around the dot chunk (4,096) and past
// 4,096² (three levels of chunk sums on cuda), strided rows, one block for all rows and one per
// row, gathers and scatters through a permutation. dot must be within (chunk + chunks + 2)·u·Σ|a_i b_i|
// of the long-double sum; every elementwise result must equal the same expression evaluated on the
// host (one rounding per operation, no contraction assumed: within 2 ulp).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "panoramix/executor_array.hpp"
#include "panoramix/ops/solver_vectors.hpp"
#include "test_support.hpp"

namespace pmx::solver_vectors_cases {

inline std::vector<double> random_values(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng) * std::ldexp(1.0, static_cast<int>(rng() % 20) - 10);
  return v;
}

/// Host values copied into `exec`'s memory, and back.
template <class T>
executor_array<T> in_memory_of(const executor& exec, const std::vector<T>& host) {
  executor_array<T> a(exec, host.size());
  a.copy_from_host(host.data(), 0, host.size());
  return a;
}
template <class T>
std::vector<T> to_host(const executor_array<T>& a) {
  std::vector<T> h(a.size());
  a.copy_to_host(h.data(), 0, a.size());
  return h;
}

/// |got − want| ≤ 2 ulp of max(|want|, the magnitude of its terms) for every entry.
inline void expect_near_each(const std::vector<double>& got, const std::vector<double>& want,
                             const std::vector<double>& magnitude, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::fabs(got[i] - want[i]), 4 * 0x1p-53 * std::max(std::fabs(want[i]), magnitude[i]))
        << what << " at " << i << ": " << got[i] << " vs " << want[i];
}

inline void check_dot(const executor& exec, int64_t n, uint64_t seed) {
  const auto a = random_values(n, seed), b = random_values(n, seed + 1);
  long double exact = 0, mag = 0;
  for (int64_t i = 0; i < n; ++i) exact += static_cast<long double>(a[i]) * b[i], mag += std::fabs(static_cast<long double>(a[i]) * b[i]);
  const auto da = in_memory_of(exec, a), db = in_memory_of(exec, b);
  const double got = dot(exec, n, da.data(), db.data());
  const double chunks = std::ceil(static_cast<double>(n) / 4096);
  EXPECT_LE(std::fabs(got - static_cast<double>(exact)), (4096 + chunks + 2) * 0x1p-53 * static_cast<double>(mag))
      << "dot, n = " << n;
  EXPECT_EQ(got, dot(exec, n, da.data(), db.data())) << "dot, n = " << n << ": the same bits on a second call";
}

inline void check_elementwise(const executor& exec, int64_t rows, int64_t t, uint64_t seed) {
  const std::string what = "rows = " + std::to_string(rows) + ", t = " + std::to_string(t);
  const int64_t ldx = t + 2, ldy = t + 1;
  const auto x = random_values(rows * ldx, seed), y0 = random_values(rows * ldy, seed + 1);
  const double a = -0.75, b = 1.5;
  {  // axpby, b ≠ 0 and b = 0 (y's NaNs ignored)
    auto dx = in_memory_of(exec, x), dy = in_memory_of(exec, y0);
    axpby(exec, rows, t, a, dx.data(), ldx, b, dy.data(), ldy);
    std::vector<double> want = y0, mag = y0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < t; ++c) {
        want[i * ldy + c] = a * x[i * ldx + c] + b * y0[i * ldy + c];
        mag[i * ldy + c] = std::fabs(a * x[i * ldx + c]) + std::fabs(b * y0[i * ldy + c]);
      }
    expect_near_each(to_host(dy), want, mag, "axpby " + what);
    std::vector<double> nan(y0.size(), NAN);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = t; c < ldy; ++c) nan[i * ldy + c] = y0[i * ldy + c];
    auto dn = in_memory_of(exec, nan);
    axpby(exec, rows, t, a, dx.data(), ldx, 0.0, dn.data(), ldy);
    std::vector<double> want0 = nan;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < t; ++c) want0[i * ldy + c] = a * x[i * ldx + c];
    EXPECT_EQ(to_host(dn), want0) << "axpby with b = 0 " << what << " (the gaps between rows untouched)";
  }
  {  // pcg_update
    const int64_t n = rows * t;
    const auto p = random_values(n, seed + 2), q = random_values(n, seed + 3), x1 = random_values(n, seed + 4),
               r1 = random_values(n, seed + 5);
    auto dp = in_memory_of(exec, p), dq = in_memory_of(exec, q), dx = in_memory_of(exec, x1), dr = in_memory_of(exec, r1);
    const double alpha = 0.3125;
    pcg_update(exec, n, alpha, dp.data(), dq.data(), dx.data(), dr.data());
    std::vector<double> wx(n), wr(n), mx(n), mr(n);
    for (int64_t i = 0; i < n; ++i) {
      wx[i] = x1[i] + alpha * p[i], wr[i] = r1[i] - alpha * q[i];
      mx[i] = std::fabs(x1[i]) + std::fabs(alpha * p[i]), mr[i] = std::fabs(r1[i]) + std::fabs(alpha * q[i]);
    }
    expect_near_each(to_host(dx), wx, mx, "pcg_update x " + what);
    expect_near_each(to_host(dr), wr, mr, "pcg_update r " + what);
  }
  {  // block_multiply: one block per row, and one for all rows
    const auto blocks = random_values(rows * t * t, seed + 6), v = random_values(rows * t, seed + 7);
    auto db = in_memory_of(exec, blocks), dv = in_memory_of(exec, v);
    for (int64_t stride : {t * t, int64_t{0}}) {
      executor_array<double> out(exec, static_cast<size_t>(rows * t));
      block_multiply(exec, rows, t, db.data(), stride, dv.data(), out.data());
      std::vector<double> want(rows * t), mag(rows * t);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t r = 0; r < t; ++r) {
          long double s = 0, m = 0;
          for (int64_t c = 0; c < t; ++c) {
            const long double term = static_cast<long double>(blocks[i * stride + r * t + c]) * v[i * t + c];
            s += term, m += std::fabs(term);
          }
          want[i * t + r] = static_cast<double>(s);
          mag[i * t + r] = static_cast<double>(t + 1) * static_cast<double>(m) / 4;  // γ_t bound in ulps of Σ|terms|
        }
      expect_near_each(to_host(out), want, mag, "block_multiply (stride " + std::to_string(stride) + ") " + what);
    }
  }
  {  // gather then scatter-add through a permutation of the rows
    std::vector<int64_t> index(rows);
    std::iota(index.begin(), index.end(), 0);
    std::shuffle(index.begin(), index.end(), std::mt19937_64(seed + 8));
    auto di = in_memory_of(exec, index);
    auto dx = in_memory_of(exec, x);
    executor_array<double> g(exec, static_cast<size_t>(rows * ldy));
    auto gathered0 = random_values(rows * ldy, seed + 9);
    g.copy_from_host(gathered0.data(), 0, gathered0.size());
    gather_rows(exec, rows, t, di.data(), dx.data(), ldx, g.data(), ldy);
    std::vector<double> want = gathered0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < t; ++c) want[i * ldy + c] = x[index[i] * ldx + c];
    EXPECT_EQ(to_host(g), want) << "gather_rows " << what;
    auto dy = in_memory_of(exec, y0);
    scatter_add_rows(exec, rows, t, di.data(), a, g.data(), ldy, dy.data(), ldy);
    std::vector<double> wy = y0, my = y0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < t; ++c) {
        wy[index[i] * ldy + c] = y0[index[i] * ldy + c] + a * x[index[i] * ldx + c];
        my[index[i] * ldy + c] = std::fabs(y0[index[i] * ldy + c]) + std::fabs(a * x[index[i] * ldx + c]);
      }
    expect_near_each(to_host(dy), wy, my, "scatter_add_rows " + what);
  }
}

inline void every_case(const executor& exec) {
  for (int64_t n : {1, 4095, 4096, 4097, 100000}) check_dot(exec, n, 10 + static_cast<uint64_t>(n));
  for (auto [rows, t] : {std::pair<int64_t, int64_t>{1, 1}, {7, 3}, {5000, 1}, {40000, 6}, {3, 40}})
    check_elementwise(exec, rows, t, 100 + static_cast<uint64_t>(rows * t));
}

}  // namespace pmx::solver_vectors_cases
