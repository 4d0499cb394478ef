// The restricted likelihood in λ of one mixed-model fit (restricted_likelihood.hpp).
#include "stats/association/restricted_likelihood.hpp"

#include <boost/math/distributions/fisher_f.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace pmx::detail {
namespace {

constexpr double na = std::numeric_limits<double>::quiet_NaN();

// The projections after the first `levels` columns: each column projected out of the Gram
// matrices in turn (P' = P − P·w P·wᵀ / P_ww and its PP, PPP and unweighted companions). The
// pivots P_ww, PP_ww, PPP_ww and I_ww of each level are kept for the traces and determinants.
// A pivot of exactly 0 (a column that is 0) leaves the matrices as they are, as GEMMA does.
struct projections {
  int K = 0, levels = 0;
  std::vector<double> p[4];    // working copies: 0 = unweighted, 1 = P, 2 = PP, 3 = PPP
  std::vector<double> pivot[4];
  double at(int r, int a, int b) const { return p[r][static_cast<size_t>(a * K + b)]; }
};

void project(const weighted_grams& w, int levels, int max_power, projections& s) {
  const int K = w.K;
  s.K = K, s.levels = levels;
  for (int r = 0; r <= 3; ++r) {
    s.pivot[r].assign(static_cast<size_t>(levels), 0.0);
    if (r <= std::max(max_power, 0)) s.p[r] = w.g[r];
  }
  for (int c = 0; c < levels; ++c) {
    auto idx = [K](int a, int b) { return static_cast<size_t>(a * K + b); };
    {  // unweighted: log|WᵀW| and the r² screen
      std::vector<double>& I = s.p[0];
      const double ww = I[idx(c, c)];
      s.pivot[0][c] = ww;
      if (ww != 0)
        for (int a = c + 1; a < K; ++a)
          for (int b = a; b < K; ++b) I[idx(a, b)] = I[idx(b, a)] = I[idx(a, b)] - I[idx(a, c)] * I[idx(b, c)] / ww;
    }
    if (max_power < 1) continue;
    std::vector<double>& P = s.p[1];
    const double pw = P[idx(c, c)];
    s.pivot[1][c] = pw;
    if (max_power >= 2) s.pivot[2][c] = s.p[2][idx(c, c)];
    if (max_power >= 3) s.pivot[3][c] = s.p[3][idx(c, c)];
    if (pw == 0) continue;
    for (int a = c + 1; a < K; ++a)
      for (int b = a; b < K; ++b) {
        const double Pa = P[idx(a, c)], Pb = P[idx(b, c)];
        if (max_power >= 3) {
          const std::vector<double>& PP = s.p[2];
          std::vector<double>& PPP = s.p[3];
          const double PPa = PP[idx(a, c)], PPb = PP[idx(b, c)], PPw = PP[idx(c, c)];
          const double PPPa = PPP[idx(a, c)], PPPb = PPP[idx(b, c)], PPPw = PPP[idx(c, c)];
          PPP[idx(a, b)] = PPP[idx(b, a)] =
              PPP[idx(a, b)] - Pa * Pb * PPw * PPw / (pw * pw * pw) - (Pa * PPPb + Pb * PPPa + PPa * PPb) / pw +
              (Pa * PPb * PPw + Pb * PPa * PPw + Pa * Pb * PPPw) / (pw * pw);
        }
        if (max_power >= 2) {
          std::vector<double>& PP = s.p[2];
          const double PPa = PP[idx(a, c)], PPb = PP[idx(b, c)], PPw = PP[idx(c, c)];
          PP[idx(a, b)] = PP[idx(b, a)] = PP[idx(a, b)] + Pa * Pb * PPw / (pw * pw) - (Pa * PPb + Pb * PPa) / pw;
        }
        P[idx(a, b)] = P[idx(b, a)] = P[idx(a, b)] - Pa * Pb / pw;
      }
  }
}

}  // namespace

void weighted_grams::resize(int columns) {
  K = columns;
  for (auto& m : g) m.assign(static_cast<size_t>(K * K), 0.0);
}

