// GRM assembly from the ops: stream variant blocks, accumulate n×n sums, finish in double.
#include "panoramix/grm.hpp"

#include <algorithm>
#include <cmath>

#include "panoramix/error.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/ops/table_products.hpp"

namespace pmx {

double grm_frequency(double a1_freq) { return std::isnan(a1_freq) ? 0.5 : a1_freq; }

namespace {

template <class T>
void mirror_lower(std::vector<T>& a, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) a[i * n + j] = a[j * n + i];
}

// Pair counts N for one block: n_block everywhere when nothing is missing, else a popcount pass.
void add_pair_counts(const executor& exec, const packed_genotypes& block, int64_t block_missing,
                     std::vector<int32_t>& N, int64_t n) {
  if (block_missing == 0) {
    const auto k = static_cast<int32_t>(block.n_variants());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) N[i * n + j] += k;
    return;
  }
  const packed_rows t = transpose_to_sample_major(block.view(), exec.threads());
  crossprod_symmetric(exec, t.view(), {.N = N.data(), .ld = n});
}

}  // namespace

grm_result compute_grm(const executor& exec, const plink_fileset& data, const grm_options& opt,
                       progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  if (m == 0) throw input_error("no variants left for the GRM (after X/Y/MT and --extract)");
  if (4 * m >= (int64_t{1} << 31)) throw unsupported_error("more than 500 M variants: int32 sums overflow");
  frequency_options fo;
  fo.nonfounders = opt.nonfounders;
  fo.chromosomes = opt.chromosomes;
  const auto freqs = compute_allele_frequencies(exec, data, fo, progress);

  grm_result res;
  res.n = n;
  res.n_variants = m;
  res.a1_freq.resize(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) res.a1_freq[j] = grm_frequency(freqs.a1[j]);
  const bool counts = opt.pair_counts || opt.method == grm_method::standardized;
  if (counts) res.N.assign(static_cast<size_t>(n * n), 0);
  res.G.assign(static_cast<size_t>(n * n), 0.0);

  // Per-variant tables of z by .bed code {hom A1, missing, het, hom A2}.
  std::vector<code_table> z(static_cast<size_t>(m));
  double denom_vr = 0;  // 2 Σ p(1-p)
  for (int64_t j = 0; j < m; ++j) {
    const double p = res.a1_freq[j], q = 2 * p;
    const double s = (p > 0 && p < 1) ? 1 / std::sqrt(2 * p * (1 - p)) : 0.0;
    if (opt.method == grm_method::standardized) z[j] = {(2 - q) * s, 0.0, (1 - q) * s, -q * s};
    else z[j] = {2 - q, 0.0, 1 - q, -q};
    denom_vr += 2 * p * (1 - p);
  }

  std::vector<int32_t> S;
  std::vector<double> W, R, a;
  std::vector<code_table> rowsum_table, w_table;
  std::vector<double> r_q2;
  double qq = 0;
  if (opt.method == grm_method::vanraden) {
    S.assign(static_cast<size_t>(n * n), 0);
    a.assign(static_cast<size_t>(n), 0.0);
    rowsum_table.resize(static_cast<size_t>(m));
    w_table.resize(static_cast<size_t>(m));
    r_q2.resize(static_cast<size_t>(m));
    for (int64_t j = 0; j < m; ++j) {
      const double q = 2 * res.a1_freq[j];
      rowsum_table[j] = {2 * q, 0.0, q, 0.0};  // a_i = Σ_l x_il q_l over called
      for (int c = 0; c < 4; ++c) w_table[j][c] = q * z[j][c];
      r_q2[j] = q * q;
      qq += q * q;
    }
    if (freqs.total_missing() > 0) {
      W.assign(static_cast<size_t>(n * n), 0.0);
      R.assign(static_cast<size_t>(n * n), 0.0);
    }
  }

  // The CUDA ops return their n×n sums to the host on every call, so on cuda the blocks grow
  // until the 2-bit block reaches ~1 GiB: fewer n×n downloads per GRM.
  int64_t block = opt.block_variants;
  if (exec.kind() == backend::cuda)
    block = std::max(block, std::min<int64_t>(m, (int64_t{1} << 32) / std::max<int64_t>(n, 1)));
  for (int64_t first = 0; first < m; first += block) {
    const int64_t count = std::min(block, m - first);
    const packed_genotypes block = data.read_block(first, count);
    int64_t block_missing = 0;
    for (int64_t j = first; j < first + count; ++j) block_missing += freqs.missing_all[j];
    const auto zs = std::span<const code_table>(z).subspan(first, count);
    if (opt.method == grm_method::standardized) {
      table_crossprod(exec, block.view(), zs, res.G.data(), n);
      add_pair_counts(exec, block, block_missing, res.N, n);
    } else {
      // Z Zᵀ = S − a1ᵀ − 1aᵀ + (qᵀq)11ᵀ + W + Wᵀ − R   (S exact; see DESIGN.md §3 / grm.hpp)
      const packed_rows t = transpose_to_sample_major(block.view(), exec.threads());
      crossprod_symmetric(exec, t.view(),
                          {.S = S.data(), .N = counts && block_missing ? res.N.data() : nullptr, .ld = n});
      if (counts && !block_missing)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j <= i; ++j) res.N[i * n + j] += static_cast<int32_t>(count);
      table_rowsums(exec, block.view(), std::span<const code_table>(rowsum_table).subspan(first, count), a);
      if (block_missing)
        missing_crossprod(exec, block.view(), std::span<const code_table>(w_table).subspan(first, count),
                          std::span<const double>(r_q2).subspan(first, count), W.data(), R.data(), n);
    }
    report(progress, "relationship matrix", double(first + count) / double(m));
  }

  if (opt.method == grm_method::standardized) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) res.G[i * n + j] /= res.N[i * n + j];
  } else {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        double v = double(S[i * n + j]) - a[i] - a[j] + qq;
        if (!W.empty()) v += W[j * n + i] + W[i * n + j] - R[i * n + j];
        res.G[i * n + j] = v / denom_vr;
      }
  }
  mirror_lower(res.G, n);
  if (counts) mirror_lower(res.N, n);
  if (!opt.pair_counts) res.N.clear();
  return res;
}

}  // namespace pmx
