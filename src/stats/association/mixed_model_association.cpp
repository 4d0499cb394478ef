// Exact mixed-model association per variant, GEMMA -lmm 1 (mixed_model_association.hpp).
#include "panoramix/mixed_model_association.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/stage_clock.hpp"
#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/transfer_buffer.hpp"
#include "stats/association/restricted_likelihood.hpp"

namespace pmx {
namespace {

constexpr double na = std::numeric_limits<double>::quiet_NaN();
constexpr double eigen_zero = 1e-10;    // GEMMA's EigenDecomp_Zeroed
constexpr double max_r2 = 0.9999;       // GEMMA's -r2 default
constexpr int64_t product_doubles = int64_t(1) << 25;  // 256 MB of rotated genotypes per block

// The null model's pieces that every variant's fit shares: the eigenvalues, the rotated
// covariates and phenotype, and at the λ every search visits (the grid points and l_max) the
// weights and the [W | y] Gram sums.
struct shared_fit {
  int64_t ns = 0;
  int c = 0;                          // covariates with the intercept
  std::vector<double> d;              // eigenvalues of K
  std::vector<double> Wyt;            // Uᵀ[W | y], ns × (c + 1) column-major
  detail::lambda_search search;
  std::vector<detail::lambda_weights> points;      // h, h² and log-determinant at each shared λ
  std::vector<detail::weighted_grams> point_grams;  // [W | y] pairs there, powers 0..2
  const double* col(int a) const { return Wyt.data() + static_cast<int64_t>(a) * ns; }

  void share(double lambda) {
    std::vector<const double*> cols;
    for (int a = 0; a <= c; ++a) cols.push_back(col(a));
    points.emplace_back().set(d, lambda, 2, true);
    detail::weigh_columns(points.back(), cols.data(), c + 1, ns, 2, true, point_grams.emplace_back());
  }
  int shared(double lambda) const {
    for (size_t k = 0; k < points.size(); ++k)
      if (points[k].lambda == lambda) return static_cast<int>(k);
    return -1;
  }
};

// One variant's fit: columns [W | x | y]; its Gram sums at a shared λ from the [W | y] block plus
// the pairs with x, elsewhere from every pair.
class variant_fit {
 public:
  explicit variant_fit(const shared_fit& s) : s_(s), K_(s.c + 2), cols_(static_cast<size_t>(K_)) {
    for (int a = 0; a < s.c; ++a) cols_[a] = s.col(a);
    cols_[K_ - 1] = s.col(s.c);
    g_.resize(K_);
  }

  // Sets x = Uᵀz and its unweighted sums; false when x is collinear with the covariates.
  bool set_x(const double* xt) {
    cols_[x()] = xt;
    copy_shared(0, s_.point_grams[0]);
    add_x_pairs(nullptr, 0);
    return detail::r2_on_previous(g_, x()) <= max_r2;
  }

  // The likelihood (order 0) and its derivatives (orders 1, 2) at λ.
  detail::reml_point at(double lambda, int order) {
    const int k = order <= 1 ? s_.shared(lambda) : -1;
    if (k >= 0) {
      const detail::lambda_weights& w = s_.points[k];
      for (int r = 1; r <= order + 1; ++r) copy_shared(r, s_.point_grams[k]);
      add_x_pairs(&w, order + 1);
      set_traces(w);
      return detail::restricted_likelihood(g_, s_.ns, order);
    }
    return detail::restricted_likelihood(weigh(lambda, order + 1, order == 0), s_.ns, order);
  }

  // Every weighted pair at λ (powers 1..max_power), the unweighted ones kept.
  const detail::weighted_grams& weigh(double lambda, int max_power, bool with_logdet = false) {
    w_.set(s_.d, lambda, max_power, with_logdet);
    detail::weigh_columns(w_, cols_.data(), K_, s_.ns, max_power, false, g_);
    return g_;
  }

