// Genotypes and code tables for the tests of the integer routes of the weighted (standardised GRM)
// products: the CPU's AMX route (test_grm_amx.cpp), the plan of the cuda int8 route
// (test_grm_integer_weights.cpp) and the cuda route itself (test_cuda_grm_int8.cpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "panoramix/ops/table_products.hpp"
#include "panoramix/plink_write.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "test_support.hpp"

namespace pmx::integer_route_cases {

enum class tables_kind { standardized, vanraden, wide_affine };

inline std::vector<code_table> make_tables(const packed_genotypes& g, tables_kind kind, uint64_t seed) {
  const int64_t n = g.n_samples(), k = g.n_variants();
  std::vector<code_table> t(k);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t l = 0; l < k; ++l) {
    double sum = 0, cnt = 0;
    for (int64_t i = 0; i < n; ++i)
      if (test::dosage(g, i, l) >= 0) sum += test::dosage(g, i, l), cnt += 2;
    const double p = cnt > 0 ? sum / cnt : 0.5, q = 2 * p;
    if (kind == tables_kind::standardized) {
      const double s = (p > 0 && p < 1) ? 1 / std::sqrt(2 * p * (1 - p)) : 0.0;
      t[l] = {(2 - q) * s, 0.0, (1 - q) * s, -q * s};
    } else if (kind == tables_kind::vanraden) {
      t[l] = {2 - q, 0.0, 1 - q, -q};
    } else {  // z = a + b·x with |b| from 2^-12 to 2^12 and a of either sign
      const double b = std::ldexp(u(rng), static_cast<int>(rng() % 25) - 12), a = 3 * u(rng);
      t[l] = {a + 2 * b, 0.0, a + b, a};
    }
  }
  return t;
}

// Genotypes with rare variants (a few carriers), monomorphic ones, all-missing variants and
// samples missing everywhere on top of test::random_genotypes.
inline packed_genotypes make_genotypes(int64_t n, int64_t k, double missing, uint64_t seed) {
  packed_genotypes g = test::random_genotypes(n, k, missing, seed);
  std::mt19937_64 rng(seed + 1);
  for (int64_t l = 2; l < k; l += 7)  // rare: one or two carriers
    for (int64_t i = 0; i < n; ++i)
      if (g.view().code(i, l) != code_missing) g.set(i, l, i == l % n || i == (3 * l) % n ? code_het : code_hom_a2);
  for (int64_t l = 3; l < k; l += 11)  // rare the other way round (A1 common)
    for (int64_t i = 0; i < n; ++i)
      if (g.view().code(i, l) != code_missing) g.set(i, l, i == (5 * l) % n ? code_het : code_hom_a1);
  if (n >= 5)
    for (int64_t l = 0; l < k; ++l) g.set(n / 2, l, code_missing);  // a sample with no call
  return g;
}


/// make_genotypes without missing calls (theirs become homozygous A2): the data of the int8 route,
/// which serves blocks without missing calls.
inline packed_genotypes make_called_genotypes(int64_t n, int64_t k, uint64_t seed) {
  packed_genotypes g = make_genotypes(n, k, 0.0, seed);
  for (int64_t l = 0; l < k; ++l)
    for (int64_t i = 0; i < n; ++i)
      if (g.view().code(i, l) == code_missing) g.set(i, l, code_hom_a2);
  return g;
}

/// The genotypes as a PLINK fileset at `prefix` (samples s0.., variants v0.. on chromosome 1).
inline void write_fileset(const std::string& prefix, const packed_genotypes& g) {
  const int64_t n = g.n_samples(), k = g.n_variants();
  std::vector<sample_record> s(n);
  for (int64_t i = 0; i < n; ++i) s[i] = {"f", "s" + std::to_string(i), "0", "0", 1, "-9"};
  std::vector<variant_record> v(k);
  for (int64_t l = 0; l < k; ++l) v[l] = {"1", "v" + std::to_string(l), 0, 100 * l + 1, "A", "C"};
  write_plink_fileset(prefix, s, v, g.view());
}

/// PLINK's standardised GRM (--make-rel: pairwise called variants) written out in long double;
/// NaN where a pair has no jointly called variant.
inline std::vector<long double> standardized_grm(const packed_genotypes& g) {
  const int64_t n = g.n_samples(), k = g.n_variants();
  std::vector<long double> p(k), G(n * n);
  for (int64_t l = 0; l < k; ++l) {
    long double tot = 0, c2 = 0;
    for (int64_t m = 0; m < n; ++m)
      if (test::dosage(g, m, l) >= 0) tot += test::dosage(g, m, l), c2 += 2;
    p[l] = c2 > 0 ? tot / c2 : 0.5L;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      long double sum = 0, cnt = 0;
      for (int64_t l = 0; l < k; ++l) {
        const int a = test::dosage(g, i, l), b = test::dosage(g, j, l);
        if (a < 0 || b < 0) continue;
        cnt += 1;
        if (p[l] > 0 && p[l] < 1) sum += (a - 2 * p[l]) * (b - 2 * p[l]) / (2 * p[l] * (1 - p[l]));
      }
      G[i * n + j] = cnt == 0 ? std::nanl("") : sum / cnt;
    }
  return G;
}

}  // namespace pmx::integer_route_cases