void lambda_weights::set(std::span<const double> d, double l, int max_power, bool with_logdet) {
  lambda = l;
  const auto n = static_cast<int64_t>(d.size());
  for (int r = 0; r < 3; ++r) h[r].resize(r < max_power ? static_cast<size_t>(n) : 0);
  double t1 = 0, t2 = 0;
  double* h1 = h[0].data();
#pragma omp simd reduction(+ : t1, t2)
  for (int64_t i = 0; i < n; ++i) {
    const double hi = 1.0 / (l * d[i] + 1.0);
    h1[i] = hi;
    t1 += hi, t2 += hi * hi;
  }
  if (max_power >= 2) {
    double* h2 = h[1].data();
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) h2[i] = h1[i] * h1[i];
  }
  if (max_power >= 3) {
    double* h3 = h[2].data();
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) h3[i] = h1[i] * h1[i] * h1[i];
  }
  trace_h = t1, trace_h2 = t2;
  logdet_h = std::numeric_limits<double>::quiet_NaN();  // only the likelihood's value needs it
  if (with_logdet) {
    double ld = 0;
    for (int64_t i = 0; i < n; ++i) ld += std::log(std::fabs(l * d[i] + 1.0));
    logdet_h = ld;
  }
}

void weigh_against(const lambda_weights& w, const double* u, const double* const* cols, int count, int64_t n,
                   int max_power, bool with_unweighted, double* out, std::vector<double>& scratch) {
  // h^r ∘ u once, then one pass per column for all powers (two loads per sum instead of three).
  scratch.resize(static_cast<size_t>(max_power * n));
  for (int r = 0; r < max_power; ++r) {
    const double* h = w.h[r].data();
    double* hu = scratch.data() + r * n;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) hu[i] = h[i] * u[i];
  }
  const double *h1 = scratch.data(), *h2 = h1 + n, *h3 = h2 + n;
  for (int b = 0; b < count; ++b) {
    const double* v = cols[b];
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (with_unweighted) {
#pragma omp simd reduction(+ : s0)
      for (int64_t i = 0; i < n; ++i) s0 += u[i] * v[i];
    }
    if (max_power == 1) {
#pragma omp simd reduction(+ : s1)
      for (int64_t i = 0; i < n; ++i) s1 += h1[i] * v[i];
    } else if (max_power == 2) {
#pragma omp simd reduction(+ : s1, s2)
      for (int64_t i = 0; i < n; ++i) s1 += h1[i] * v[i], s2 += h2[i] * v[i];
    } else if (max_power == 3) {
#pragma omp simd reduction(+ : s1, s2, s3)
      for (int64_t i = 0; i < n; ++i) s1 += h1[i] * v[i], s2 += h2[i] * v[i], s3 += h3[i] * v[i];
    }
    double* o = out + 4 * b;
    o[0] = s0, o[1] = s1, o[2] = s2, o[3] = s3;
  }
}

void weigh_columns(const lambda_weights& w, const double* const* cols, int K, int64_t n, int max_power,
                   bool with_unweighted, weighted_grams& out) {
  if (out.K != K) out.resize(K);
  out.lambda = w.lambda;
  out.trace_h = w.trace_h, out.trace_h2 = w.trace_h2, out.logdet_h = w.logdet_h;
  std::vector<double> sums(static_cast<size_t>(4 * K)), scratch;
  for (int a = 0; a < K; ++a) {
    weigh_against(w, cols[a], cols + a, K - a, n, max_power, with_unweighted, sums.data(), scratch);
    for (int b = a; b < K; ++b)
      for (int r = with_unweighted ? 0 : 1; r <= max_power; ++r)
        out.at(r, a, b) = out.at(r, b, a) = sums[4 * (b - a) + r];
  }
}

