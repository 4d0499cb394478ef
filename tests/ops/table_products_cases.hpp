// Test cases of the table products (table_products.hpp) shared by every backend's tests
// (test_ops_backends.cpp: cpu; test_cuda_ops.cpp: cuda), each run on a given executor and compared
// with the reference backend: random genotypes with 8 % missing calls (random_genotypes'
// all-missing and monomorphic variants), random code tables (0 for a missing call), sizes around
// the cpu tiles (4/32/64/128 samples) and the cuda ones (256-row tiles, 1000 samples, 2000
// variants), one sample, one variant.
//
// Tolerances, per element:
//   table_crossprod (lower triangle, onto 0.5; the upper triangle must keep 0.5 exactly):
//       |got − want| ≤ 1e-12 · k  and  |got − want| ≤ 1e-12 · sqrt(C_ii C_jj)  (Cauchy–Schwarz)
//   table_rowsums, missing_crossprod (Y, and R's lower triangle; R's upper triangle untouched):
//       |got − want| ≤ 1e-12 · (sqrt(k) + 1)
// The reference's table_crossprod is slow on the largest shapes: an `oracle` says up to which size
// it is the oracle and what replaces it beyond (cuda: the cpu backend, itself checked against the
// reference up to that size), or that the case is left out: the cpu backend, whose only oracle is
// the reference, runs the cases whose check costs less than a limit (table_case::cost), which
// keeps its test's time; cuda runs every case. table_rowsums and missing_crossprod are always
// checked against the reference.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "panoramix/ops/table_products.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "test_support.hpp"

namespace pmx::table_products_cases {

constexpr double missing_rate = 0.08;
constexpr double crossprod_start = 0.5;

struct table_case {
  int64_t n, k;
  int64_t work() const { return n * n * k / 2; }  // the reference's multiply-adds in table_crossprod
  // What checking the case costs, in units of that work (about 1 ns): plus about 16 per output
  // element (C, Y, R) and per input call (random_genotypes).
  int64_t cost() const { return work() + 16 * 3 * n * n + 16 * n * k; }
};

inline std::vector<table_case> cases() {
  std::vector<table_case> c;
  auto add = [&](int64_t n, int64_t k) {
    for (const auto& d : c)
      if (d.n == n && d.k == k) return;  // the data depend on the shape alone
    c.push_back({n, k});
  };
  for (int64_t n : {1, 4, 5, 33, 64, 129, 301})  // around the cpu tiles
    for (int64_t k : {1, 2, 33, 65, 700}) add(n, k);
  for (int64_t n : {1, 5, 33, 129, 301, 1000})  // around the cuda tiles
    for (int64_t k : {1, 33, 700, 2000}) add(n, k);
  return c;
}

/// Per variant {hom A1, missing, het, hom A2} = {N(0,1), 0, N(0,1), N(0,1)}.
inline std::vector<code_table> random_tables(int64_t k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  std::vector<code_table> tab(static_cast<size_t>(k));
  for (auto& t : tab) t = {nd(rng), 0.0, nd(rng), nd(rng)};
  return tab;
}

struct table_data {
  packed_genotypes g;
  std::vector<code_table> tables;
  std::vector<double> r;  // missing_crossprod's per-variant weights
};

inline table_data make_data(const table_case& c) {
  table_data d{test::random_genotypes(c.n, c.k, missing_rate, static_cast<uint64_t>(13 * c.n + c.k)),
               random_tables(c.k, static_cast<uint64_t>(c.n + 3 * c.k)), std::vector<double>(static_cast<size_t>(c.k))};
  std::mt19937_64 rng(static_cast<uint64_t>(c.n + 3 * c.k + 1));
  std::normal_distribution<double> nd;
  for (auto& x : d.r) x = nd(rng);
  return d;
}

inline std::string shape(int64_t n, int64_t k) { return std::to_string(n) + " x " + std::to_string(k); }
inline std::string tag(const executor& e, const std::string& what) {
  return std::string(backend_name(e.kind())) + ": " + what;
}

/// Whether |got − want| <= bound (false for NaN).
inline bool near(double want, double got, double bound) { return std::fabs(got - want) <= bound; }

/// table_crossprod's lower triangle within the bounds above of `want`, both started at `start`;
/// the upper triangle still `start`. Fails fatally at the first difference.
inline void expect_crossprod_close(const std::vector<double>& want, const std::vector<double>& got, int64_t n,
                                   int64_t k, double start, const std::string& what) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = i * n + j;
      if (j > i) {
        if (got[at] != start)
          FAIL() << what << ": upper triangle C(" << i << "," << j << ") = " << got[at] << ", must stay untouched";
        continue;
      }
      const double cauchy_schwarz = std::sqrt((want[i * n + i] - start) * (want[j * n + j] - start));
      if (!near(want[at], got[at], 1e-12 * static_cast<double>(k)) || !near(want[at], got[at], 1e-12 * cauchy_schwarz))
        FAIL() << what << " C(" << i << "," << j << ") = " << got[at] << ", want " << want[at] << " within 1e-12 k = "
               << 1e-12 * static_cast<double>(k) << " and 1e-12 sqrt(C_ii C_jj) = " << 1e-12 * cauchy_schwarz;
    }
}

