// Test cases of crossprod shared by every backend's tests (test_ops_backends.cpp: the cpu backend
// on every instruction set it supports; test_cuda_ops.cpp: cuda), each run on a given executor and
// compared with the reference backend: every sum must be equal, exactly.
//
//   symmetric    M·Mᵀ over samples, S N U V: shapes around the cpu tiles (multiples of 4/32/64/128
//                rows and 32-call words) and the cuda ones (256 rows, 256-call chunks, 1000 rows),
//                one sample, one variant; random_genotypes' all-missing and monomorphic variants,
//                7 % missing, or 5 % and one sample with every call missing.
//   rectangular  rows of A against rows of B, all six sums, rows = variants (the LD orientation).
//   subsets      one output alone and the pairs that share products (V without U, Vt without Ut,
//                S N, U Ut, V Vt), symmetric and rectangular, leading dimensions past the output
//                (columns there untouched), on 33 and 130 samples over 300 variants and on 70 and
//                300 over 777.
//   long rows    rows of 40,000 and 200,000 calls: more than one 512-word chunk, a tile remainder.
//   sparse pairs 1 % missing, one sample missing every call and one missing none: the cpu backend
//                counts N from the missing calls, alone or next to S.
//
// Every call accumulates (+=) onto a nonzero start; what the op must not write (the upper triangle
// of a symmetric S and N, the columns past the output) must keep it. The reference is slow on the
// largest shapes: an `oracle` says up to which size it is the oracle and what replaces it beyond
// (cuda: the cpu backend, itself checked against the reference up to that size), or that the case
// is left out: the cpu backend, whose only oracle is the reference, runs the cases whose check
// costs less than a limit (check_cost), which keeps its test's time; cuda runs every case.
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/ops/crossprod.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "test_support.hpp"

namespace pmx::crossprod_cases {

// ---- Outputs --------------------------------------------------------------------------------

/// The six sums, as bits of a mask of the outputs a call asks for.
enum output : unsigned { S = 1, N = 2, U = 4, V = 8, Ut = 16, Vt = 32 };
constexpr unsigned symmetric_outputs = S | N | U | V;  // Ut and Vt must be null in a symmetric call
constexpr unsigned every_output = S | N | U | V | Ut | Vt;
inline constexpr std::array<const char*, 6> output_names = {"S", "N", "U", "V", "Ut", "Vt"};

/// Row-major planes rows × ld, one per output in `mask` (the others empty and passed as null).
struct planes {
  int64_t rows = 0, ld = 0;
  unsigned mask = 0;
  std::array<std::vector<int32_t>, 6> p;
  planes(int64_t rows_, int64_t ld_, unsigned mask_, int32_t start) : rows(rows_), ld(ld_), mask(mask_) {
    for (int o = 0; o < 6; ++o)
      if (mask >> o & 1) p[o].assign(static_cast<size_t>(rows * ld), start);
  }
  crossprod_outputs outputs() {
    auto at = [&](int o) { return (mask >> o & 1) ? p[o].data() : nullptr; };
    return {at(0), at(1), at(2), at(3), at(4), at(5), ld};
  }
};

inline bool symmetric_only_lower(int o) { return o == 0 || o == 1; }  // S and N

/// One call of the op: crossprod(A, B) with B given, else crossprod_symmetric(A).
inline void call(const executor& e, const packed_rows_view& A, const packed_rows_view* B,
                 const crossprod_outputs& out) {
  if (B) crossprod(e, A, *B, out);
  else crossprod_symmetric(e, A, out);
}

/// The sums in `mask` from zero on the oracle `o` (leading dimension = the output's columns).
inline planes oracle_sums(const executor& o, const packed_rows_view& A, const packed_rows_view* B, unsigned mask) {
  planes r(A.n_rows, B ? B->n_rows : A.n_rows, mask, 0);
  call(o, A, B, r.outputs());
  return r;
}

/// Calls the op on `e` with the outputs in `mask` (leading dimension ld >= the output's columns),
/// each starting at `start`: every element must be start + the oracle's sum where the op writes
/// and `start` where it must not (the upper triangle of a symmetric S and N, columns past the
/// output). Fails fatally at the first difference.
inline void expect_sums(const executor& e, const planes& want, const packed_rows_view& A, const packed_rows_view* B,
                        unsigned mask, int64_t ld, int32_t start, const std::string& what) {
  const int64_t rows = A.n_rows, cols = B ? B->n_rows : A.n_rows;
  ASSERT_EQ(mask & want.mask, mask) << what << ": the oracle's sums lack an output";
  ASSERT_GE(ld, cols) << what;
  planes got(rows, ld, mask, start);
  call(e, A, B, got.outputs());
  for (int o = 0; o < 6; ++o) {
    if (!(mask >> o & 1)) continue;
    const bool lower = !B && symmetric_only_lower(o);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < ld; ++j) {
        const bool written = j < cols && (!lower || j <= i);
        const int32_t expect = written ? start + want.p[o][i * want.ld + j] : start;
        if (got.p[o][i * ld + j] != expect)
          FAIL() << what << ": " << output_names[o] << "(" << i << "," << j << ") = " << got.p[o][i * ld + j]
                 << ", want " << expect
                 << (written ? "" : j >= cols ? " (past the output: untouched)" : " (upper triangle: untouched)");
      }
  }
}

