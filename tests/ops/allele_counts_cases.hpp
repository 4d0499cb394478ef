// Test cases of allele_counts shared by every backend's tests (test_allele_counts.cpp: reference
// and cpu; test_cuda_allele_counts.cpp: cuda): shapes around multiples of 4/16/32/64 calls, one
// sample, one variant, all-missing and monomorphic variants, sample masks (none, some, none
// included, one included) and rows with garbage in their padding. Each backend must give the
// reference's counts exactly; the reference is checked against counts made from the dosages.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "test_support.hpp"

namespace pmx::allele_counts_cases {

inline const std::vector<int64_t> sample_sizes = {1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 301, 1000};
inline const std::vector<int64_t> variant_sizes = {1, 5, 33, 130};

/// Counts from the dosages of test_support (independent of the op's code paths).
inline std::vector<variant_counts> by_dosage(const packed_genotypes& g, std::span<const uint8_t> mask) {
  std::vector<variant_counts> out(static_cast<size_t>(g.n_variants()));
  for (int64_t j = 0; j < g.n_variants(); ++j)
    for (int64_t i = 0; i < g.n_samples(); ++i) {
      if (!mask.empty() && !mask[i]) continue;
      switch (test::dosage(g, i, j)) {
        case 2: ++out[j].hom_a1; break;
        case 1: ++out[j].het; break;
        case 0: ++out[j].hom_a2; break;
        default: ++out[j].missing;
      }
    }
  return out;
}

/// The sample masks of a case: none (all samples), every third excluded, none included, one included.
inline std::vector<std::vector<uint8_t>> masks(int64_t n) {
  std::vector<std::vector<uint8_t>> m(4);
  m[1].resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) m[1][i] = (i * 7) % 3 != 0;
  m[2].assign(static_cast<size_t>(n), 0);
  m[3].assign(static_cast<size_t>(n), 0);
  m[3][static_cast<size_t>(n - 1)] = 1;
  return m;
}

/// The rows of g copied with `extra` bytes of padding per row, the padding and the unused calls of
/// each row's last byte filled with nonzero garbage (a view must ignore them). Returns the bytes.
inline std::vector<uint8_t> padded_copy(const packed_genotypes& g, int64_t extra) {
  const int64_t used = (g.n_samples() + 3) / 4, rb = g.row_bytes() + extra;
  std::vector<uint8_t> bytes(static_cast<size_t>(rb * g.n_variants()), 0xA7);
  for (int64_t j = 0; j < g.n_variants(); ++j) {
    std::copy_n(g.row(j), used, bytes.data() + j * rb);
    if (const int tail = static_cast<int>(g.n_samples() & 3))
      bytes[j * rb + used - 1] |= static_cast<uint8_t>(0xFF << (2 * tail));
  }
  return bytes;
}

/// `e` gives the reference's counts on view v with mask m.
inline void expect_matches_reference(const executor& e, const variant_major_view& v, std::span<const uint8_t> m,
                                     const std::string& what) {
  std::vector<variant_counts> want(static_cast<size_t>(v.n_variants)), got(want.size(), variant_counts{-1, -1, -1, -1});
  allele_counts(executor::reference(), v, m, want);
  allele_counts(e, v, m, got);
  ASSERT_EQ(want, got) << backend_name(e.kind()) << ": " << what;
}

/// Every case on `e` against the reference.
inline void every_case(const executor& e) {
  for (int64_t n : sample_sizes)
    for (int64_t k : variant_sizes) {
      const auto g = test::random_genotypes(n, k, 0.1, 7 * n + k);
      const auto ms = masks(n);
      for (size_t q = 0; q < ms.size(); ++q)
        expect_matches_reference(e, g.view(), ms[q], std::to_string(n) + "x" + std::to_string(k) + " mask " +
                                                         std::to_string(q));
      if (::testing::Test::HasFatalFailure()) return;
      const auto bytes = padded_copy(g, 5);
      const variant_major_view padded{bytes.data(), n, k, g.row_bytes() + 5};
      expect_matches_reference(e, padded, ms[1], std::to_string(n) + "x" + std::to_string(k) + " padded rows");
      if (::testing::Test::HasFatalFailure()) return;
    }
}

}  // namespace pmx::allele_counts_cases