 private:
  int x() const { return K_ - 2; }
  int shared(int a) const { return a == K_ - 1 ? s_.c : a; }  // index in [W | y]
  void copy_shared(int r, const detail::weighted_grams& wy) {
    for (int a = 0; a < K_; ++a)
      for (int b = 0; b < K_; ++b)
        if (a != x() && b != x()) g_.at(r, a, b) = wy.at(r, shared(a), shared(b));
  }
  // Σ h^r x v_a for every column a at the powers 1..max_power of w (unweighted: max_power 0).
  void add_x_pairs(const detail::lambda_weights* w, int max_power) {
    static const detail::lambda_weights none;
    sums_.resize(static_cast<size_t>(4 * K_));
    detail::weigh_against(w ? *w : none, cols_[x()], cols_.data(), K_, s_.ns, max_power, w == nullptr,
                          sums_.data(), scratch_);
    for (int a = 0; a < K_; ++a)
      for (int r = w ? 1 : 0; r <= max_power; ++r) g_.at(r, x(), a) = g_.at(r, a, x()) = sums_[4 * a + r];
  }
  void set_traces(const detail::lambda_weights& w) {
    g_.lambda = w.lambda, g_.trace_h = w.trace_h, g_.trace_h2 = w.trace_h2, g_.logdet_h = w.logdet_h;
  }
  const shared_fit& s_;
  int K_;
  std::vector<const double*> cols_;
  detail::weighted_grams g_;
  detail::lambda_weights w_;
  std::vector<double> sums_, scratch_;
};

// The REML λ of the null model [W | y] by the same search.
detail::lambda_fit null_lambda(const shared_fit& s) {
  std::vector<const double*> cols;
  for (int a = 0; a <= s.c; ++a) cols.push_back(s.col(a));
  detail::weighted_grams g;
  detail::lambda_weights w;
  auto at = [&](double l, int order) {
    w.set(s.d, l, order + 1, true);
    detail::weigh_columns(w, cols.data(), s.c + 1, s.ns, order + 1, true, g);
    return detail::restricted_likelihood(g, s.ns, order);
  };
  return detail::maximise_restricted_likelihood(
      s.search, [&](int k) { return at(s.search.grid(k), 1).dev1; }, at);
}

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

lmm_association run_lmm_association(const executor& exec, const genotype_source& data, std::span<const double> y,
                                    const double* covariates, int64_t q, const double* K, const lmm_options& o,
                                    progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  PMX_EXPECTS(static_cast<int64_t>(y.size()) == n, "one phenotype value per sample");
  PMX_EXPECTS(q == 0 || covariates, "covariates");
  PMX_EXPECTS(K, "a relationship matrix");
  lmm_association r;
  detail::stage_clock clock(r.stage_seconds);

  // ---- the analysed samples and their K
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < n; ++i) {
    bool ok = std::isfinite(y[i]) && std::isfinite(K[i * n + i]);
    for (int64_t k = 0; k < q && ok; ++k) ok = std::isfinite(covariates[i * q + k]);
    if (ok) kept.push_back(i);
  }
  const auto ns = static_cast<int64_t>(kept.size());
  r.samples = ns;
  if (ns < q + 3)
    throw input_error("--lmm: " + std::to_string(ns) + " samples have the phenotype, every covariate and a row of the " +
                      "relationship matrix; at least " + std::to_string(q + 3) + " are needed");
  bool constant = true;
  for (int64_t i : kept) constant = constant && y[i] == y[kept[0]];
  if (constant) throw input_error("--lmm: the phenotype is constant over the analysed samples");
  shared_fit s;
  s.ns = ns, s.c = static_cast<int>(q + 1);
  std::vector<double> U(static_cast<size_t>(ns * ns));
  clock.time("eigendecomposition", [&] {
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
    s.d.resize(static_cast<size_t>(ns));
    symmetric_eigen(exec, ns, Kk.data(), ns, ns, s.d.data(), U.data(), ns);
    for (double& v : s.d)
      if (std::fabs(v) < eigen_zero) v = 0;
  });

  // ---- rotated covariates and phenotype; the null model; the grid's shared sums
  const int c = s.c;
  {
    std::vector<double> Wy(static_cast<size_t>(ns * (c + 1)));
    for (int64_t a = 0; a < ns; ++a) {
      const int64_t i = kept[a];
      Wy[a] = 1.0;
      for (int64_t k = 0; k < q; ++k) Wy[(1 + k) * ns + a] = covariates[i * q + k];
      Wy[c * ns + a] = y[i];
    }
    s.Wyt.resize(Wy.size());
    dense_gemm(exec.host(), true, false, ns, c + 1, ns, 1.0, U.data(), ns, Wy.data(), ns, 0.0, s.Wyt.data(), ns);
  }
  const detail::lambda_fit null = null_lambda(s);
  if (std::isnan(null.lambda))
    throw numeric_error("--lmm: the search for the null model's lambda did not converge (GEMMA's search)");
  {
    std::vector<const double*> cols;
    for (int a = 0; a <= c; ++a) cols.push_back(s.col(a));
    detail::lambda_weights w;
    detail::weighted_grams g;
    w.set(s.d, null.lambda, 1, false);
    detail::weigh_columns(w, cols.data(), c + 1, ns, 1, true, g);
    double trace_K = 0;
    for (double v : s.d) trace_K += v;
    trace_K /= double(ns);
    r.null.lambda = null.lambda, r.null.logl = null.logl;
    r.null.ve = detail::projected_yy(g) / double(ns - c);
    r.null.vg = r.null.ve * null.lambda;
    r.null.pve = trace_K * null.lambda / (trace_K * null.lambda + 1.0);
    for (int k = 0; k <= s.search.regions; ++k) s.share(s.search.grid(k));
    if (s.shared(s.search.l_max) < 0) s.share(s.search.l_max);
  }