inline const executor& reference() { return test::reference_executor(); }

using oracle = test::backend_oracle;

/// The three products of case `c` on `e` against `oracle_exec` (table_crossprod) and the reference
/// (table_rowsums, missing_crossprod). Fails fatally at the first difference.
inline void check_case(const executor& e, const executor& oracle_exec, const table_case& c) {
  const int64_t n = c.n, k = c.k;
  const table_data d = make_data(c);
  const std::string what = tag(e, shape(n, k));
  const auto g = d.g.view();
  {
    std::vector<double> want(static_cast<size_t>(n * n), crossprod_start), got = want;
    table_crossprod(oracle_exec, g, d.tables, want.data(), n);
    table_crossprod(e, g, d.tables, got.data(), n);
    expect_crossprod_close(want, got, n, k, crossprod_start, what);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const double bound = 1e-12 * (std::sqrt(static_cast<double>(k)) + 1);
  std::vector<double> y1(static_cast<size_t>(n), 0), y2 = y1;
  table_rowsums(reference(), g, d.tables, y1);
  table_rowsums(e, g, d.tables, y2);
  for (int64_t i = 0; i < n; ++i)
    if (!near(y1[i], y2[i], bound))
      FAIL() << what << " y(" << i << ") = " << y2[i] << ", want " << y1[i] << " within " << bound;
  std::vector<double> Y1(static_cast<size_t>(n * n), 0), Y2 = Y1, R1 = Y1, R2 = Y1;
  missing_crossprod(reference(), g, d.tables, d.r, Y1.data(), R1.data(), n);
  missing_crossprod(e, g, d.tables, d.r, Y2.data(), R2.data(), n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = i * n + j;
      if (j <= i && !near(R1[at], R2[at], bound))
        FAIL() << what << " R(" << i << "," << j << ") = " << R2[at] << ", want " << R1[at] << " within " << bound;
      if (j > i && R2[at] != 0.0)
        FAIL() << what << ": upper triangle R(" << i << "," << j << ") = " << R2[at] << ", must stay untouched";
      if (!near(Y1[at], Y2[at], bound))
        FAIL() << what << " Y(" << i << "," << j << ") = " << Y2[at] << ", want " << Y1[at] << " within " << bound;
    }
}

/// Every case on `e`; returns the number of cases checked.
inline int every_case(const executor& e, const oracle& o) {
  int checked = 0;
  for (const table_case& c : cases()) {
    const executor* x = o.pick(c.work(), c.cost());
    if (!x) continue;
    check_case(e, *x, c);
    if (::testing::Test::HasFatalFailure()) return checked;
    ++checked;
  }
  return checked;
}

}  // namespace pmx::table_products_cases