reml_point restricted_likelihood(const weighted_grams& w, int64_t n, int order) {
  const int K = w.K, nc = K - 1, y = K - 1;
  projections s;
  project(w, nc, order + 1, s);
  const double df = double(n) - double(nc), l = w.lambda;
  double logdet_hiw = 0;
  for (int c = 0; c < nc; ++c) logdet_hiw += std::log(s.pivot[1][c]) - std::log(s.pivot[0][c]);
  const double P_yy = s.at(1, y, y);
  reml_point r;
  // GEMMA floors yᵀPy at 1e-8 in the likelihood (a phenotype the fixed effects fit exactly).
  r.f = 0.5 * df * (std::log(df) - std::log(2 * std::numbers::pi) - 1.0) - 0.5 * w.logdet_h - 0.5 * logdet_hiw -
        0.5 * df * std::log(P_yy < 1e-8 ? 1e-8 : P_yy);
  if (order < 1) return r;
  // K = (H − I)/λ in the eigenbasis, so PKP = (P − PP)/λ, PKPKP = (P − 2PP + PPP)/λ², and with
  // PHP = P, tr PH = df: tr PK = (df − tr P)/λ, tr PKPK = (df − 2 tr P + tr PP)/λ².
  double trace_P = w.trace_h, trace_PP = w.trace_h2;
  for (int c = 0; c < nc; ++c) {
    const double p1 = s.pivot[1][c], p2 = s.pivot[2][c];
    trace_P -= p2 / p1;
    if (order >= 2) trace_PP += p2 * p2 / (p1 * p1) - 2.0 * s.pivot[3][c] / p1;
  }
  const double PP_yy = s.at(2, y, y);
  const double yPKPy = (P_yy - PP_yy) / l;
  r.dev1 = -0.5 * (df - trace_P) / l + 0.5 * df * yPKPy / P_yy;
  if (order < 2) return r;
  const double PPP_yy = s.at(3, y, y);
  const double yPKPKPy = (P_yy + PPP_yy - 2.0 * PP_yy) / (l * l);
  r.dev2 = 0.5 * (df + trace_PP - 2.0 * trace_P) / (l * l) -
           0.5 * df * (2.0 * yPKPKPy * P_yy - yPKPy * yPKPy) / (P_yy * P_yy);
  return r;
}

double projected_yy(const weighted_grams& w) {
  projections s;
  project(w, w.K - 1, 1, s);
  return s.at(1, w.K - 1, w.K - 1);
}

wald_result wald_test(const weighted_grams& w, int64_t n) {
  const int K = w.K, c = K - 2, x = K - 2, y = K - 1;
  projections s;
  project(w, c, 1, s);
  const double P_xx = s.at(1, x, x), P_xy = s.at(1, x, y), P_yy = s.at(1, y, y);
  const double Px_yy = P_yy - P_xy * P_xy / P_xx;  // after x too
  const double df = double(n) - double(c) - 1.0;
  wald_result r;
  r.beta = P_xy / P_xx;
  const double tau = df / Px_yy;
  r.se = std::sqrt(1.0 / (tau * P_xx));
  const double F = (P_yy - Px_yy) * tau;
  r.p = std::isfinite(F) && F >= 0 ? boost::math::cdf(boost::math::complement(boost::math::fisher_f(1.0, df), F)) : na;
  return r;
}

double r2_on_previous(const weighted_grams& w, int x) {
  projections s;
  project(w, x, 0, s);
  const double total = w.at(0, x, x), residual = s.at(0, x, x);
  return total > 0 ? 1.0 - residual / total : 1.0;
}

double lambda_search::grid(int k) const {
  return l_min * std::exp(std::log(l_max / l_min) / double(regions) * double(k));
}

