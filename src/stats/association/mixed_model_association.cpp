// Exact mixed-model association per variant, GEMMA -lmm 1 (mixed_model_association.hpp).
#include "panoramix/mixed_model_association.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/stage_clock.hpp"
#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/ops/lmm_search.hpp"

namespace pmx {
namespace {

constexpr double na = std::numeric_limits<double>::quiet_NaN();
constexpr double eigen_zero = 1e-10;    // GEMMA's EigenDecomp_Zeroed
constexpr int64_t product_doubles = int64_t(1) << 25;  // 256 MB of rotated genotypes per block

}  // namespace

const char* lmm_error_name(lmm_error e) {
  switch (e) {
    case lmm_error::none:
      return ".";
    case lmm_error::constant_genotype:
      return "CONST_GENOTYPE";
    case lmm_error::collinear_with_covariates:
      return "CORR_WITH_COVAR";
    case lmm_error::lambda_not_found:
      return "LAMBDA_NOT_FOUND";
  }
  return "?";
}

namespace {

// The samples a trait's fit uses: phenotype, every covariate and a row of K.
std::vector<int64_t> analysed_samples(std::span<const double> y, const double* covariates, int64_t q, const double* K,
                                      int64_t n) {
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < n; ++i) {
    bool ok = std::isfinite(y[i]) && std::isfinite(K[i * n + i]);
    for (int64_t k = 0; k < q && ok; ++k) ok = std::isfinite(covariates[i * q + k]);
    if (ok) kept.push_back(i);
  }
  return kept;
}

// K over the analysed samples, its eigenvalues (|d| < 1e-10 set to 0, as GEMMA) and eigenvectors
// U (column-major).
void decompose(const executor& exec, const genotype_source& data, const double* K, const std::vector<int64_t>& kept,
               std::vector<double>& d, std::vector<double>& U) {
  const int64_t n = data.n_samples(), ns = static_cast<int64_t>(kept.size());
  std::vector<double> Kk(static_cast<size_t>(ns * ns));
  int64_t bad = -1;  // a row with a non-finite entry
#pragma omp parallel for schedule(static) num_threads(exec.threads())
  for (int64_t a = 0; a < ns; ++a) {
    const double* from = K + kept[a] * n;
    double* to = Kk.data() + a * ns;
    bool finite = true;
    for (int64_t b = 0; b < ns; ++b) finite &= std::isfinite(to[b] = from[kept[b]]);
    if (!finite) {
#pragma omp critical
      bad = bad < 0 ? a : std::min(bad, a);
    }
  }
  if (bad >= 0) {
    int64_t b = 0;
    while (std::isfinite(Kk[bad * ns + b])) ++b;
    throw input_error("--lmm: the relationship matrix entry of samples '" + data.sample(kept[bad]).iid + "' and '" +
                      data.sample(kept[b]).iid + "' is not a number");
  }
  d.resize(static_cast<size_t>(ns));
  U.resize(static_cast<size_t>(ns * ns));
  symmetric_eigen(exec, ns, Kk.data(), ns, ns, d.data(), U.data(), ns);
  for (double& v : d)
    if (std::fabs(v) < eigen_zero) v = 0;
}

// One trait's shared pieces: rotated [W | y] and its null model (into r.null), as the op's operand.
lmm_search_operand prepare_trait(const executor& exec, std::span<const double> y, const double* covariates, int64_t q,
                                 const std::vector<int64_t>& kept, const std::vector<double>& d,
                                 const std::vector<double>& U, lmm_association& r) {
  const auto ns = static_cast<int64_t>(kept.size());
  const int c = static_cast<int>(q + 1);
  std::vector<double> Wy(static_cast<size_t>(ns * (c + 1)));
  for (int64_t a = 0; a < ns; ++a) {
    const int64_t i = kept[a];
    Wy[a] = 1.0;
    for (int64_t k = 0; k < q; ++k) Wy[(1 + k) * ns + a] = covariates[i * q + k];
    Wy[c * ns + a] = y[i];
  }
  std::vector<double> Wyt(Wy.size());
  dense_gemm(exec.host(), true, false, ns, c + 1, ns, 1.0, U.data(), ns, Wy.data(), ns, 0.0, Wyt.data(), ns);
  lmm_search_operand model(exec, ns, c, d.data(), Wyt.data());
  double trace_K = 0;
  for (double v : d) trace_K += v;
  trace_K /= double(ns);
  const lmm_null_fit& null = model.null();
  r.null.lambda = null.lambda, r.null.logl = null.logl;
  r.null.ve = null.P_yy / double(ns - c);
  r.null.vg = r.null.ve * null.lambda;
  r.null.pve = trace_K * null.lambda / (trace_K * null.lambda + 1.0);
  return model;
}

}  // namespace

