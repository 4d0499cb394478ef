// Pieces shared by the linear and logistic association regressions (regression_parts.hpp).
#include "stats/association/regression_parts.hpp"

#include <algorithm>
#include <bit>  // countr_zero
#include <cmath>
#include <cstring>

#include "panoramix/error.hpp"
#include "panoramix/ops/genotype_gemm.hpp"

namespace pmx::detail {
namespace {
constexpr double max_corr = 0.999;  // plink2's --max-corr default
constexpr double max_vif = 50;      // plink2's --vif default
}  // namespace

bool invert_spd(std::vector<double>& a, int P) {
  for (int k = 0; k < P; ++k) {
    const double d = a[k * P + k];
    if (!(d > 0)) return false;
    const double inv = 1 / d;
    for (int j = 0; j < P; ++j) a[k * P + j] *= inv;
    a[k * P + k] = inv;
    for (int i = 0; i < P; ++i) {
      if (i == k) continue;
      const double f = a[i * P + k];
      if (f == 0) continue;
      for (int j = 0; j < P; ++j) a[i * P + j] -= f * a[k * P + j];
      a[i * P + k] = -f * inv;
    }
  }
  return true;
}

regression_design make_regression_design(std::span<const double> y, const double* c, int64_t q) {
  regression_design d;
  d.n = static_cast<int64_t>(y.size()), d.q = q, d.l = q + 2;
  d.in.assign(static_cast<size_t>(d.n), 0);
  for (int64_t i = 0; i < d.n; ++i) {
    bool ok = std::isfinite(y[i]);
    for (int64_t k = 0; k < q && ok; ++k) ok = std::isfinite(c[i * q + k]);
    if (ok) d.in[i] = 1, d.kept.push_back(i);
  }
  d.kept_low_bits.assign(static_cast<size_t>((d.n + 31) / 32), 0);
  for (int64_t i : d.kept) d.kept_low_bits[i / 32] |= uint64_t{1} << (2 * (i % 32));
  const auto ns = static_cast<int64_t>(d.kept.size());
  if (ns < q + 3)
    throw input_error("--glm: " + std::to_string(ns) + " samples have the phenotype and every covariate; at least " +
                      std::to_string(q + 3) + " are needed for " + std::to_string(q) + " covariate(s)");
  std::vector<double> mean(static_cast<size_t>(q + 1), 0.0);  // covariates, then y
  for (int64_t i : d.kept) {
    for (int64_t k = 0; k < q; ++k) mean[k] += c[i * q + k];
    mean[q] += y[i];
  }
  for (double& m : mean) m /= double(ns);
  d.y_mean = mean[q];
  d.rows.assign(static_cast<size_t>(d.n * d.l), 0.0);
  for (int64_t i : d.kept) {
    double* r = d.rows.data() + i * d.l;
    r[0] = 1;
    for (int64_t k = 0; k < q; ++k) r[1 + k] = c[i * q + k] - mean[k];
    r[q + 1] = y[i] - mean[q];
  }
  d.gram.assign(static_cast<size_t>(d.l * d.l), 0.0);
  for (int64_t i : d.kept) {
    const double* r = d.rows.data() + i * d.l;
    for (int64_t a = 0; a < d.l; ++a)
      for (int64_t b = 0; b < d.l; ++b) d.gram[a * d.l + b] += r[a] * r[b];
  }
  if (!(d.gram[d.l * d.l - 1] > 0))
    throw input_error("--glm: the phenotype is constant over the samples with covariates");
  return d;
}

void for_each_product_block(const executor& exec, const genotype_source& data, const regression_design& d,
                            progress_sink* progress, const product_block_fit& fit) {
  const int64_t m = data.n_variants(), l = d.l;
  constexpr int64_t block = 8192;
  std::vector<double> W;
  std::vector<variant_counts> counts;
  const std::vector<double> zero_p(static_cast<size_t>(block), 0.0);
  for (int64_t first = 0; first < m; first += block) {
    const int64_t count = std::min(block, m - first);
    packed_genotypes copy;
    const variant_major_view g = data.block(first, count, copy);
    // p = 0 and no scale: the plain ALT copies, 0 where a call is missing.
    W.resize(static_cast<size_t>(count * l));
    gemm_transposed(exec, g, {std::span<const double>(zero_p.data(), static_cast<size_t>(count)), {}}, l, d.rows.data(),
                    l, 0.0, W.data(), l);
    counts.resize(static_cast<size_t>(count));
    allele_counts(exec.host(), g, d.in, counts);  // popcounts on the host (the product uploads the block itself)
    fit(first, count, g, W.data(), counts.data());
    report(progress, "association", double(first + count) / double(m));
  }
}

void variant_normal_equations(const regression_design& d, const uint8_t* calls, const double* W,
                              const variant_counts& counts, variant_gram& g) {
  const int64_t q = d.q, l = d.l;
  const int P = static_cast<int>(q + 2);
  // Σx and Σx² from the counts (x = 2 for code 00, 1 for 10, 0 for 11); the rows of the kept
  // samples without a call taken out of the covariate sums, in increasing sample order, found 32
  // calls a 64-bit word (low bit set, high bit clear).
  g.called = counts.called(), g.sum_x = counts.a1_copies(), g.sum_x2 = 4 * counts.hom_a1 + counts.het;
  g.miss.assign(static_cast<size_t>(l * l), 0.0);
  if (counts.missing > 0) {
    constexpr uint64_t low = 0x5555555555555555ull;
    const int64_t bytes = (d.n + 3) / 4, words = static_cast<int64_t>(d.kept_low_bits.size());
    for (int64_t w = 0; w < words; ++w) {
      uint64_t v = 0;
      std::memcpy(&v, calls + 8 * w, static_cast<size_t>(std::min<int64_t>(8, bytes - 8 * w)));
      uint64_t miss = v & ~(v >> 1) & low & d.kept_low_bits[w];
      while (miss) {
        const int64_t i = 32 * w + std::countr_zero(miss) / 2;
        const double* r = d.rows.data() + i * l;
        for (int64_t a = 0; a < l; ++a)
          for (int64_t b = 0; b <= a; ++b) g.miss[a * l + b] += r[a] * r[b];
        miss &= miss - 1;
      }
    }
  }
  auto gram = [&](int64_t a, int64_t b) { return d.gram[a * l + b] - g.miss[std::max(a, b) * l + std::min(a, b)]; };
  // Normal equations in the order intercept, x, covariates; b the right-hand side.
  g.A.assign(static_cast<size_t>(P * P), 0.0);
  g.b.assign(static_cast<size_t>(P), 0.0);
  auto at = [&](int i, int j) -> double& { return g.A[i * P + j]; };
  at(0, 0) = double(g.called);
  at(0, 1) = at(1, 0) = W[0];
  at(1, 1) = double(g.sum_x2);
  for (int64_t k = 0; k < q; ++k) {
    at(0, 2 + k) = at(2 + k, 0) = gram(0, 1 + k);
    at(1, 2 + k) = at(2 + k, 1) = W[1 + k];
    for (int64_t k2 = 0; k2 < q; ++k2) at(2 + k, 2 + k2) = gram(1 + k, 1 + k2);
  }
  g.b[0] = gram(0, q + 1);
  g.b[1] = W[q + 1];
  for (int64_t k = 0; k < q; ++k) g.b[2 + k] = gram(1 + k, q + 1);
  g.yy = gram(q + 1, q + 1);
}

glm_error screen_predictors(const variant_gram& g, int P, std::vector<double>& corr) {
  if (g.called - P < 1) return glm_error::too_few_samples;
  if (g.called * g.sum_x2 == g.sum_x * g.sum_x) return glm_error::const_omitted_allele;
  // plink2's multicollinearity checks on the predictors other than the intercept: correlations,
  // then variance inflation factors (the diagonal of the inverse correlation matrix).
  if (P <= 2) return glm_error::none;
  const int Q = P - 1;
  auto at = [&](int i, int j) { return g.A[i * P + j]; };
  corr.assign(static_cast<size_t>(Q * Q), 0.0);
  const double nj = double(g.called);
  for (int u = 0; u < Q; ++u)
    for (int v = 0; v < Q; ++v) corr[u * Q + v] = at(1 + u, 1 + v) - at(0, 1 + u) * at(0, 1 + v) / nj;
  std::vector<double> sd(static_cast<size_t>(Q));
  for (int u = 0; u < Q; ++u) sd[u] = std::sqrt(std::max(corr[u * Q + u], 0.0));
  for (int u = 0; u < Q; ++u)
    for (int v = 0; v < Q; ++v) {
      if (sd[u] == 0 || sd[v] == 0) return glm_error::vif_too_high;
      corr[u * Q + v] /= sd[u] * sd[v];
      if (u != v && std::fabs(corr[u * Q + v]) > max_corr) return glm_error::corr_too_high;
    }
  if (!invert_spd(corr, Q)) return glm_error::vif_too_high;
  for (int u = 0; u < Q; ++u)
    if (corr[u * Q + u] > max_vif) return glm_error::vif_too_high;
  return glm_error::none;
}

}  // namespace pmx::detail