// ---- Inputs and oracles ---------------------------------------------------------------------

/// Sample-major rows (samples × variants): random_genotypes (variant 0 all missing, variant 1
/// monomorphic) and, with `dead_sample` and n >= 3, sample n/2 missing every call.
inline packed_rows sample_rows(int64_t n, int64_t k, double missing, bool dead_sample, uint64_t seed) {
  auto g = test::random_genotypes(n, k, missing, seed);
  if (dead_sample && n >= 3)
    for (int64_t l = 0; l < k; ++l) g.set(n / 2, l, code_missing);
  return transpose_to_sample_major(g.view(), 2);
}

/// Variant rows (the LD orientation): `rows` variants over `cols` samples, re-aligned to words.
inline packed_rows variant_rows(int64_t rows, int64_t cols, double missing, uint64_t seed) {
  const auto g = test::random_genotypes(cols, rows, missing, seed);
  return word_aligned_variant_rows(g.view(), 2);
}

inline const executor& reference() { return test::reference_executor(); }

/// What checking a case costs, in units of the reference's work per pair of rows and column
/// (about 2 ns): that work, plus about 16 per output element (the planes and their comparison)
/// and per input call (random_genotypes).
constexpr int64_t check_cost(int64_t work, int64_t output_elements, int64_t input_calls) {
  return work + 16 * output_elements + 16 * input_calls;
}

using oracle = test::backend_oracle;

inline std::string tag(const executor& e, const std::string& what) {
  return std::string(backend_name(e.kind())) + ": " + what;
}

/// Stops a loop over cases at the first one that failed fatally.
inline bool failed() { return ::testing::Test::HasFatalFailure(); }

// ---- Symmetric ------------------------------------------------------------------------------

struct symmetric_case {
  int64_t n, k;
  double missing;
  bool dead_sample;
  uint64_t seed;
  int64_t work() const { return n * n * k; }
  int64_t cost() const { return check_cost(work(), n * n, n * k); }
};

inline std::vector<symmetric_case> symmetric_cases() {
  std::vector<symmetric_case> c;
  // Around the cpu tiles: 4/32/64/128 rows, 32-call words.
  for (int64_t n : {1, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 301})
    for (int64_t k : {1, 2, 5, 31, 32, 33, 64, 65, 129, 700})
      c.push_back({n, k, 0.07, false, static_cast<uint64_t>(31 * n + k)});
  // Around the cuda tiles: 256 rows, 256-call chunks; 1000 rows.
  for (int64_t n : {1, 3, 33, 127, 128, 129, 257, 1000})
    for (int64_t k : {1, 31, 255, 256, 257, 1000, 5000})
      c.push_back({n, k, 0.05, true, static_cast<uint64_t>(17 * n + k)});
  return c;
}

/// S N U V of every symmetric case on `e`, onto 5; returns the number of cases checked.
inline int every_symmetric_case(const executor& e, const oracle& o) {
  int checked = 0;
  for (const symmetric_case& c : symmetric_cases()) {
    const executor* x = o.pick(c.work(), c.cost());
    if (!x) continue;
    const auto t = sample_rows(c.n, c.k, c.missing, c.dead_sample, c.seed);
    const std::string what = tag(e, "symmetric " + std::to_string(c.n) + " x " + std::to_string(c.k) + ", " +
                                        std::to_string(static_cast<int>(c.missing * 100)) + " % missing" +
                                        (c.dead_sample ? " and a sample missing every call" : ""));
    const planes want = oracle_sums(*x, t.view(), nullptr, symmetric_outputs);
    expect_sums(e, want, t.view(), nullptr, symmetric_outputs, c.n, 5, what);
    if (failed()) return checked;
    ++checked;
  }
  return checked;
}

