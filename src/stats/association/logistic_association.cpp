// Logistic-regression association with Firth fallback, plink2 --glm's model (logistic_association.hpp).
#include "panoramix/logistic_association.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "panoramix/error.hpp"
#include "stats/association/regression_parts.hpp"

namespace pmx {
namespace {

constexpr double na = std::numeric_limits<double>::quiet_NaN();
constexpr int newton_steps = 25, firth_steps = 100;
// Largest |step| of a converged fit: the coefficients to 1e-8, far below the 6 digits printed (the
// steps of an ill-conditioned fit, x nearly constant, stall near 1e-9 from rounding in the score).
constexpr double converged = 1e-8;

// The predictors [1, x, centred covariates] and y of one variant's samples (kept, with a call).
struct variant_data {
  std::vector<double> X, y;  // rows × P, rows
  int64_t rows = 0;
};

void gather(const detail::regression_design& d, std::span<const double> y, const uint8_t* calls, variant_data& v) {
  v.X.clear(), v.y.clear();
  for (int64_t i : d.kept) {
    const unsigned code = (calls[i >> 2] >> (2 * (i & 3))) & 3u;
    if (code == 1) continue;
    const double* r = d.rows.data() + i * d.l;
    v.X.push_back(1.0);
    v.X.push_back(code == 0 ? 2.0 : code == 2 ? 1.0 : 0.0);
    for (int64_t k = 0; k < d.q; ++k) v.X.push_back(r[1 + k]);
    v.y.push_back(y[i]);
  }
  v.rows = static_cast<int64_t>(v.y.size());
}

// Information H = Xᵀ W X, score U (Firth's when `firth`: y − p + h(1/2 − p)) and the
// (penalised) log-likelihood at b; Hinv receives H⁻¹. False when H is singular as rounded.
bool information(const variant_data& v, int P, const std::vector<double>& b, bool firth, std::vector<double>& H,
                 std::vector<double>& Hinv, std::vector<double>& U, double& loglik, std::vector<double>& prob) {
  H.assign(static_cast<size_t>(P * P), 0.0);
  prob.resize(static_cast<size_t>(v.rows));
  loglik = 0;
  for (int64_t i = 0; i < v.rows; ++i) {
    const double* x = v.X.data() + i * P;
    double eta = 0;
    for (int k = 0; k < P; ++k) eta += x[k] * b[k];
    const double p = 1 / (1 + std::exp(-eta));
    prob[i] = p;
    // log P(y | eta) without cancellation: −log(1 + e^{−η}) for a case, −log(1 + e^{η}) for a control
    loglik -= v.y[i] > 0.5 ? std::log1p(std::exp(-eta)) : std::log1p(std::exp(eta));
    const double w = p * (1 - p);
    for (int a = 0; a < P; ++a)
      for (int c = 0; c <= a; ++c) H[a * P + c] += w * x[a] * x[c];
  }
  for (int a = 0; a < P; ++a)
    for (int c = 0; c < a; ++c) H[c * P + a] = H[a * P + c];
  Hinv = H;
  if (!detail::invert_spd(Hinv, P)) return false;
  U.assign(static_cast<size_t>(P), 0.0);
  double logdet = 0;
  if (firth) {  // ½ log det H from the pivots is not at hand; the Cholesky diagonal gives it
    std::vector<double> L = H;
    for (int k = 0; k < P; ++k) {
      for (int j = 0; j < k; ++j) L[k * P + k] -= L[k * P + j] * L[k * P + j];
      if (!(L[k * P + k] > 0)) return false;
      L[k * P + k] = std::sqrt(L[k * P + k]);
      for (int r = k + 1; r < P; ++r) {
        for (int j = 0; j < k; ++j) L[r * P + k] -= L[r * P + j] * L[k * P + j];
        L[r * P + k] /= L[k * P + k];
      }
      logdet += 2 * std::log(L[k * P + k]);
    }
    loglik += 0.5 * logdet;
  }
  for (int64_t i = 0; i < v.rows; ++i) {
    const double* x = v.X.data() + i * P;
    const double p = prob[i];
    double r = v.y[i] - p;
    if (firth) {  // the hat value h_i = w_i x_iᵀ H⁻¹ x_i
      double q = 0;
      for (int a = 0; a < P; ++a) {
        double s = 0;
        for (int c = 0; c < P; ++c) s += Hinv[a * P + c] * x[c];
        q += x[a] * s;
      }
      r += p * (1 - p) * q * (0.5 - p);
    }
    for (int a = 0; a < P; ++a) U[a] += r * x[a];
  }
  return true;
}

// Newton's method on the (penalised) log-likelihood from 0, halving a step that lowers it; the
// coefficients and H⁻¹ at the end. False when it does not converge.
bool fit(const variant_data& v, int P, bool firth, std::vector<double>& b, std::vector<double>& Hinv) {
  std::vector<double> H, U, prob, trial;
  b.assign(static_cast<size_t>(P), 0.0);
  double ll = 0;
  if (!information(v, P, b, firth, H, Hinv, U, ll, prob)) return false;
  const int steps = firth ? firth_steps : newton_steps;
  for (int it = 0; it < steps; ++it) {
    std::vector<double> step(static_cast<size_t>(P), 0.0);
    for (int a = 0; a < P; ++a)
      for (int c = 0; c < P; ++c) step[a] += Hinv[a * P + c] * U[c];
    double largest = 0;
    for (double s : step) largest = std::max(largest, std::fabs(s));
    if (!std::isfinite(largest)) return false;
    if (largest <= converged) return true;  // b is the maximum (to rounding); Hinv is at b
    std::vector<double> H2, Hinv2, U2;
    double ll2 = 0;
    bool better = false;
    for (int halving = 0; halving <= 20 && !better; ++halving) {
      trial = b;
      for (int a = 0; a < P; ++a) trial[a] += step[a];
      better = information(v, P, trial, firth, H2, Hinv2, U2, ll2, prob) && ll2 >= ll;
      if (!better) {
        for (double& s : step) s *= 0.5;
      }
    }
    // Near the maximum the (penalised) log-likelihood stops rising by rounding (no fraction of the
    // step raises it): with a step below 1e-4 that is the maximum as doubles see it (Firth's steps
    // on a variant with 2 minor alleles end so); a larger one that cannot rise is a failure.
    if (!better) return largest <= 1e-4;
    const bool flat = ll2 - ll <= 1e-12 * std::fabs(ll);
    b = trial, Hinv = Hinv2, U = U2, ll = ll2;
    // Steps of an ill-conditioned fit (a rare variant) stall near 1e-8 from rounding in the score
    // while the log-likelihood no longer moves: that is the maximum too.
    if (flat && largest <= 1e-6) return true;
  }
  return false;
}

}  // namespace

logistic_association run_logistic_association(const executor& exec, const genotype_source& data,
                                              std::span<const double> y, const double* covariates, int64_t q,
                                              const std::vector<std::string>& names, std::span<const double> alt_freq,
                                              progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  PMX_EXPECTS(static_cast<int64_t>(y.size()) == n, "one phenotype value per sample");
  PMX_EXPECTS(static_cast<int64_t>(alt_freq.size()) == m, "one frequency per variant");
  PMX_EXPECTS(q == 0 || (covariates && static_cast<int64_t>(names.size()) == q), "covariates and their names");
  for (double v : y) PMX_EXPECTS(std::isnan(v) || v == 0 || v == 1, "case/control values are 0, 1 or NaN");
  const detail::regression_design d = detail::make_regression_design(y, covariates, q);
  logistic_association r;
  r.samples = static_cast<int64_t>(d.kept.size());
  r.tests.push_back("ADD");
  r.tests.insert(r.tests.end(), names.begin(), names.end());
  const int64_t T = q + 1, l = d.l;
  const int P = static_cast<int>(q + 2);
  r.a1_is_ref.resize(static_cast<size_t>(m));
  r.firth.assign(static_cast<size_t>(m), 0);
  r.obs_ct.resize(static_cast<size_t>(m));
  r.error.resize(static_cast<size_t>(m));
  for (auto* v : {&r.log_or, &r.se, &r.z, &r.p}) v->assign(static_cast<size_t>(m * T), na);
  detail::for_each_product_block(exec, data, d, progress,
                                 [&](int64_t first, int64_t count, const variant_major_view& g, const double* W,
                                     const variant_counts* counts) {
#pragma omp parallel num_threads(exec.threads())
                                   {
                                     std::vector<double> corr, b, Hinv;
                                     detail::variant_gram vg;
                                     variant_data v;
#pragma omp for schedule(dynamic, 16)
                                     for (int64_t k = 0; k < count; ++k) {
                                       const int64_t j = first + k;
                                       detail::variant_normal_equations(d, g.row(k), W + k * l, counts[k], vg);
                                       r.obs_ct[j] = vg.called;
                                       r.a1_is_ref[j] = detail::a1_is_ref(alt_freq[j]);
                                       if ((r.error[j] = detail::screen_predictors(vg, P, corr)) != glm_error::none)
                                         continue;
                                       gather(d, y, g.row(k), v);
                                       bool ok = fit(v, P, false, b, Hinv);
                                       if (!ok) ok = fit(v, P, true, b, Hinv), r.firth[j] = 1;
                                       if (!ok) {
                                         r.error[j] = glm_error::firth_convergence_failed;
                                         continue;
                                       }
                                       for (int c = 1; c < P; ++c) {
                                         const size_t o = static_cast<size_t>(j * T + c - 1);
                                         const double sign = c == 1 && r.a1_is_ref[j] ? -1.0 : 1.0;
                                         r.log_or[o] = sign * b[c];
                                         r.se[o] = std::sqrt(Hinv[c * P + c]);
                                         r.z[o] = r.log_or[o] / r.se[o];
                                         r.p[o] = std::erfc(std::fabs(r.z[o]) / std::sqrt(2.0));
                                       }
                                     }
                                   }
                                 });
  return r;
}

}  // namespace pmx
