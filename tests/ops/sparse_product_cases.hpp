// Test cases of sparse_product shared by every backend's tests (test_sparse_product.cpp: reference
// and cpu; test_cuda_sparse_product.cpp: cuda): random symmetric matrices in CSR with both
// triangles stored (empty rows included), 32- and 64-bit columns, 1 and several columns of X.
// Each entry of every backend's Y (the reference's included) must be within
// c·u·Σ_k |S_ik X_kc| of the product in long double, c the row's nonzero count plus 2, and within
// twice that of the reference's Y.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "panoramix/ops/sparse_product.hpp"
#include "test_support.hpp"

namespace pmx::sparse_product_cases {

/// A CSR matrix owned by the test: both triangles of a random symmetric n × n matrix, the diagonal
/// (except every 7th row, left empty when nothing else lands there) and about `per_row`
/// off-diagonal entries per row of the lower triangle, values in (−1, 1), columns ascending.
struct csr_matrix {
  int64_t n = 0;
  std::vector<int64_t> row_start, col64;
  std::vector<int32_t> col32;
  std::vector<double> value;
  csr_view narrow() const { return {n, row_start.data(), col32.data(), nullptr, value.data()}; }
  csr_view wide() const { return {n, row_start.data(), nullptr, col64.data(), value.data()}; }
};

inline csr_matrix random_symmetric(int64_t n, int per_row, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::tuple<int64_t, int64_t, double>> entries;  // (row, column, value), both triangles
  for (int64_t r = 0; r < n; ++r) {
    std::vector<int64_t> cols;
    for (int q = 0; q < per_row && r > 0; ++q) cols.push_back(static_cast<int64_t>(rng() % r));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int64_t c : cols) {
      const double v = u(rng);
      entries.emplace_back(r, c, v), entries.emplace_back(c, r, v);
    }
    if (r % 7 != 3) entries.emplace_back(r, r, 4.0 + u(rng));
  }
  std::sort(entries.begin(), entries.end());
  csr_matrix m;
  m.n = n;
  m.row_start.assign(static_cast<size_t>(n + 1), 0);
  for (const auto& [r, c, v] : entries) {
    ++m.row_start[r + 1];
    m.col64.push_back(c), m.col32.push_back(static_cast<int32_t>(c)), m.value.push_back(v);
  }
  for (int64_t r = 0; r < n; ++r) m.row_start[r + 1] += m.row_start[r];
  return m;
}

/// max over entries of |got − want| / (c·u·Σ_k |S_ik X_kc|), c = the row's nonzeros + 2, with
/// `want` the product in long double (or another backend's Y, the bound then doubled).
inline double error_in_bounds(const csr_view& m, int64_t t, const std::vector<double>& X, const std::vector<double>& got,
                              const std::vector<double>* want = nullptr) {
  double worst = 0;
  for (int64_t r = 0; r < m.n; ++r)
    for (int64_t c = 0; c < t; ++c) {
      long double exact = 0, sum_abs = 0;
      for (int64_t k = m.row_start[r]; k < m.row_start[r + 1]; ++k) {
        const int64_t j = m.col32 ? m.col32[k] : m.col64[k];
        const long double p = static_cast<long double>(m.value[k]) * X[j * t + c];
        exact += p, sum_abs += std::fabs(p);
      }
      const double target = want ? (*want)[r * t + c] : static_cast<double>(exact);
      const double bound = (want ? 2.0 : 1.0) * static_cast<double>(m.row_start[r + 1] - m.row_start[r] + 2) *
                           0x1p-53 * static_cast<double>(sum_abs);
      const double e = std::fabs(got[r * t + c] - target);
      if (e > 0) worst = std::max(worst, bound > 0 ? e / bound : INFINITY);
    }
  return worst;
}

inline std::vector<double> random_block(int64_t n, int64_t t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> X(static_cast<size_t>(n * t));
  for (double& x : X) x = u(rng);
  return X;
}

inline const std::vector<int64_t> sizes = {1, 2, 7, 1000, 20000};
inline const std::vector<int64_t> columns = {1, 2, 3, 10};

/// Y = S X on `e` for matrix m: within the bounds of the long-double product and of the reference's Y.
inline void expect_product(const executor& e, const csr_view& m, int64_t t, const std::string& what) {
  const sparse_operand s(e, m), r(executor::reference(), m);
  const auto X = random_block(m.n, t, static_cast<uint64_t>(m.n * 10 + t));
  std::vector<double> got(static_cast<size_t>(m.n * t), 7.0), want(got.size(), -7.0);
  sparse_multiply(s, t, X.data(), got.data());
  sparse_multiply(r, t, X.data(), want.data());
  const std::string tag = std::string(backend_name(e.kind())) + ": " + what;
  EXPECT_LE(error_in_bounds(m, t, X, want), 1.0) << tag << ", reference vs long double";
  EXPECT_LE(error_in_bounds(m, t, X, got), 1.0) << tag << " vs long double";
  EXPECT_LE(error_in_bounds(m, t, X, got, &want), 1.0) << tag << " vs reference";
}

/// Every case on `e` (sizes up to `max_n`).
inline void every_case(const executor& e, int64_t max_n = 20000) {
  for (int64_t n : sizes) {
    if (n > max_n) continue;
    const csr_matrix a = random_symmetric(n, 3, 40 + static_cast<uint64_t>(n));
    for (const csr_view& m : {a.narrow(), a.wide()})
      for (int64_t t : columns)
        expect_product(e, m, t,
                       "n = " + std::to_string(n) + ", t = " + std::to_string(t) +
                           (m.col32 ? ", 32-bit columns" : ", 64-bit columns"));
  }
}

}  // namespace pmx::sparse_product_cases
