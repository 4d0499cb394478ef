// CPU kernels for products of table-decoded genotypes.
//
// table_crossprod decodes a panel of variants (a few hundred at a time, so the panel stays in
// cache-sized memory and the genotype matrix is never inflated whole) and hands it to OpenBLAS
// dsyrk: the weights differ per variant, so the product is genuinely floating point, and a tuned
// SYRK beats a hand-written loop here.
#include <cblas.h>

#include <algorithm>
#include <vector>

#include "ops/table_products/kernels.hpp"

namespace pmx::kernels::cpu {
namespace {

inline uint8_t code_at(const uint8_t* row, int64_t i) { return (row[i >> 2] >> (2 * (i & 3))) & 3; }

// Variants per decoded panel: large enough for dsyrk efficiency, small enough for cache.
int64_t panel_width(int64_t n) { return std::clamp<int64_t>((int64_t{1} << 22) / std::max<int64_t>(n, 1), 64, 512); }

// Per-variant lists of missing samples, read with popcount-style scanning of the code words.
std::vector<std::vector<int64_t>> missing_by_variant(const variant_major_view& g, int threads) {
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(g.n_variants));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t l = 0; l < g.n_variants; ++l) {
    const uint8_t* row = g.row(l);
    for (int64_t i = 0; i < g.n_samples; ++i)
      if (code_at(row, i) == code_missing) out[l].push_back(i);
  }
  return out;
}

}  // namespace

void table_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> t,
                     double* C, int64_t ld) {
  const int64_t n = g.n_samples, k = g.n_variants;
  if (n == 0 || k == 0) return;
  const int64_t b = panel_width(n);
  std::vector<double> Z(static_cast<size_t>(n * b));
  openblas_set_num_threads(exec.threads());
  for (int64_t l0 = 0; l0 < k; l0 += b) {
    const int64_t bl = std::min(b, k - l0);
#pragma omp parallel for schedule(static) num_threads(exec.threads())
    for (int64_t i0 = 0; i0 < n; i0 += 256) {
      const int64_t i1 = std::min(n, i0 + 256);
      for (int64_t l = 0; l < bl; ++l) {
        const uint8_t* row = g.row(l0 + l);
        const code_table& tl = t[l0 + l];
        for (int64_t i = i0; i < i1; ++i) Z[i * bl + l] = tl[code_at(row, i)];
      }
    }
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, static_cast<int>(n), static_cast<int>(bl), 1.0,
                Z.data(), static_cast<int>(bl), 1.0, C, static_cast<int>(ld));
  }
}

void table_rowsums(const executor& exec, const variant_major_view& g, std::span<const code_table> t,
                   std::span<double> y) {
  const int64_t n = g.n_samples;
#pragma omp parallel for schedule(static) num_threads(exec.threads())
  for (int64_t i0 = 0; i0 < n; i0 += 256) {
    const int64_t i1 = std::min(n, i0 + 256);
    for (int64_t l = 0; l < g.n_variants; ++l) {
      const uint8_t* row = g.row(l);
      for (int64_t i = i0; i < i1; ++i) y[i] += t[l][code_at(row, i)];
    }
  }
}

void missing_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> t,
                       std::span<const double> r, double* Y, double* R, int64_t ld) {
  const int64_t n = g.n_samples;
  const auto by_variant = missing_by_variant(g, exec.threads());
  std::vector<std::vector<int64_t>> by_sample(static_cast<size_t>(n));
  for (int64_t l = 0; l < g.n_variants; ++l)
    for (int64_t j : by_variant[l]) by_sample[j].push_back(l);
#pragma omp parallel for schedule(dynamic, 16) num_threads(exec.threads())
  for (int64_t j = 0; j < n; ++j) {
    double* yj = Y + j * ld;
    for (int64_t l : by_sample[j]) {
      const uint8_t* row = g.row(l);
      const code_table& tl = t[l];
      for (int64_t i = 0; i < n; ++i) yj[i] += tl[code_at(row, i)];
      for (int64_t i : by_variant[l])
        if (i >= j) R[i * ld + j] += r[l];
    }
  }
}

}  // namespace pmx::kernels::cpu
