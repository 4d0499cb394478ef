// Linear-regression association, plink2 --glm's model (linear_association.hpp).
#include "panoramix/linear_association.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "panoramix/error.hpp"
#include "panoramix/ops/genotype_gemm.hpp"

namespace pmx {
namespace {

constexpr double na = std::numeric_limits<double>::quiet_NaN();
constexpr double max_corr = 0.999;  // plink2's --max-corr default
constexpr double max_vif = 50;      // plink2's --vif default

// In-place inverse of the symmetric positive definite P × P matrix a (row-major) by Gauss–Jordan
// with the diagonal as pivots; false when a pivot is not positive (singular as rounded).
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

// The per-variant work that does not depend on the genotype product: the samples with the
// phenotype and covariates, their rows [1 | centred covariates | centred y] and those rows' Gram
// matrix.
struct design {
  int64_t n = 0, q = 0, l = 0;  // samples of the data, covariates, columns of a row (q + 2)
  std::vector<int64_t> kept;    // samples with y and every covariate
  std::vector<uint8_t> in;      // per sample of the data
  std::vector<double> rows;     // n × l, zero outside `kept`
  std::vector<double> gram;     // l × l over `kept`
};

design make_design(std::span<const double> y, const double* c, int64_t q) {
  design d;
  d.n = static_cast<int64_t>(y.size()), d.q = q, d.l = q + 2;
  d.in.assign(static_cast<size_t>(d.n), 0);
  for (int64_t i = 0; i < d.n; ++i) {
    bool ok = std::isfinite(y[i]);
    for (int64_t k = 0; k < q && ok; ++k) ok = std::isfinite(c[i * q + k]);
    if (ok) d.in[i] = 1, d.kept.push_back(i);
  }
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

// One variant's regression from its product row W (Xᵀ[1 | C | y]) and its 2-bit calls.
struct variant_fit {
  int64_t obs = 0;
  glm_error error = glm_error::none;
};

variant_fit fit_variant(const design& d, const uint8_t* calls, const double* W, double* beta, double* se, double* t,
                        double* p, std::vector<double>& corr, std::vector<double>& A) {
  const int64_t q = d.q, l = d.l;
  const int P = static_cast<int>(q + 2);  // predictors: intercept, x, covariates
  // Sums over the kept samples with a call: Σx² by counts, and the rows of those without a call
  // taken out of the covariate sums.
  std::vector<double> miss(static_cast<size_t>(l * l), 0.0);
  int64_t called = 0, sum_x = 0, sum_x2 = 0;
  for (int64_t i : d.kept) {
    const unsigned code = (calls[i >> 2] >> (2 * (i & 3))) & 3u;
    if (code == 1) {  // missing
      const double* r = d.rows.data() + i * l;
      for (int64_t a = 0; a < l; ++a)
        for (int64_t b = 0; b <= a; ++b) miss[a * l + b] += r[a] * r[b];
      continue;
    }
    const int64_t x = code == 0 ? 2 : code == 2 ? 1 : 0;
    ++called, sum_x += x, sum_x2 += x * x;
  }
  variant_fit f;
  f.obs = called;
  auto gram = [&](int64_t a, int64_t b) { return d.gram[a * l + b] - miss[std::max(a, b) * l + std::min(a, b)]; };
  const int64_t df = called - P;
  if (df < 1) return f.error = glm_error::too_few_samples, f;
  if (called * sum_x2 == sum_x * sum_x) return f.error = glm_error::const_omitted_allele, f;
  // Normal equations in the order intercept, x, covariates; b the right-hand side.
  A.assign(static_cast<size_t>(P * P), 0.0);
  std::vector<double> b(static_cast<size_t>(P));
  auto at = [&](int i, int j) -> double& { return A[i * P + j]; };
  at(0, 0) = double(called);
  at(0, 1) = at(1, 0) = W[0];
  at(1, 1) = double(sum_x2);
  for (int64_t k = 0; k < q; ++k) {
    at(0, 2 + k) = at(2 + k, 0) = gram(0, 1 + k);
    at(1, 2 + k) = at(2 + k, 1) = W[1 + k];
    for (int64_t k2 = 0; k2 < q; ++k2) at(2 + k, 2 + k2) = gram(1 + k, 1 + k2);
  }
  b[0] = gram(0, q + 1);
  b[1] = W[q + 1];
  for (int64_t k = 0; k < q; ++k) b[2 + k] = gram(1 + k, q + 1);
  const double yy = gram(q + 1, q + 1);
  // plink2's multicollinearity checks on the predictors other than the intercept: correlations,
  // then variance inflation factors (the diagonal of the inverse correlation matrix).
  if (q > 0) {
    const int Q = P - 1;
    corr.assign(static_cast<size_t>(Q * Q), 0.0);
    const double nj = double(called);
    for (int u = 0; u < Q; ++u)
      for (int v = 0; v < Q; ++v) corr[u * Q + v] = at(1 + u, 1 + v) - at(0, 1 + u) * at(0, 1 + v) / nj;
    std::vector<double> sd(static_cast<size_t>(Q));
    for (int u = 0; u < Q; ++u) sd[u] = std::sqrt(std::max(corr[u * Q + u], 0.0));
    for (int u = 0; u < Q; ++u)
      for (int v = 0; v < Q; ++v) {
        if (sd[u] == 0 || sd[v] == 0) return f.error = glm_error::vif_too_high, f;
        corr[u * Q + v] /= sd[u] * sd[v];
        if (u != v && std::fabs(corr[u * Q + v]) > max_corr) return f.error = glm_error::corr_too_high, f;
      }
    if (!invert_spd(corr, Q)) return f.error = glm_error::vif_too_high, f;
    for (int u = 0; u < Q; ++u)
      if (corr[u * Q + u] > max_vif) return f.error = glm_error::vif_too_high, f;
  }
  if (!invert_spd(A, P)) return f.error = glm_error::vif_too_high, f;
  std::vector<double> coef(static_cast<size_t>(P), 0.0);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) coef[i] += at(i, j) * b[j];
  double fitted = 0;
  for (int i = 0; i < P; ++i) fitted += coef[i] * b[i];
  const double sigma2 = std::max(yy - fitted, 0.0) / double(df);
  const boost::math::students_t dist(static_cast<double>(df));
  for (int k = 1; k < P; ++k) {  // x, then the covariates
    beta[k - 1] = coef[k];
    se[k - 1] = std::sqrt(sigma2 * at(k, k));
    t[k - 1] = coef[k] / se[k - 1];
    p[k - 1] = std::isfinite(t[k - 1]) ? 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t[k - 1]))) : na;
  }
  return f;
}

}  // namespace