std::vector<lmm_association> run_lmm_association(const executor& exec, const genotype_source& data,
                                                 const std::vector<std::vector<double>>& ys, const double* covariates,
                                                 int64_t q, const double* K, const lmm_options& o,
                                                 progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  const auto T = static_cast<int64_t>(ys.size());
  PMX_EXPECTS(q == 0 || covariates, "covariates");
  PMX_EXPECTS(K, "a relationship matrix");
  for (const auto& y : ys) PMX_EXPECTS(static_cast<int64_t>(y.size()) == n, "one phenotype value per sample");
  std::vector<lmm_association> results(static_cast<size_t>(T));

  // ---- traits with the same analysed samples share K's eigendecomposition and the rotations.
  std::vector<std::vector<int64_t>> group_kept;
  std::vector<std::vector<int64_t>> groups;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<int64_t> kept = analysed_samples(ys[t], covariates, q, K, n);
    const auto ns = static_cast<int64_t>(kept.size());
    if (ns < q + 3)
      throw input_error("--lmm: " + std::to_string(ns) + " samples have the phenotype, every covariate and a row " +
                        "of the relationship matrix; at least " + std::to_string(q + 3) + " are needed");
    bool constant = true;
    for (int64_t i : kept) constant = constant && ys[t][i] == ys[t][kept[0]];
    if (constant) throw input_error("--lmm: the phenotype is constant over the analysed samples");
    const auto it = std::find(group_kept.begin(), group_kept.end(), kept);
    if (it == group_kept.end()) {
      group_kept.push_back(std::move(kept));
      groups.push_back({t});
    } else {
      groups[it - group_kept.begin()].push_back(t);
    }
  }

  int64_t done = 0;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const std::vector<int64_t>& kept = group_kept[gi];
    const std::vector<int64_t>& traits = groups[gi];
    const auto ns = static_cast<int64_t>(kept.size());
    std::vector<std::pair<std::string, double>> stages;
    detail::stage_clock clock(stages);
    std::vector<double> d, U;
    clock.time("eigendecomposition", [&] { decompose(exec, data, K, kept, d, U); });
    std::vector<lmm_search_operand> fits;
    for (size_t k = 0; k < traits.size(); ++k) {
      lmm_association& r = results[traits[k]];
      r.samples = ns;
      fits.push_back(prepare_trait(exec, ys[traits[k]], covariates, q, kept, d, U, r));
      r.miss_ct.assign(static_cast<size_t>(m), 0);
      r.alt_freq.assign(static_cast<size_t>(m), na);
      r.error.assign(static_cast<size_t>(m), lmm_error::none);
      for (auto* v : {&r.beta, &r.se, &r.p, &r.lambda, &r.logl}) v->assign(static_cast<size_t>(m), na);
    }

    // Λ̃ = U with a row per sample of the data (0 for those not analysed): Zᵀ Λ̃ = (Uᵀ z_j)ᵀ. In the
    // executor's memory (the GPU's for cuda: uploaded once for every block's product).
    executor_array<double> lambda_rows(exec, static_cast<size_t>(n * ns));
    {
      std::vector<double> rows(static_cast<size_t>(n * ns), 0.0);
      // U is column-major (an eigenvector per column): a blocked transpose into sample rows.
      constexpr int64_t tile = 64;
#pragma omp parallel for schedule(dynamic, 1) num_threads(exec.threads())
      for (int64_t a0 = 0; a0 < ns; a0 += tile)
        for (int64_t e0 = 0; e0 < ns; e0 += tile)
          for (int64_t a = a0; a < std::min(ns, a0 + tile); ++a)
            for (int64_t e = e0; e < std::min(ns, e0 + tile); ++e) rows[kept[a] * ns + e] = U[a + e * ns];
      std::vector<double>().swap(U);
      lambda_rows.copy_from_host(rows.data(), 0, rows.size());
    }

    const int64_t block = std::clamp<int64_t>(product_doubles / std::max<int64_t>(ns, 1), 64, 8192);
    // Uᵀx stays where the product leaves it: device memory for cuda, where the search reads it.
    executor_array<double> Xt(exec, static_cast<size_t>(std::min(block, m) * ns));
    std::vector<uint8_t> test;
    std::vector<lmm_variant_fit> fitted;
    std::vector<double> half_mean;
    std::vector<variant_counts> counts;
    std::vector<uint8_t> analysed(static_cast<size_t>(n), 0);
    for (int64_t i : kept) analysed[i] = 1;
    lmm_association& first_trait = results[traits[0]];
    for (int64_t first = 0; first < m; first += block) {
      const int64_t count = std::min(block, m - first);
      packed_genotypes copy;
      const variant_major_view g = data.block(first, count, copy);
      // Per variant over the analysed samples: calls, ALT copies (code 00 counts 2); the centring 2p
      // = their mean. Popcounts on the host (the product uploads the block itself).
      half_mean.assign(static_cast<size_t>(count), 0.0);
      counts.resize(static_cast<size_t>(count));
      allele_counts(exec.host(), g, analysed, counts);
      for (int64_t b = 0; b < count; ++b) {
        const variant_counts& v = counts[b];
        const int64_t called = v.called(), sx = v.a1_copies(), sx2 = 4 * v.hom_a1 + v.het;
        const int64_t j = first + b;
        first_trait.miss_ct[j] = ns - called;
        if (called > 0) first_trait.alt_freq[j] = double(sx) / double(2 * called), half_mean[b] = first_trait.alt_freq[j];
        if (called == 0 || called * sx2 == sx * sx) first_trait.error[j] = lmm_error::constant_genotype;
      }
      for (size_t k = 1; k < traits.size(); ++k) {
        lmm_association& r = results[traits[k]];
        std::copy_n(first_trait.miss_ct.begin() + first, count, r.miss_ct.begin() + first);
        std::copy_n(first_trait.alt_freq.begin() + first, count, r.alt_freq.begin() + first);
        std::copy_n(first_trait.error.begin() + first, count, r.error.begin() + first);
      }
      clock.time("rotation U'X", [&] {
        gemm_transposed(exec, g, {std::span<const double>(half_mean.data(), static_cast<size_t>(count)), {}}, ns,
                        lambda_rows.data(), ns, 0.0, Xt.data(), ns);
      });
      clock.time("lambda search and test", [&] {
        test.resize(static_cast<size_t>(count));
        fitted.resize(static_cast<size_t>(count));
        for (int64_t b = 0; b < count; ++b) test[b] = first_trait.error[first + b] == lmm_error::none;
        for (size_t k = 0; k < traits.size(); ++k) {
          lmm_association& r = results[traits[k]];
          lmm_fit_variants(fits[k], count, Xt.data(), ns, test.data(), o.null_lambda ? r.null.lambda : na,
                           fitted.data());
          for (int64_t b = 0; b < count; ++b) {
            const lmm_variant_fit& f = fitted[b];
            const int64_t j = first + b;
            if (f.status == lmm_fit_status::collinear_with_covariates) r.error[j] = lmm_error::collinear_with_covariates;
            if (f.status == lmm_fit_status::lambda_not_found) r.error[j] = lmm_error::lambda_not_found;
            if (f.status != lmm_fit_status::tested) continue;
            r.beta[j] = f.beta, r.se[j] = f.se, r.p[j] = f.p, r.lambda[j] = f.lambda, r.logl[j] = f.logl;
          }
        }
      });
      report(progress, "lmm", (double(done) + double(first + count) / double(m)) / double(groups.size()));
    }
    for (int64_t t : traits) results[t].stage_seconds = stages;
    ++done;
  }
  return results;
}

lmm_association run_lmm_association(const executor& exec, const genotype_source& data, std::span<const double> y,
                                    const double* covariates, int64_t q, const double* K, const lmm_options& o,
                                    progress_sink* progress) {
  const std::vector<std::vector<double>> ys{std::vector<double>(y.begin(), y.end())};
  return std::move(run_lmm_association(exec, data, ys, covariates, q, K, o, progress)[0]);
}

}  // namespace pmx