  // ---- Λ̃ = U with a row per sample of the data (0 for those not analysed): Zᵀ Λ̃ = (Uᵀ z_j)ᵀ. In
  // the executor's memory (the GPU's for cuda: uploaded once for every block's product).
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

  r.miss_ct.assign(static_cast<size_t>(m), 0);
  r.alt_freq.assign(static_cast<size_t>(m), na);
  r.error.assign(static_cast<size_t>(m), lmm_error::none);
  for (auto* v : {&r.beta, &r.se, &r.p, &r.lambda, &r.logl}) v->assign(static_cast<size_t>(m), na);
  const int64_t block = std::clamp<int64_t>(product_doubles / std::max<int64_t>(ns, 1), 64, 8192);
  transfer_buffer Xt(exec, static_cast<size_t>(std::min(block, m) * ns));
  std::vector<double> half_mean;
  for (int64_t first = 0; first < m; first += block) {
    const int64_t count = std::min(block, m - first);
    packed_genotypes copy;
    const variant_major_view g = data.block(first, count, copy);
    // Per variant over the analysed samples: calls, ALT copies; the centring 2p = their mean.
    half_mean.assign(static_cast<size_t>(count), 0.0);
    std::vector<int64_t> sum_x(static_cast<size_t>(count)), sum_x2(static_cast<size_t>(count));
#pragma omp parallel for num_threads(exec.threads()) schedule(static)
    for (int64_t b = 0; b < count; ++b) {
      const uint8_t* row = g.row(b);
      int64_t called = 0, sx = 0, sx2 = 0;
      for (int64_t i : kept) {
        const unsigned code = (row[i >> 2] >> (2 * (i & 3))) & 3u;
        if (code == 1) continue;
        const int64_t x = code == 0 ? 2 : code == 2 ? 1 : 0;
        ++called, sx += x, sx2 += x * x;
      }
      const int64_t j = first + b;
      r.miss_ct[j] = ns - called;
      sum_x[b] = sx, sum_x2[b] = sx2;
      if (called > 0) r.alt_freq[j] = double(sx) / double(2 * called), half_mean[b] = r.alt_freq[j];
      if (called == 0 || called * sx2 == sx * sx) r.error[j] = lmm_error::constant_genotype;
    }
    clock.time("rotation U'X", [&] {
      gemm_transposed(exec, g, {std::span<const double>(half_mean.data(), static_cast<size_t>(count)), {}}, ns,
                      lambda_rows.data(), ns, 0.0, Xt.data(), ns);
    });
    clock.time("lambda search and test", [&] {
#pragma omp parallel num_threads(exec.threads())
      {
        variant_fit fit(s);
#pragma omp for schedule(dynamic, 16)
        for (int64_t b = 0; b < count; ++b) {
          const int64_t j = first + b;
          if (r.error[j] != lmm_error::none) continue;
          if (!fit.set_x(Xt.data() + b * ns)) {
            r.error[j] = lmm_error::collinear_with_covariates;
            continue;
          }
          detail::lambda_fit lf;
          if (o.null_lambda) {
            lf.lambda = null.lambda;
            lf.logl = fit.at(null.lambda, 0).f;
          } else {
            lf = detail::maximise_restricted_likelihood(
                s.search, [&](int k) { return fit.at(s.search.grid(k), 1).dev1; },
                [&](double l, int order) { return fit.at(l, order); });
          }
          if (std::isnan(lf.lambda)) {
            r.error[j] = lmm_error::lambda_not_found;
            continue;
          }
          const detail::wald_result w = detail::wald_test(fit.weigh(lf.lambda, 1), ns);
          r.beta[j] = w.beta, r.se[j] = w.se, r.p[j] = w.p;
          r.lambda[j] = lf.lambda, r.logl[j] = lf.logl;
        }
      }
    });
    report(progress, "lmm", double(first + count) / double(m));
  }
  return r;
}

}  // namespace pmx