const char* glm_error_name(glm_error e) {
  switch (e) {
    case glm_error::none:
      return ".";
    case glm_error::const_omitted_allele:
      return "CONST_OMITTED_ALLELE";
    case glm_error::corr_too_high:
      return "CORR_TOO_HIGH";
    case glm_error::vif_too_high:
      return "VIF_TOO_HIGH";
    case glm_error::too_few_samples:
      return "SAMPLE_CT<=COVAR_CT";
  }
  return "?";
}

linear_association run_linear_association(const executor& exec, const genotype_source& data, std::span<const double> y,
                                          const double* covariates, int64_t q, const std::vector<std::string>& names,
                                          std::span<const double> alt_freq, progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  PMX_EXPECTS(static_cast<int64_t>(y.size()) == n, "one phenotype value per sample");
  PMX_EXPECTS(static_cast<int64_t>(alt_freq.size()) == m, "one frequency per variant");
  PMX_EXPECTS(q == 0 || (covariates && static_cast<int64_t>(names.size()) == q), "covariates and their names");
  const design d = make_design(y, covariates, q);
  linear_association r;
  r.samples = static_cast<int64_t>(d.kept.size());
  r.tests.push_back("ADD");
  r.tests.insert(r.tests.end(), names.begin(), names.end());
  const int64_t T = q + 1, l = d.l;
  r.a1_is_ref.resize(static_cast<size_t>(m));
  r.obs_ct.resize(static_cast<size_t>(m));
  r.error.resize(static_cast<size_t>(m));
  for (auto* v : {&r.beta, &r.se, &r.t, &r.p}) v->assign(static_cast<size_t>(m * T), na);
  constexpr int64_t block = 8192;
  std::vector<double> W;
  const std::vector<double> zero_p(static_cast<size_t>(block), 0.0);
  for (int64_t first = 0; first < m; first += block) {
    const int64_t count = std::min(block, m - first);
    packed_genotypes copy;
    const variant_major_view g = data.block(first, count, copy);
    // W = Xᵀ [1 | C | y] over the kept samples (x = ALT copies, 0 where missing: p = 0, no scale).
    W.resize(static_cast<size_t>(count * l));
    gemm_transposed(exec, g, {std::span<const double>(zero_p.data(), static_cast<size_t>(count)), {}}, l, d.rows.data(),
                    l, 0.0, W.data(), l);
#pragma omp parallel num_threads(exec.threads())
    {
      std::vector<double> corr, A;
#pragma omp for schedule(dynamic, 64)
      for (int64_t b = 0; b < count; ++b) {
        const int64_t j = first + b;
        const size_t o = static_cast<size_t>(j * T);
        const variant_fit f =
            fit_variant(d, g.row(b), W.data() + b * l, &r.beta[o], &r.se[o], &r.t[o], &r.p[o], corr, A);
        r.obs_ct[j] = f.obs, r.error[j] = f.error;
        // A1, plink2's nonmajor allele: REF when ALT is above 1/2 (on a tie REF is the major allele,
        // as plink2's source has it). x counts ALT, so the coefficient of REF copies is its negative.
        r.a1_is_ref[j] = alt_freq[j] > 0.5;
        if (r.a1_is_ref[j] && f.error == glm_error::none) r.beta[o] = -r.beta[o], r.t[o] = -r.t[o];
      }
    }
    report(progress, "association", double(first + count) / double(m));
  }
  return r;
}

}  // namespace pmx
