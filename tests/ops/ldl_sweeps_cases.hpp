// Test cases of ldl_sweeps shared by every backend's tests (test_ldl_sweeps.cpp: reference and
// cpu; test_cuda_ldl_sweeps.cpp: cuda). Random simplicial LDLᵀ factors in CHOLMOD's layout with a
// random permutation: pedigree-like (up to two entries below the diagonal per column, a shallow
// tree), a chain (one level per row), a diagonal factor, and one row. The oracle multiplies
// instead of solving: b = A x through the factor (Lᵀ, D, L in long double, rows permuted), and a
// solve of b must return x.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "panoramix/ops/ldl_sweeps.hpp"

namespace pmx::ldl_sweeps_cases {

enum class shape { pedigree, chain, diagonal };

struct factor {
  int64_t n = 0;
  std::vector<int64_t> perm, p, nz, row;
  std::vector<double> x;
  std::string name;
  ldl_factor_view view() const { return {n, perm.data(), p.data(), nz.data(), row.data(), x.data()}; }
};

/// A factor of order n; columns keep their entries with a gap after them (nz[j] < p[j+1] − p[j],
/// as CHOLMOD's factors may have), rows of a column in random order.
inline factor make(int64_t n, shape s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> off(-0.45, 0.45), diag(0.5, 2.0);
  factor f;
  f.n = n;
  f.name = (s == shape::pedigree ? "pedigree-like" : s == shape::chain ? "chain" : "diagonal") +
           std::string(", n = ") + std::to_string(n);
  f.perm.resize(n);
  std::iota(f.perm.begin(), f.perm.end(), 0);
  std::shuffle(f.perm.begin(), f.perm.end(), rng);
  f.p.assign(n + 1, 0);
  f.nz.assign(n, 1);
  for (int64_t j = 0; j < n; ++j) {
    std::vector<int64_t> below;
    if (s == shape::chain && j + 1 < n) below.push_back(j + 1);
    if (s == shape::pedigree)
      for (int e = 0; e < 2 && j + 1 < n; ++e) {
        const int64_t i = j + 1 + static_cast<int64_t>(rng() % std::min<int64_t>(n - j - 1, 64));
        if (rng() % 4 != 0 && std::find(below.begin(), below.end(), i) == below.end()) below.push_back(i);
      }
    f.row.push_back(j);
    f.x.push_back(diag(rng));
    for (int64_t i : below) f.row.push_back(i), f.x.push_back(off(rng));
    f.nz[j] = 1 + static_cast<int64_t>(below.size());
    f.row.push_back(-7), f.x.push_back(1e300);  // slack CHOLMOD may leave: never read
    f.p[j + 1] = static_cast<int64_t>(f.row.size());
  }
  return f;
}

inline std::vector<factor> every_case() {
  return {make(1, shape::diagonal, 1), make(9, shape::diagonal, 2), make(40, shape::chain, 3),
          make(300, shape::pedigree, 4), make(5000, shape::pedigree, 5), make(30000, shape::pedigree, 6)};
}

/// b = A x (n × t row-major, A's numbering) through the factor: A(perm, perm) = L D Lᵀ.
inline std::vector<double> times_a(const factor& f, const std::vector<double>& x, int64_t t) {
  const int64_t n = f.n;
  std::vector<long double> u(n * t), w(n * t);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t c = 0; c < t; ++c) u[k * t + c] = x[f.perm[k] * t + c];
  for (int64_t j = 0; j < n; ++j)  // u = Lᵀ u (column j reads rows i > j, not yet changed)
    for (int64_t q = 1; q < f.nz[j]; ++q)
      for (int64_t c = 0; c < t; ++c) u[j * t + c] += f.x[f.p[j] + q] * u[f.row[f.p[j] + q] * t + c];
  for (int64_t j = 0; j < n; ++j)
    for (int64_t c = 0; c < t; ++c) w[j * t + c] = u[j * t + c] *= f.x[f.p[j]];
  for (int64_t j = 0; j < n; ++j)  // w = L u
    for (int64_t q = 1; q < f.nz[j]; ++q)
      for (int64_t c = 0; c < t; ++c) w[f.row[f.p[j] + q] * t + c] += f.x[f.p[j] + q] * u[j * t + c];
  std::vector<double> b(n * t);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t c = 0; c < t; ++c) b[f.perm[k] * t + c] = static_cast<double>(w[k * t + c]);
  return b;
}