namespace {

// A root of dL/dλ in [lo, hi] (opposite signs at the ends) as GEMMA finds it: Brent–Dekker steps
// (Brent 1973, ch. 4: inverse quadratic or secant interpolation, else bisection) until the
// bracket is within 10 % of its lower end, then Newton steps λ ← λ − L'/L'' from Brent's last point
// until one moves λ by less than 1e-5 relative; GEMMA keeps the point before that last step, and
// so does this. NaN when Newton leaves (l_min, l_max) or stalls (GEMMA's NA).
double gemma_root(double lo, double hi, double f_lo, double f_hi, const lambda_search& s,
                  const std::function<reml_point(double, int)>& at) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  double a = lo, b = hi, c = hi, fa = f_lo, fb = f_hi, fc = f_hi, d = hi - lo, e = hi - lo;
  double root = b;
  for (int iter = 0; iter < 100; ++iter) {
    bool ac_equal = false;
    if ((fb < 0 && fc < 0) || (fb > 0 && fc > 0)) ac_equal = true, c = a, fc = fa, d = e = b - a;
    if (std::fabs(fc) < std::fabs(fb)) ac_equal = true, a = b, b = c, c = a, fa = fb, fb = fc, fc = fa;
    const double tol = 0.5 * eps * std::fabs(b), m = 0.5 * (c - b);
    if (fb == 0 || std::fabs(m) <= tol) {
      root = b;
      break;
    }
    if (std::fabs(e) < tol || std::fabs(fa) <= std::fabs(fb)) {
      d = e = m;
    } else {
      const double sr = fb / fa;
      double p, q;
      if (ac_equal) {
        p = 2 * m * sr, q = 1 - sr;
      } else {
        const double qa = fa / fc, r = fb / fc;
        p = sr * (2 * m * qa * (qa - r) - (b - a) * (r - 1));
        q = (qa - 1) * (r - 1) * (sr - 1);
      }
      if (p > 0) q = -q; else p = -p;
      if (2 * p < std::min(3 * m * q - std::fabs(tol * q), std::fabs(e * q))) e = d, d = p / q;
      else d = e = m;
    }
    a = b, fa = fb;
    b += std::fabs(d) > tol ? d : (m > 0 ? tol : -tol);
    fb = at(b, 1).dev1;
    root = b;
    if ((fb < 0 && fc < 0) || (fb > 0 && fc > 0)) c = a;
    const double lower = std::min(b, c), upper = std::max(b, c);
    const double min_abs = (lower > 0 && upper > 0) || (lower < 0 && upper < 0)
                               ? std::min(std::fabs(lower), std::fabs(upper)) : 0.0;
    if (std::fabs(upper - lower) < 0.1 * min_abs) break;
  }
  double l = root, previous = root;
  reml_point e2 = at(l, 2);
  for (int iter = 0; iter < 100; ++iter) {
    if (e2.dev2 == 0 || !std::isfinite(e2.dev1 / e2.dev2)) return na;
    previous = l;
    l = l - e2.dev1 / e2.dev2;
    if (std::fabs(l - previous) < 1e-5 * std::fabs(l)) return previous;
    if (!(l > s.l_min && l < s.l_max)) return na;
    e2 = at(l, 2);
  }
  return na;
}

}  // namespace

lambda_fit maximise_restricted_likelihood(const lambda_search& s, const std::function<double(int)>& grid_dev1,
                                          const std::function<reml_point(double, int)>& at) {
  std::vector<double> d(static_cast<size_t>(s.regions + 1));
  for (int k = 0; k <= s.regions; ++k) d[k] = grid_dev1(k);
  lambda_fit best{na, na};
  bool any = false;
  for (int k = 0; k < s.regions; ++k) {
    if (!(d[k] * d[k + 1] <= 0)) continue;
    double l = gemma_root(s.grid(k), s.grid(k + 1), d[k], d[k + 1], s, at);
    if (std::isnan(l)) return {na, na};  // GEMMA reports the variant as NA
    l = std::min(std::max(l, s.l_min), s.l_max);
    const double f = at(l, 0).f;
    if (!any || f > best.logl) best = {l, f};
    any = true;
  }
  const double f_min = at(s.l_min, 0).f, f_max = at(s.l_max, 0).f;
  if (!any) return f_min >= f_max ? lambda_fit{s.l_min, f_min} : lambda_fit{s.l_max, f_max};
  if (f_min > best.logl) best = {s.l_min, f_min};
  if (f_max > best.logl) best = {s.l_max, f_max};
  return best;
}

}  // namespace pmx::detail