// ---- Rectangular ----------------------------------------------------------------------------

struct rectangular_case {
  int64_t rows_a, rows_b, cols;
  int64_t work() const { return rows_a * rows_b * cols; }
  int64_t cost() const { return check_cost(work(), rows_a * rows_b, (rows_a + rows_b) * cols); }
};

inline std::vector<rectangular_case> rectangular_cases() {
  std::vector<rectangular_case> c;
  auto add = [&](int64_t ra, int64_t rb, int64_t cols) {
    for (const auto& d : c)
      if (d.rows_a == ra && d.rows_b == rb && d.cols == cols) return;  // the data depend on the shape alone
    c.push_back({ra, rb, cols});
  };
  for (int64_t ra : {1, 5, 33, 70})  // around the cpu tiles
    for (int64_t rb : {1, 4, 67, 130})
      for (int64_t cols : {1, 31, 33, 257, 1100}) add(ra, rb, cols);
  for (int64_t ra : {1, 3, 33, 129, 1000})  // around the cuda tiles
    for (int64_t rb : {1, 31, 128, 257})
      for (int64_t cols : {1, 255, 256, 1000, 5000}) add(ra, rb, cols);
  return c;
}

/// All six sums of every rectangular case on `e`, onto 2; returns the number of cases checked.
inline int every_rectangular_case(const executor& e, const oracle& o) {
  // A depends on (rows_a, cols) and B on (rows_b, cols) alone: each is made once.
  std::map<std::pair<int64_t, int64_t>, packed_rows> As, Bs;
  auto input = [](auto& made, int64_t rows, int64_t cols, uint64_t seed) -> const packed_rows& {
    auto [at, fresh] = made.try_emplace({rows, cols});
    if (fresh) at->second = variant_rows(rows, cols, 0.05, seed);
    return at->second;
  };
  int checked = 0;
  for (const rectangular_case& c : rectangular_cases()) {
    const executor* x = o.pick(c.work(), c.cost());
    if (!x) continue;
    const auto& A = input(As, c.rows_a, c.cols, static_cast<uint64_t>(c.rows_a * 7 + c.cols));
    const auto b = input(Bs, c.rows_b, c.cols, static_cast<uint64_t>(c.rows_b * 11 + c.cols + 1)).view();
    const std::string what = tag(e, "rectangular " + std::to_string(c.rows_a) + " x " + std::to_string(c.rows_b) +
                                        " over " + std::to_string(c.cols));
    expect_sums(e, oracle_sums(*x, A.view(), &b, every_output), A.view(), &b, every_output, c.rows_b, 2, what);
    if (failed()) return checked;
    ++checked;
  }
  return checked;
}

// ---- Subsets of outputs and leading dimensions ----------------------------------------------

struct subset_case {
  bool symmetric;
  unsigned outputs;
  int64_t ld_extra;  // leading dimension = the output's columns + this
};

inline std::vector<subset_case> subset_cases() {
  return {
      // V without U, Vt without Ut, N alone, S alone: the products that feed them are shared.
      {false, V, 11}, {false, Vt, 11}, {false, N, 11}, {false, S, 11}, {false, S | N, 11},
      {false, U | Ut, 11}, {false, V | Vt, 11}, {false, every_output, 1},
      {true, S, 0}, {true, V, 0}, {true, N, 11}, {true, U | V, 11}, {true, S | N, 3},
      {true, symmetric_outputs, 33},
  };
}

/// The subset cases run on A against B and on B against itself (sample-major, 5 % missing, a
/// sample missing every call).
struct subset_data {
  int64_t rows_a, rows_b, cols;
  uint64_t seed_a, seed_b;
};

inline std::vector<subset_data> subset_data_sets() {
  return {{33, 130, 300, 3, 4}, {70, 300, 777, 1, 2}};
}

