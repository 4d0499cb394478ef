// PCA of the standardised GRM: exact (dense GRM + eigensolver) or randomized subspace iteration on
// the 2-bit data (see pca.hpp for the operator and its missing-call terms).
#include "panoramix/pca.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "panoramix/allele_frequencies.hpp"
#include "core/checked_number.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "subspace_iteration.hpp"

namespace pmx {
namespace {

using clock_type = std::chrono::steady_clock;

// Adds the wall time of f() to the named stage.
template <class F>
void timed(std::vector<std::pair<std::string, double>>& stages, const char* name, F&& f) {
  const auto t0 = clock_type::now();
  f();
  const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
  for (auto& [stage, total] : stages)
    if (stage == name) return void(total += s);
  stages.emplace_back(name, s);
}

std::string sample_name(const genotype_source& data, int64_t i) {
  return data.sample(i).fid + " " + data.sample(i).iid;
}


// ------------------------------------------------------------------------------------------------
// G·V without forming G (pca.hpp). With k_c − m_i − m_j = C (1 − b_i)(1 − b_j)(1 − β_i β_j),
// β_i = b_i / (1 − b_i), w_i = 1 / (1 − b_i):
//   G V = C⁻¹ W Σ_t B^t S B^t W V  +  E V        (W = diag w, B = diag β, E sparse)
// so one product of S = Z Zᵀ (genotype × dense op) with the blocks [W V, B W V, …, B^{T−1} W V].

class grm_operator {
 public:
  grm_operator(const executor& exec, const variant_major_view& g, std::vector<double> p,
               std::vector<double> scale)
      : exec_(exec), operand_(exec, g), p_(std::move(p)), scale_(std::move(scale)), n_(g.n_samples),
        k_(g.n_variants), w_(static_cast<size_t>(n_), 1.0), beta_(static_cast<size_t>(n_), 0.0) {}

  /// Series part with `terms` terms; empty w/β = no per-sample factors (plain S / C).
  void set_series(double C, std::vector<double> w, std::vector<double> beta, int terms) {
    C_ = C, terms_ = terms;
    if (!w.empty()) w_ = std::move(w), beta_ = std::move(beta);
  }
  /// Sparse part E, one row per sample (CSR, both triangles and the diagonal).
  void set_sparse(std::vector<int64_t> start, std::vector<int64_t> col, std::vector<double> val) {
    start_ = std::move(start), col_ = std::move(col), val_ = std::move(val);
  }
  int terms() const { return terms_; }

  /// Y ← G V; V and Y column-major n × l (leading dimension n).
  void apply(const double* V, int64_t l, double* Y) {
    const int64_t n = n_, T = terms_, L = T * l;
    const int threads = exec_.threads();
    lam_.resize(static_cast<size_t>(n * L));
    prod_.resize(static_cast<size_t>(n * L));
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {  // Λ̃ row-major n × L, block t = B^t W V
      double* row = lam_.data() + i * L;
      for (int64_t c = 0; c < l; ++c) row[c] = w_[i] * V[c * n + i];
      for (int64_t t = 1; t < T; ++t)
        for (int64_t c = 0; c < l; ++c) row[t * l + c] = beta_[i] * row[(t - 1) * l + c];
    }
    // S Λ̃ = Z (Zᵀ Λ̃) in column chunks, so the k × chunk intermediate stays bounded.
    const gemm_centring centring{p_, scale_};
    const int64_t chunk = std::min<int64_t>(L, 64);
    kbuf_.resize(static_cast<size_t>(k_ * chunk));
    for (int64_t c0 = 0; c0 < L; c0 += chunk) {
      const int64_t w = std::min(chunk, L - c0);
      gemm_transposed(operand_, centring, w, lam_.data() + c0, L, 0.0, kbuf_.data(), w);
      gemm(operand_, centring, w, kbuf_.data(), w, 0.0, prod_.data() + c0, L);
    }
    const double inv_c = 1.0 / C_;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {
      const double* row = prod_.data() + i * L;
      for (int64_t c = 0; c < l; ++c) {
        double acc = 0;
        for (int64_t t = T - 1; t >= 0; --t) acc = acc * beta_[i] + row[t * l + c];  // Horner in β_i
        double y = acc * w_[i] * inv_c;
        if (!start_.empty())
          for (int64_t e = start_[i]; e < start_[i + 1]; ++e) y += val_[e] * V[c * n + col_[e]];
        Y[c * n + i] = y;
      }
    }
  }

