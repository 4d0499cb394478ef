// Test cases of sample_sums shared by every backend's tests (test_sample_sums.cpp: reference and
// cpu; test_cuda_sample_sums.cpp: cuda): several blocks (one of a single variant, one promised
// free of missing calls), a flush in the middle, every subset of outputs that callers use, and
// outputs that start nonzero (the op adds) with the upper triangles left untouched. Each backend
// must give the reference's S and N exactly and C and a to rounding; the reference is checked
// against sums written out from the dosages in long double.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/sample_sums.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "test_support.hpp"

namespace pmx::sample_sums_cases {

enum output_bits : unsigned { want_S = 1, want_N = 2, want_C = 4, want_a = 8, want_all = 15 };

/// The output subsets of the cases: all, the GRM's S + N + a, C alone, N alone, a alone.
inline const std::vector<unsigned> output_sets = {want_all, want_S | want_N | want_a, want_C, want_N, want_a};

struct blocks {
  int64_t n = 0;
  std::vector<int64_t> sizes;
  std::vector<packed_genotypes> g;
  std::vector<std::vector<code_table>> c_tab, a_tab;
  size_t clean = 0;  ///< the block without missing calls (added with has_missing = false)
  int64_t variants() const {
    int64_t k = 0;
    for (int64_t s : sizes) k += s;
    return k;
  }
};

/// Blocks of the given sizes for n samples, 8 % missing except in block `clean`; the first is
/// adversarial (an all-missing and a monomorphic variant).
inline blocks make(int64_t n, const std::vector<int64_t>& sizes, size_t clean, uint64_t seed) {
  blocks b;
  b.n = n, b.sizes = sizes, b.clean = clean;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (size_t q = 0; q < sizes.size(); ++q) {
    b.g.push_back(test::random_genotypes(n, sizes[q], q == clean ? 0.0 : 0.08, seed + 40 + q, q == 0));
    b.c_tab.emplace_back(sizes[q]), b.a_tab.emplace_back(sizes[q]);
    for (int64_t l = 0; l < sizes[q]; ++l) {
      b.c_tab[q][l] = {u(rng), 0.0, u(rng), u(rng)};
      b.a_tab[q][l] = {u(rng), 0.0, u(rng), u(rng)};
    }
  }
  return b;
}

/// The cases every backend runs.
inline std::vector<blocks> every_case() {
  std::vector<blocks> c;
  c.push_back(make(1, {1, 4, 3}, 1, 1));
  c.push_back(make(5, {3, 1, 64}, 2, 2));
  c.push_back(make(77, {3, 250, 64, 129}, 1, 3));
  c.push_back(make(130, {1, 37, 700, 300}, 2, 4));
  return c;
}

/// Host outputs, initialised to nonzero values (S, N: 3; C: 0.25; a: -1), or S, N, C to garbage
/// (0x5a5a5a5a and NaN) for `uninitialised` runs.
struct outputs {
  std::vector<int32_t> S, N;
  std::vector<double> C, a;
  explicit outputs(int64_t n, bool garbage = false)
      : S(static_cast<size_t>(n * n), garbage ? 0x5a5a5a5a : 3), N(S),
        C(static_cast<size_t>(n * n), garbage ? std::nan("") : 0.25), a(static_cast<size_t>(n), -1.0) {}
};

/// Runs the op on `e` for the outputs in `which`, flushing after block `flush_after` (and at the
/// end); `residence` (when not null) receives the op's residence(). With `uninitialised`, S, N and
/// C start as garbage and the op is told so (sample_sums_outputs::uninitialised).
inline outputs run(const executor& e, const blocks& b, unsigned which, int flush_after = 1,
                   std::string* residence = nullptr, bool uninitialised = false) {
  outputs o(b.n, uninitialised);
  {
    sample_sums s(e, b.n,
                  {.S = which & want_S ? o.S.data() : nullptr, .N = which & want_N ? o.N.data() : nullptr,
                   .C = which & want_C ? o.C.data() : nullptr, .ld = b.n, .a = which & want_a ? o.a.data() : nullptr,
                   .uninitialised = uninitialised});
    if (residence) *residence = s.residence();
    for (size_t q = 0; q < b.g.size(); ++q) {
      s.add(b.g[q].view(), b.c_tab[q], b.a_tab[q], q != b.clean);
      if (static_cast<int>(q) == flush_after) s.flush();
    }
    s.flush();
  }
  return o;
}

/// The sums written out from the dosages (long double for C and a), with the same initial values.
struct naive_sums {
  std::vector<int64_t> S, N;
  std::vector<long double> C, a;
};
inline naive_sums naive(const blocks& b) {
  const int64_t n = b.n;
  naive_sums r{std::vector<int64_t>(n * n, 3), std::vector<int64_t>(n * n, 3), std::vector<long double>(n * n, 0.25L),
               std::vector<long double>(n, -1.0L)};
  for (size_t q = 0; q < b.g.size(); ++q)
    for (int64_t l = 0; l < b.sizes[q]; ++l)
      for (int64_t i = 0; i < n; ++i) {
        const uint8_t ci = b.g[q].view().code(i, l);
        const int xi = test::dosage(b.g[q], i, l);
        r.a[i] += b.a_tab[q][l][ci];
        for (int64_t j = 0; j <= i; ++j) {
          const uint8_t cj = b.g[q].view().code(j, l);
          const int xj = test::dosage(b.g[q], j, l);
          if (xi >= 0 && xj >= 0) r.S[i * n + j] += xi * xj, r.N[i * n + j] += 1;
          r.C[i * n + j] += static_cast<long double>(b.c_tab[q][l][ci]) * b.c_tab[q][l][cj];
        }
      }
  return r;
}

/// got == want for S and N (lower triangles; upper triangles still 3), C and a within
/// 1e-12 × (variants + 1) (|table entries| < 1.5), C's upper triangle still 0.25; outputs not in
/// `which` untouched.
template <class Want>
void expect_sums(const Want& want, const outputs& got, const blocks& b, unsigned which, const std::string& what) {
  const int64_t n = b.n;
  const double tol = 1e-12 * static_cast<double>(b.variants() + 1);
  for (int64_t i = 0; i < n; ++i) {
    if (which & want_a) {
      ASSERT_NEAR(got.a[i], static_cast<double>(want.a[i]), tol) << what << " a(" << i << ")";
    } else {
      ASSERT_EQ(got.a[i], -1.0) << what << ": a not requested";
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = i * n + j;
      const bool lower = j <= i;
      const std::string ij = "(" + std::to_string(i) + "," + std::to_string(j) + ")";
      if (lower && (which & want_S)) {
        ASSERT_EQ(got.S[at], want.S[at]) << what << " S" << ij;
      } else {
        ASSERT_EQ(got.S[at], 3) << what << " S" << ij << " untouched";
      }
      if (lower && (which & want_N)) {
        ASSERT_EQ(got.N[at], want.N[at]) << what << " N" << ij;
      } else {
        ASSERT_EQ(got.N[at], 3) << what << " N" << ij << " untouched";
      }
      if (lower && (which & want_C)) {
        ASSERT_NEAR(got.C[at], static_cast<double>(want.C[at]), tol) << what << " C" << ij;
      } else {
        ASSERT_EQ(got.C[at], 0.25) << what << " C" << ij << " untouched";
      }
    }
  }
}

inline std::string describe(const blocks& b, unsigned which) {
  return "n = " + std::to_string(b.n) + ", " + std::to_string(b.variants()) + " variants, outputs " +
         (which & want_S ? "S" : "") + (which & want_N ? "N" : "") + (which & want_C ? "C" : "") +
         (which & want_a ? "a" : "");
}

/// Every case and output subset on `e` against the reference backend.
inline void every_case_matches_reference(const executor& e) {
  for (const blocks& b : every_case())
    for (unsigned which : output_sets) {
      const outputs want = run(executor::reference(), b, which, -1);
      const outputs got = run(e, b, which);
      expect_sums(want, got, b, which, std::string(backend_name(e.kind())) + ": " + describe(b, which));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

/// Outputs that start as garbage with `uninitialised` set: the op zeroes S, N and C (whole rows)
/// before it adds, on every case and output subset: lower triangles equal the reference's sums
/// (which started from 3, 3 and 0.25) less those starting values, upper triangles 0; a as before.
inline void uninitialised_outputs_are_zeroed_first(const executor& e) {
  for (const blocks& b : every_case())
    for (unsigned which : output_sets) {
      const outputs want = run(executor::reference(), b, which, -1);
      const outputs got = run(e, b, which, 1, nullptr, true);
      const std::string what = std::string(backend_name(e.kind())) + ", uninitialised: " + describe(b, which);
      const int64_t n = b.n;
      const double tol = 1e-12 * static_cast<double>(b.variants() + 1);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_NEAR(got.a[i], want.a[i], tol) << what << " a(" << i << ")";
        for (int64_t j = 0; j < n; ++j) {
          const int64_t at = i * n + j;
          const bool lower = j <= i;
          const std::string ij = "(" + std::to_string(i) + "," + std::to_string(j) + ")";
          if (which & want_S) {
            ASSERT_EQ(got.S[at], lower ? want.S[at] - 3 : 0) << what << " S" << ij;
          }
          if (which & want_N) {
            ASSERT_EQ(got.N[at], lower ? want.N[at] - 3 : 0) << what << " N" << ij;
          }
          if (which & want_C) {
            ASSERT_NEAR(got.C[at], lower ? want.C[at] - 0.25 : 0.0, tol) << what << " C" << ij;
          }
        }
      }
    }
}

/// finish_gaussian_kernel on `e` (K in `K_memory`'s memory: host, or device through an
/// executor_array of that executor; S kept on the device only when `device_only`) against the definition written out from the dosages in long
/// double: K_ij = exp(−γ (Σ_l (x_il − x_jl)² + Σ_k (c_ik − c_jk)²)), blocks without missing calls,
/// with and without covariates; K exactly symmetric; a block with missing calls is refused.
inline void gaussian_kernel_matches_definition(const executor& e, const executor& K_memory, bool device_only = false) {
  for (int64_t n : {int64_t{1}, int64_t{33}, int64_t{130}}) {
    std::vector<packed_genotypes> g;
    for (int64_t k : {int64_t{3}, int64_t{700}, int64_t{64}}) g.push_back(test::random_genotypes(n, k, 0.0, 7 + n + k));
    std::vector<double> cov(static_cast<size_t>(n * 2));
    for (size_t i = 0; i < cov.size(); ++i) cov[i] = std::sin(1.7 * double(i) + 0.3);
    for (int64_t nc : {int64_t{0}, int64_t{2}}) {
      const double gamma = 1.0 / 700;
      const int64_t ld = n + 3;
      std::vector<int32_t> S(static_cast<size_t>(n * n), 0);
      executor_array<double> K(K_memory, static_cast<size_t>(n * ld));
      {
        sample_sums s(e, n, {.S = device_only ? nullptr : S.data(), .ld = n, .S_on_device_only = device_only});
        for (const packed_genotypes& b : g) s.add(b.view(), {}, {}, false);
        s.finish_gaussian_kernel(gamma, nc ? cov.data() : nullptr, nc, K.data(), ld);
      }
      std::vector<double> got(static_cast<size_t>(n * ld));
      K.copy_to_host(got.data(), 0, got.size());
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          long double d = 0;
          for (const packed_genotypes& b : g)
            for (int64_t l = 0; l < b.view().n_variants; ++l) {
              const int e2 = test::dosage(b, i, l) - test::dosage(b, j, l);
              d += e2 * e2;
            }
          for (int64_t k = 0; k < nc; ++k) {
            const long double c = static_cast<long double>(cov[i * nc + k]) - cov[j * nc + k];
            d += c * c;
          }
          const long double want = std::exp(-static_cast<long double>(gamma) * d);
          ASSERT_NEAR(got[i * ld + j], static_cast<double>(want), 1e-13 * static_cast<double>(want))
              << backend_name(e.kind()) << " n " << n << " nc " << nc << " (" << i << "," << j << ")";
          ASSERT_EQ(got[i * ld + j], got[j * ld + i]) << "symmetric";
        }
    }
  }
  // Missing calls make the integer distances inexact: refused by name.
  const int64_t n = 20;
  const packed_genotypes m = test::random_genotypes(n, 50, 0.1, 3);
  std::vector<int32_t> S(static_cast<size_t>(n * n), 0);
  executor_array<double> K(K_memory, static_cast<size_t>(n * n));
  sample_sums s(e, n, {.S = device_only ? nullptr : S.data(), .ld = n, .S_on_device_only = device_only});
  s.add(m.view(), {}, {}, true);
  try {
    s.finish_gaussian_kernel(0.1, nullptr, 0, K.data(), n);
    FAIL() << "missing calls accepted";
  } catch (const input_error& err) {
    EXPECT_NE(std::string(err.what()).find("missing calls"), std::string::npos) << err.what();
  }
}

}  // namespace pmx::sample_sums_cases