/// Every subset case on every data set on `e`, onto −3; returns the number of cases checked.
inline int every_subset_case(const executor& e, const oracle& o) {
  int checked = 0;
  for (const subset_data& d : subset_data_sets()) {
    const int64_t ra = d.rows_a, rb = d.rows_b, k = d.cols;
    const executor* xr = o.pick(ra * rb * k, check_cost(ra * rb * k, ra * rb, (ra + rb) * k));
    const executor* xs = o.pick(rb * rb * k, check_cost(rb * rb * k, rb * rb, rb * k));
    if (!xr && !xs) continue;
    const auto A = sample_rows(ra, k, 0.05, true, d.seed_a);
    const auto B = sample_rows(rb, k, 0.05, true, d.seed_b);
    const auto b = B.view();
    const planes want_r = xr ? oracle_sums(*xr, A.view(), &b, every_output) : planes(0, 0, 0, 0);
    const planes want_s = xs ? oracle_sums(*xs, b, nullptr, symmetric_outputs) : planes(0, 0, 0, 0);
    for (const subset_case& c : subset_cases()) {
      if (!(c.symmetric ? xs : xr)) continue;
      std::string outs;
      for (int q = 0; q < 6; ++q)
        if (c.outputs >> q & 1) outs += std::string(outs.empty() ? "" : " ") + output_names[q];
      const int64_t ld = rb + c.ld_extra;
      const std::string shape = c.symmetric ? "symmetric " + std::to_string(rb)
                                            : "rectangular " + std::to_string(ra) + " x " + std::to_string(rb);
      const std::string what =
          tag(e, shape + " over " + std::to_string(k) + " with " + outs + ", leading dimension " + std::to_string(ld));
      if (c.symmetric) expect_sums(e, want_s, b, nullptr, c.outputs, ld, -3, what);
      else expect_sums(e, want_r, A.view(), &b, c.outputs, ld, -3, what);
      if (failed()) return checked;
      ++checked;
    }
  }
  return checked;
}

// ---- Long rows ------------------------------------------------------------------------------

struct long_rows_case {
  int64_t n, k;
  double missing;
  bool dead_sample;
  unsigned outputs;
  int64_t work() const { return n * n * k; }
  int64_t cost() const { return check_cost(work(), n * n, n * k); }
};

inline std::vector<long_rows_case> long_rows_cases() {
  return {
      {9, 40'000, 0.02, false, S | V},              // 3 chunks of 512 words (16,384 calls), some outputs
      {9, 200'000, 0.05, true, symmetric_outputs},  // 13 chunks, every output
  };
}

/// Every long-rows case on `e`, onto 1; returns the number of cases checked.
inline int every_long_rows_case(const executor& e, const oracle& o) {
  int checked = 0;
  for (const long_rows_case& c : long_rows_cases()) {
    const executor* x = o.pick(c.work(), c.cost());
    if (!x) continue;
    const auto t = sample_rows(c.n, c.k, c.missing, c.dead_sample, 99);
    const std::string what = tag(e, "symmetric " + std::to_string(c.n) + " x " + std::to_string(c.k));
    expect_sums(e, oracle_sums(*x, t.view(), nullptr, c.outputs), t.view(), nullptr, c.outputs, c.n, 1, what);
    if (failed()) return checked;
    ++checked;
  }
  return checked;
}

// ---- Sparse pair counts ---------------------------------------------------------------------

struct sparse_pairs_case {
  int64_t n, k;
  int64_t work() const { return n * n * k; }
  int64_t cost() const { return check_cost(work(), n * n, n * k); }
};

inline std::vector<sparse_pairs_case> sparse_pairs_cases() {
  std::vector<sparse_pairs_case> c;
  for (int64_t n : {1, 5, 33, 130, 301})
    for (int64_t k : {1, 31, 33, 700, 3000}) c.push_back({n, k});
  return c;
}

/// N alone (onto 3) and S with N (onto 0) of every sparse-pairs case on `e`; returns the number
/// of cases checked.
inline int every_sparse_pairs_case(const executor& e, const oracle& o) {
  int checked = 0;
  for (const sparse_pairs_case& c : sparse_pairs_cases()) {
    const executor* x = o.pick(c.work(), c.cost());
    if (!x) continue;
    auto g = test::random_genotypes(c.n, c.k, 0.01, static_cast<uint64_t>(7 * c.n + c.k));
    for (int64_t l = 0; l < c.k; ++l) g.set(c.n / 2, l, code_missing);
    if (c.n > 2)
      for (int64_t l = 0; l < c.k; ++l)
        if (g.view().code(c.n - 1, l) == code_missing) g.set(c.n - 1, l, code_het);
    const auto t = transpose_to_sample_major(g.view(), 2);
    const planes want = oracle_sums(*x, t.view(), nullptr, S | N);
    const std::string what = tag(e, "few missing calls, " + std::to_string(c.n) + " x " + std::to_string(c.k));
    expect_sums(e, want, t.view(), nullptr, N, c.n, 3, what + ", N alone");
    if (failed()) return checked;
    expect_sums(e, want, t.view(), nullptr, S | N, c.n, 0, what + ", S and N");
    if (failed()) return checked;
    ++checked;
  }
  return checked;
}

}  // namespace pmx::crossprod_cases