 private:
  executor exec_;
  gemm_operand operand_;
  std::vector<double> p_, scale_;
  int64_t n_, k_;
  double C_ = 1;
  std::vector<double> w_, beta_;
  int terms_ = 1;
  std::vector<int64_t> start_, col_;
  std::vector<double> val_;
  std::vector<double> lam_, prod_, kbuf_;
};

// Lists missing calls variant by variant (code 01: low bit set, high bit clear). Only the rows
// that the frequency pass counted missing calls in are read (`missing[j]`: over all samples of
// g): data without missing calls cost nothing here (this was a second pass over the whole .bed,
// 7.4 s of `pca`'s 11.3 s at 50,000 × 727,605 on the H200 machine).
template <class F>
void for_each_missing(const variant_major_view& g, std::span<const int64_t> missing, F&& f) {
  const int64_t n = g.n_samples;
  std::vector<int64_t> row;
  for (int64_t j = 0; j < g.n_variants; ++j) {
    row.clear();
    if (missing[j] == 0) {
      f(j, row);
      continue;
    }
    const uint8_t* r = g.row(j);
    for (int64_t byte = 0; byte < (n + 3) / 4; ++byte) {
      uint8_t miss = r[byte] & ~(r[byte] >> 1) & 0x55;
      while (miss) {
        const int bit = __builtin_ctz(miss);
        const int64_t i = byte * 4 + bit / 2;
        if (i < n) row.push_back(i);
        miss &= static_cast<uint8_t>(miss - 1);
      }
    }
    f(j, row);
  }
}

// Builds E (pca.hpp) for missing_mode::plink and sets the operator's series. z tables by .bed code.
void build_missing_terms(const executor& exec, const genotype_source& data, const variant_major_view& g,
                         const std::vector<std::array<double, 4>>& ztab, std::span<const int64_t> missing,
                         const pca_options& opt, grm_operator& op, pca_result& res) {
  const int64_t n = g.n_samples, k = g.n_variants;
  std::vector<int64_t> m(static_cast<size_t>(n), 0);
  std::vector<uint64_t> keys;
  int64_t all_missing = 0, bound = 0;
  for_each_missing(g, missing, [&](int64_t, const std::vector<int64_t>& rows) {
    const auto c = static_cast<int64_t>(rows.size());
    res.missing_calls += c;
    if (c == n) return void(++all_missing);  // no call at all: only lowers k
    for (int64_t i : rows) ++m[i];
    bound += c * (c - 1) / 2;
    if (bound > 8 * opt.max_missing_pairs)
      throw input_error("pca: more than " + std::to_string(opt.max_missing_pairs) +
                        " pairs of samples share a missing call, too many for the exact PLINK operator "
                        "of the randomized path; use --exact, or --missing impute (missing calls at the "
                        "mean), or filter missing calls (plink --geno/--mind)");
    for (int64_t a = 0; a < c; ++a)
      for (int64_t b = a + 1; b < c; ++b) keys.push_back(static_cast<uint64_t>(rows[a]) * n + rows[b]);
  });
  const int64_t kc = k - all_missing;
  for (int64_t i = 0; i < n; ++i)
    if (m[i] >= kc)
      throw input_error("pca: sample " + sample_name(data, i) +
                        " has no called genotype on the variants used (PLINK refuses this too; "
                        "remove it with --keep or plink --mind)");
  std::sort(keys.begin(), keys.end());
  // Unique pairs and m_ij (the multiplicity of each key).
  std::vector<std::pair<uint64_t, int64_t>> pairs;
  for (size_t a = 0; a < keys.size();) {
    size_t b = a;
    while (b < keys.size() && keys[b] == keys[a]) ++b;
    pairs.emplace_back(keys[a], static_cast<int64_t>(b - a));
    a = b;
  }
  keys = {};
  res.missing_pairs = static_cast<int64_t>(pairs.size());
  if (res.missing_pairs > opt.max_missing_pairs)
    throw input_error("pca: " + std::to_string(res.missing_pairs) +
                      " pairs of samples share a missing call, more than the exact PLINK operator of the "
                      "randomized path takes (" + std::to_string(opt.max_missing_pairs) +
                      "); use --exact, or --missing impute, or filter missing calls (plink --geno/--mind)");

  // Series for K⁰_ij = 1/(kc − m_i − m_j): b_i = (m_i − a)/C about the mid-range a, C = kc − 2a;
  // Σ_t (β_i β_j)^t converges like r^t, r = max β², and stops below double rounding.
  const auto [mn, mx] = std::minmax_element(m.begin(), m.end());
  const double a = 0.5 * double(*mn + *mx), C = double(kc) - 2 * a;
  const double bmax = 0.5 * double(*mx - *mn) / C, r = std::pow(bmax / (1 - bmax), 2);
  int terms = 1;
  if (r > 0) {
    if (r > 0.25)
      throw input_error("pca: missing-call counts per sample range from " + std::to_string(*mn) + " to " +
                        std::to_string(*mx) + " of " + std::to_string(kc) +
                        " variants, too uneven for the randomized path's series; use --exact or --missing impute");
    terms = std::max(1, static_cast<int>(std::ceil(std::log(0x1p-53 * (1 - r)) / std::log(r))));
  }
  std::vector<double> w(static_cast<size_t>(n)), beta(w.size());
  for (int64_t i = 0; i < n; ++i) {
    const double bi = (double(m[i]) - a) / C;
    w[i] = 1 / (1 - bi), beta[i] = bi / (1 - bi);
  }
  op.set_series(C, std::move(w), std::move(beta), terms);
  res.series_terms = terms;
  // No sample with a missing call: no correction terms, and no sample-major copy of the data
  // (its transpose was 6.2–6.4 s of 8.9 s at 50,000 × 727,605 on the H200 machine).
  if (std::all_of(m.begin(), m.end(), [](int64_t c) { return c == 0; })) return op.set_sparse({}, {}, {});

  // S_ij on the diagonal (samples with missing calls) and on the pairs, from sample-major rows:
  // row i decoded once to z values, partners j read code by code.
  std::vector<int64_t> count(static_cast<size_t>(n) + 1, 0);
  for (int64_t i = 0; i < n; ++i) count[i + 1] += m[i] > 0;
  for (const auto& [key, mij] : pairs) ++count[key / n + 1], ++count[key % n + 1];
  std::vector<int64_t> start(count.size(), 0);
  for (int64_t i = 0; i < n; ++i) start[i + 1] = start[i] + count[i + 1];
  std::vector<int64_t> col(static_cast<size_t>(start[n]));
  std::vector<double> val(col.size());
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  std::vector<int64_t> pair_at(pairs.size());  // where pair (i<j) lands in row i
  std::vector<int64_t> partner_start(static_cast<size_t>(n) + 1, 0);  // pairs grouped by i
  for (const auto& [key, mij] : pairs) ++partner_start[key / n + 1];
  for (int64_t i = 0; i < n; ++i) partner_start[i + 1] += partner_start[i];

  // Only samples with missing calls are read (the diagonal terms and both ends of every pair): when
  // they are at most a quarter of all, their rows are gathered alone; else the whole matrix is
  // transposed (6.2 s at 50,000 × 727,605 on the H200 machine, whatever the missing calls).
  std::vector<int64_t> with_missing, row_of(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i)
    if (m[i] > 0) row_of[i] = static_cast<int64_t>(with_missing.size()), with_missing.push_back(i);
  res.samples_with_missing = static_cast<int64_t>(with_missing.size());
  const bool gathered = 4 * res.samples_with_missing <= n;
  const packed_rows t = gathered ? sample_major_rows(g, with_missing, exec.threads())
                                 : transpose_to_sample_major(g, exec.threads());
  const packed_rows_view tv = t.view();
  auto row = [&](int64_t i) { return gathered ? row_of[i] : i; };
  std::vector<double> s_pair(pairs.size()), s_diag(static_cast<size_t>(n), 0.0);
#pragma omp parallel num_threads(exec.threads())
  {
    std::vector<double> zi(static_cast<size_t>(k));
#pragma omp for schedule(dynamic, 4)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p0 = partner_start[i], p1 = partner_start[i + 1];
      if (m[i] == 0 && p0 == p1) continue;
      double d = 0;
      const int64_t ri = row(i);
      for (int64_t l = 0; l < k; ++l) d += (zi[l] = ztab[l][tv.code(ri, l)]) * zi[l];
      s_diag[i] = d;
      for (int64_t q = p0; q < p1; ++q) {
        const int64_t rj = row(static_cast<int64_t>(pairs[q].first % n));
        double s = 0;
        for (int64_t l = 0; l < k; ++l) s += zi[l] * ztab[l][tv.code(rj, l)];
        s_pair[q] = s;
      }
    }
  }
  // E = S ⊙ (K − K⁰) on those entries.
  auto k0 = [&](int64_t i, int64_t j) { return 1.0 / (double(kc) - double(m[i]) - double(m[j])); };
  for (int64_t i = 0; i < n; ++i)
    if (m[i] > 0) col[fill[i]] = i, val[fill[i]++] = s_diag[i] * (1.0 / double(kc - m[i]) - k0(i, i));
  for (size_t q = 0; q < pairs.size(); ++q) {
    const int64_t i = static_cast<int64_t>(pairs[q].first / n), j = static_cast<int64_t>(pairs[q].first % n);
    const int64_t nij = kc - m[i] - m[j] + pairs[q].second;
    if (nij <= 0)
      throw input_error("pca: samples " + sample_name(data, i) + " and " + sample_name(data, j) +
                        " have no variant called in both (their relationship is undefined)");
    const double e = s_pair[q] * (1.0 / double(nij) - k0(i, j));
    col[fill[i]] = j, val[fill[i]++] = e;
    col[fill[j]] = i, val[fill[j]++] = e;
  }
  op.set_sparse(std::move(start), std::move(col), std::move(val));
}

// ------------------------------------------------------------------------------------------------

pca_result exact_pca(const executor& exec, const genotype_source& data, const pca_options& opt,
                     progress_sink* progress) {
  pca_result res;
  res.method = "exact";
  grm_options go;
  go.method = grm_method::standardized;
  go.nonfounders = opt.nonfounders;
  go.chromosomes = opt.chromosomes;
  go.pair_counts = false;
  grm_result g;
  timed(res.stage_seconds, "relationship matrix", [&] { g = compute_grm(exec, data, go, progress); });
  const int64_t n = g.n, m = opt.pcs;
  res.n = n, res.n_variants = g.n_variants, res.pcs = m;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(g.G[i * n + i]))
      throw input_error("pca: sample " + sample_name(data, i) +
                        " has no called genotype on the variants used (PLINK refuses this too)");
  res.values.resize(static_cast<size_t>(m));
  res.vectors.resize(static_cast<size_t>(n * m));
  timed(res.stage_seconds, "eigendecomposition", [&] {
    symmetric_eigen(exec, n, g.G.data(), n, m, res.values.data(), res.vectors.data(), n);
  });
  return res;
}

