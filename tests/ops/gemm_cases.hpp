// Test cases of the genotype × dense products shared by the cpu and cuda tests: random data with
// mixed magnitudes, and the normwise error bound of gemm_accuracy::normwise (genotype_gemm.hpp)
// computed in long double from the data.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "test_support.hpp"

namespace pmx::gemm_cases {

inline const double qnan = std::numeric_limits<double>::quiet_NaN();

struct data {
  int64_t n, k, l, ld_a, ld_b;
  packed_genotypes g;
  std::vector<double> p, s, lambda, lambda_t;
};

inline data make(int64_t n, int64_t k, int64_t l, double missing, bool observed_p, bool scaled, uint64_t seed) {
  data d{n, k, l, l + 2, l + 1, test::random_genotypes(n, k, missing, seed), {}, {}, {}, {}};
  std::mt19937_64 rng(seed * 7 + 1);
  std::uniform_real_distribution<double> u(-1, 1), up(-0.3, 1.3), us(0.2, 3);
  d.p.resize(k);
  for (int64_t j = 0; j < k; ++j) {
    if (observed_p) {
      int64_t sum = 0, called = 0;
      for (int64_t i = 0; i < n; ++i)
        if (int x = test::dosage(d.g, i, j); x >= 0) sum += x, ++called;
      d.p[j] = called ? sum / (2.0 * called) : 0.5;
    } else {
      d.p[j] = up(rng);
    }
  }
  if (scaled) {
    d.s.resize(k);
    for (auto& v : d.s) v = us(rng) * (rng() % 5 == 0 ? -1 : 1);
  }
  // Mixed magnitudes per row: a componentwise bound must hold for small entries too.
  d.lambda.assign(static_cast<size_t>(k * d.ld_a), qnan);  // padding columns are NaN: never read
  for (int64_t j = 0; j < k; ++j) {
    const double mag = j % 7 == 3 ? 1e-9 : 1.0;
    for (int64_t c = 0; c < l; ++c) d.lambda[j * d.ld_a + c] = mag * u(rng);
  }
  d.lambda_t.assign(static_cast<size_t>(n * d.ld_b), qnan);
  for (int64_t i = 0; i < n; ++i) {
    const double mag = i % 5 == 2 ? 1e6 : 1.0;
    for (int64_t c = 0; c < l; ++c) d.lambda_t[i * d.ld_b + c] = mag * u(rng);
  }
  return d;
}

inline long double z_of(const data& d, int64_t i, int64_t j) {
  const int x = test::dosage(d.g, i, j);
  if (x < 0) return 0;
  return (d.s.empty() ? 1.0L : d.s[j]) * (x - 2.0L * d.p[j]);
}

// The normwise bound (genotype_gemm.hpp) taken 4x looser, per output element:
//   Z·Λ:  1e-13·(|Y| + |βY0|) + 2^-52·M_c·(Σ_j X_ij + n_i),      M_c = max_j max(|s_jΛ_jc|, |2p_j s_jΛ_jc|)
//   Zᵀ·Λ̃: |s_j|·(1e-13·(|A| + |2p_j B|) + 2^-52·M_c·(Σ_i X_ij + |2p_j|·n_j)) + 1e-13·|βW0|,  M_c = max_i |Λ̃_ic|
struct normwise_bounds {
  std::vector<long double> y, w;
};

inline normwise_bounds bounds_normwise(const data& d, double beta, const std::vector<double>& Yr, const std::vector<double>& Y0,
                                int64_t ld_y, const std::vector<double>& W0, int64_t ld_w) {
  const long double tiny = std::ldexp(1.0L, -52);
  std::vector<long double> Mz(d.l, 0.0L), Mt(d.l, 0.0L);
  for (int64_t j = 0; j < d.k; ++j)
    for (int64_t c = 0; c < d.l; ++c) {
      const long double lam = (d.s.empty() ? 1.0L : d.s[j]) * d.lambda[j * d.ld_a + c];
      Mz[c] = std::max({Mz[c], std::fabs(lam), std::fabs(2.0L * d.p[j] * lam)});
    }
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t c = 0; c < d.l; ++c) Mt[c] = std::max(Mt[c], std::fabs((long double)d.lambda_t[i * d.ld_b + c]));
  std::vector<long double> sx_i(d.n, 0), called_i(d.n, 0), sx_j(d.k, 0), called_j(d.k, 0);
  std::vector<long double> A(d.k * d.l, 0), B(d.k * d.l, 0);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t j = 0; j < d.k; ++j) {
      const int x = test::dosage(d.g, i, j);
      if (x < 0) continue;
      sx_i[i] += x, called_i[i] += 1, sx_j[j] += x, called_j[j] += 1;
      for (int64_t c = 0; c < d.l; ++c) {
        A[j * d.l + c] += x * (long double)d.lambda_t[i * d.ld_b + c];
        B[j * d.l + c] += d.lambda_t[i * d.ld_b + c];
      }
    }
  normwise_bounds b;
  b.y.resize(d.n * d.l);
  b.w.resize(d.k * d.l);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t c = 0; c < d.l; ++c)
      b.y[i * d.l + c] = 1e-13L * (std::fabs((long double)Yr[i * ld_y + c]) + (beta != 0 ? std::fabs(beta * Y0[i * ld_y + c]) : 0)) +
                         tiny * Mz[c] * (sx_i[i] + called_i[i]);
  for (int64_t j = 0; j < d.k; ++j) {
    const long double s = d.s.empty() ? 1.0L : std::fabs((long double)d.s[j]), two_p = std::fabs(2.0L * d.p[j]);
    for (int64_t c = 0; c < d.l; ++c)
      b.w[j * d.l + c] = s * (1e-13L * (std::fabs(A[j * d.l + c]) + two_p * std::fabs(B[j * d.l + c])) +
                              tiny * Mt[c] * (sx_j[j] + two_p * called_j[j])) +
                         (beta != 0 ? 1e-13L * std::fabs(beta * W0[j * ld_w + c]) : 0.0L);
  }
  return b;
}