/// W = P b for the sweeps' order (row k of W is row perm()[k] of b), and back.
inline std::vector<double> permute(const ldl_sweeps& s, const std::vector<double>& b, int64_t t) {
  std::vector<double> W(b.size());
  for (int64_t k = 0; k < s.size(); ++k)
    for (int64_t c = 0; c < t; ++c) W[k * t + c] = b[s.perm()[k] * t + c];
  return W;
}
inline std::vector<double> unpermute(const ldl_sweeps& s, const std::vector<double>& W, int64_t t) {
  std::vector<double> x(W.size());
  for (int64_t k = 0; k < s.size(); ++k)
    for (int64_t c = 0; c < t; ++c) x[s.perm()[k] * t + c] = W[k * t + c];
  return x;
}

/// Known solutions: x random, b = A x, the reference's solve of b within 1e-12 of x (relative to
/// max |x|); the permutation a bijection; the pedigree-like cases have several levels.
inline void reference_solves_known_systems() {
  for (const factor& f : every_case())
    for (int64_t t : {1, 2, 7}) {
      const ldl_sweeps s(executor::reference(), f.view());
      ASSERT_EQ(s.size(), f.n);
      std::vector<int64_t> seen(f.n, 0);
      for (int64_t k = 0; k < f.n; ++k) {
        ++seen.at(s.perm()[k]);
        ASSERT_EQ(s.inverse_perm()[s.perm()[k]], k);
      }
      ASSERT_EQ(std::count(seen.begin(), seen.end(), 1), f.n) << f.name;
      if (f.name.rfind("chain", 0) == 0) {
        ASSERT_EQ(s.levels(), f.n) << f.name;
      }
      std::mt19937_64 rng(static_cast<uint64_t>(f.n * 10 + t));
      std::uniform_real_distribution<double> u(-1, 1);
      std::vector<double> x(f.n * t);
      for (double& v : x) v = u(rng);
      std::vector<double> W = permute(s, times_a(f, x, t), t);
      ldl_solve_permuted(s, t, W.data());
      const std::vector<double> got = unpermute(s, W, t);
      double err = 0, scale = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        err = std::max(err, std::abs(got[i] - x[i]));
        scale = std::max(scale, std::abs(x[i]));
      }
      EXPECT_LE(err, 1e-12 * scale) << f.name << ", t = " << t << ", " << s.levels() << " levels";
    }
}

/// `e`'s solves of random right-hand sides against the reference's: identical bits when `exact`,
/// else within 1e-13 relative to max |W|. solve(sweeps, t, W) runs e's solve on the host vector W
/// (a cuda test may route it through device memory).
template <class Solve>
void matches_reference(const executor& e, bool exact, Solve&& solve) {
  for (const factor& f : every_case())
    for (int64_t t : {1, 2, 7}) {
      const ldl_sweeps want_s(executor::reference(), f.view()), got_s(e, f.view());
      ASSERT_EQ(got_s.perm(), want_s.perm()) << f.name;
      std::mt19937_64 rng(static_cast<uint64_t>(f.n + t));
      std::uniform_real_distribution<double> u(-1, 1);
      std::vector<double> W(f.n * t);
      for (double& v : W) v = u(rng);
      std::vector<double> want = W, got = W;
      ldl_solve_permuted(want_s, t, want.data());
      solve(got_s, t, got);
      double err = 0, scale = 0;
      for (size_t i = 0; i < W.size(); ++i)
        err = std::max(err, std::abs(got[i] - want[i])), scale = std::max(scale, std::abs(want[i]));
      if (exact) {
        ASSERT_EQ(got, want) << f.name << ", t = " << t;
      } else {
        EXPECT_LE(err, 1e-13 * scale) << f.name << ", t = " << t;
      }
    }
}

}  // namespace pmx::ldl_sweeps_cases