pca_result randomized_pca(const executor& exec, const genotype_source& data, const pca_options& opt,
                          progress_sink* progress) {
  pca_result res;
  res.method = "randomized";
  const int64_t n = data.n_samples(), k = data.n_variants(), m = opt.pcs;
  const int64_t l = std::min(n, m + std::max<int64_t>(opt.oversample, 0));
  res.n = n, res.n_variants = k, res.pcs = m;
  const executor host = exec.host();  // the n × l algebra stays on the host

  packed_genotypes copy;
  variant_major_view g;
  timed(res.stage_seconds, "read", [&] {
    g = data.mapped_block(0, k);
    if (!g.data) copy = data.read_block(0, k), g = copy.view();
  });
  std::vector<double> p(static_cast<size_t>(k)), scale(p.size());
  std::vector<std::array<double, 4>> ztab(p.size());
  std::vector<int64_t> missing;  // per variant, over all samples
  timed(res.stage_seconds, "frequencies", [&] {
    frequency_options fo;
    fo.nonfounders = opt.nonfounders;
    fo.chromosomes = opt.chromosomes;
    allele_frequencies f;
    f.resize(k);
    frequency_counter(data, fo).add_block(exec, 0, g, f);
    missing = std::move(f.missing_all);
    for (int64_t j = 0; j < k; ++j) {
      const double pj = p[j] = grm_frequency(f.a1[j]);
      const double s = scale[j] = (pj > 0 && pj < 1) ? 1 / std::sqrt(2 * pj * (1 - pj)) : 0.0;
      ztab[j] = {(2 - 2 * pj) * s, 0.0, (1 - 2 * pj) * s, -2 * pj * s};  // codes 00, 01, 10, 11
    }
  });
  grm_operator op(exec, g, p, scale);
  timed(res.stage_seconds, "missing calls", [&] {
    if (opt.missing == pca_missing_mode::plink) {
      build_missing_terms(exec, data, g, ztab, missing, opt, op, res);
    } else {
      for (int64_t c : missing) res.missing_calls += c;
      op.set_series(double(k), {}, {}, 1);
    }
  });

  // Subspace iteration with Chebyshev filters (subspace_iteration.hpp).
  timed(res.stage_seconds, "subspace iteration", [&] {
    detail::subspace_iteration_options so;
    so.n = n, so.block = l, so.wanted = m, so.tolerance = opt.tolerance, so.max_iterations = opt.max_iterations;
    so.seed = opt.seed, so.progress_stage = "subspace iteration";
    auto it = detail::top_eigenpairs(
        host, so, [&](const double* X, double* Y) { op.apply(X, l, Y); }, progress);
    res.values = std::move(it.values), res.vectors = std::move(it.vectors);
    res.iterations = it.iterations, res.max_residual = it.max_residual, res.converged = it.converged;
  });
  return res;
}

}  // namespace

void check_pca_options(const pca_options& opt) {
  detail::require_integer(opt.pcs, "--pcs", 1);
  detail::require_number(opt.tolerance, "--tol", detail::number_range::above(0));
  detail::require_integer(opt.max_iterations, "--max-iter", 1);
  detail::require_integer(opt.oversample, "--oversample", 0);
  if (opt.exact && opt.missing != pca_missing_mode::plink)
    throw input_error("pca: --missing impute applies to the randomized path only (--exact is PLINK's matrix)");
}

pca_result compute_pca(const executor& exec, const genotype_source& data, const pca_options& opt,
                       progress_sink* progress) {
  const int64_t n = data.n_samples();
  check_pca_options(opt);
  if (data.n_variants() == 0) throw input_error("pca: no variants left (after X/Y/MT and --extract)");
  if (opt.pcs > n)
    throw input_error("pca: --pcs " + std::to_string(opt.pcs) + " exceeds the number of samples (" +
                      std::to_string(n) + ")");
  pca_result res = opt.exact ? exact_pca(exec, data, opt, progress) : randomized_pca(exec, data, opt, progress);
  detail::normalise_signs(res.vectors, res.n, res.pcs);
  return res;
}

}  // namespace pmx