inline void expect_within(const std::vector<double>& got, const std::vector<double>& want, const std::vector<long double>& bound,
                   int64_t rows, int64_t l, int64_t ld, const std::string& what) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < l; ++c) {
      const double g = got[r * ld + c], w = want[r * ld + c];
      ASSERT_FALSE(std::isnan(g)) << what << " (" << r << "," << c << ")";
      ASSERT_LE(std::fabs(static_cast<long double>(g) - w), bound[r * l + c])
          << what << " (" << r << "," << c << ") got " << g << " want " << w;
    }
    for (int64_t c = l; c < ld; ++c)
      ASSERT_EQ(std::memcmp(&got[r * ld + c], &want[r * ld + c], 8), 0) << what << " padding (" << r << "," << c << ")";
  }
}

// One normwise case: Y0, W0 random (β ≠ 0) or NaN (β = 0), the reference backend's results, then
// `products(beta, Y, ld_y, W, ld_w)` (the products under test, into the host vectors Y, W that
// start as Y0, W0), checked against the bound.
template <class Products>
void check_normwise_case(const data& d, double beta, const std::string& what, Products products) {
  const executor ref = executor::reference();
  const gemm_centring c{d.p, d.s};
  const int64_t ld_y = d.l + 1, ld_w = d.l + 2;
  std::mt19937_64 rng(d.n * 13 + d.k);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> Y0(static_cast<size_t>(d.n * ld_y)), W0(static_cast<size_t>(d.k * ld_w));
  for (auto& v : Y0) v = beta != 0 ? u(rng) : qnan;
  for (auto& v : W0) v = beta != 0 ? u(rng) : qnan;
  std::vector<double> Yr = Y0, Wr = W0, Yc = Y0, Wc = W0;
  gemm(ref, d.g.view(), c, d.l, d.lambda.data(), d.ld_a, beta, Yr.data(), ld_y);
  gemm_transposed(ref, d.g.view(), c, d.l, d.lambda_t.data(), d.ld_b, beta, Wr.data(), ld_w);
  products(beta, Yc, ld_y, Wc, ld_w);
  const std::string tag = what + " n=" + std::to_string(d.n) + " k=" + std::to_string(d.k) + " l=" +
                          std::to_string(d.l) + (beta != 0 ? " beta" : " beta=0") + (d.s.empty() ? "" : " scaled");
  const normwise_bounds b = bounds_normwise(d, beta, Yr, Y0, ld_y, W0, ld_w);
  expect_within(Yc, Yr, b.y, d.n, d.l, ld_y, "Z*L " + tag);
  expect_within(Wc, Wr, b.w, d.k, d.l, ld_w, "Zt*L " + tag);
}

}  // namespace pmx::gemm_cases
