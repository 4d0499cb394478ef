// The profiled REML likelihood of one genomic random effect and its optimiser over h². Knows
// nothing of how H = h²G + (1−h²)I is factored: that is the evaluator's business (reml_eigen.cpp,
// reml_cholesky.cpp).
#include "panoramix/reml.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx {
namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

// Small p × p symmetric positive definite systems (the fixed effects): the op on one thread of
// the host executor; returns log det and overwrites B (p × m, column-major) with K⁻¹B.
double small_spd_solve(const executor& host, int64_t p, std::vector<double> K, int64_t m, double* B) {
  if (p == 0) return 0;
  return cholesky_solve(host.with_threads(1), p, K.data(), p, m, B, p);
}

// Block [0,p)×[0,p) of a q × q row-major matrix.
std::vector<double> xx_block(const std::vector<double>& g, int64_t q) {
  const int64_t p = q - 1;
  std::vector<double> out(p * p);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j) out[i * p + j] = g[i * q + j];
  return out;
}

double quad(const std::vector<double>& g, const std::vector<double>& w, int64_t q) {
  long double s = 0;
  for (int64_t i = 0; i < q; ++i)
    for (int64_t j = 0; j < q; ++j) s += static_cast<long double>(w[i]) * g[i * q + j] * w[j];
  return static_cast<double>(s);
}

// tr(Kinv · B) for p × p matrices (Kinv column-major, symmetric B row-major: same thing).
double trace_product(const std::vector<double>& a, const std::vector<double>& b, int64_t p) {
  double s = 0;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j) s += a[i * p + j] * b[j * p + i];
  return s;
}

}  // namespace

namespace {
double logdet_spd_xtx(const executor& host, int64_t p, const std::vector<double>& K) {
  std::vector<double> none(p, 0.0);
  try {
    return small_spd_solve(host, p, K, 1, none.data());
  } catch (const numeric_error&) {
    throw numeric_error("the fixed effects are collinear (XᵀX is singular): drop a covariate that "
                        "is constant or a combination of others");
  }
}
// At h² = 0, H = I and the evaluation's Aᵀ H⁻¹ A is AᵀA.
double logdet_xtx_of(const executor& host, const h2_evaluation& at0, int64_t q) {
  return logdet_spd_xtx(host, q - 1, xx_block(at0.gram[0], q));
}
}  // namespace

double logdet_xtx(const executor& host, int64_t n, int64_t q, const double* A) {
  const int64_t p = q - 1;
  std::vector<double> K(p * p);
  for (int64_t a = 0; a < p; ++a)
    for (int64_t b = 0; b <= a; ++b) {
      long double s = 0;
      for (int64_t i = 0; i < n; ++i) s += static_cast<long double>(A[a * n + i]) * A[b * n + i];
      K[a * p + b] = K[b * p + a] = static_cast<double>(s);
    }
  return logdet_spd_xtx(host, p, K);
}

reml_profile_point reml_profile(const executor& host, const h2_evaluation& e, int64_t n, int64_t q,
                                double logdet_XtX) {
  const int64_t p = q - 1;
  const double df = static_cast<double>(n - p);
  const double t = e.h2;
  reml_profile_point r;
  r.h2 = t;
  // β̂ = M⁻¹ XᵀH⁻¹y with M = XᵀH⁻¹X; Minv = M⁻¹ as well (for traces and cov β̂).
  const auto M = xx_block(e.gram[0], q);
  std::vector<double> rhs(p * (p + 1), 0.0);
  for (int64_t i = 0; i < p; ++i) {
    rhs[i] = e.gram[0][i * q + p];       // column 0: XᵀH⁻¹y
    rhs[(1 + i) * p + i] = 1.0;          // columns 1..p: identity
  }
  double logdet_M = 0;
  try {
    logdet_M = small_spd_solve(host, p, M, p + 1, rhs.data());
  } catch (const numeric_error&) {
    throw numeric_error("XᵀH⁻¹X is not positive definite at h² = " + std::to_string(t) +
                        " (collinear fixed effects?)");
  }
  r.beta.assign(rhs.begin(), rhs.begin() + p);
  std::vector<double> Minv(rhs.begin() + p, rhs.end());  // column-major = row-major (symmetric)
  std::vector<double> w(q);
  for (int64_t i = 0; i < p; ++i) w[i] = -r.beta[i];
  w[p] = 1.0;
  // yᵀPy = rᵀH⁻¹r with r = y − Xβ̂ = A w.
  r.yPy = quad(e.gram[0], w, q);
  if (!(r.yPy > 0))
    throw numeric_error("yᵀPy = " + std::to_string(r.yPy) +
                        " at h² = " + std::to_string(t) + ": the fixed effects fit y exactly");
  r.sigma2 = r.yPy / df;
  r.logl = 0.5 * df * (std::log(df) - std::log(2 * std::numbers::pi) - 1.0) - 0.5 * e.logdet_H -
           0.5 * logdet_M + 0.5 * logdet_XtX - 0.5 * df * std::log(r.yPy);
  r.cov_beta.resize(p * p);
  for (int64_t i = 0; i < p * p; ++i) r.cov_beta[i] = r.sigma2 * Minv[i];

  r.dlogl = r.d2logl = nan_v;
  r.ai[0] = r.ai[1] = r.ai[2] = nan_v;
  if (e.detail == h2_detail::value) return r;
  // yᵀP²y = ‖H⁻¹r‖², yᵀP³y = (Py)ᵀP(Py) = rᵀH⁻³r − (XᵀH⁻²r)ᵀ M⁻¹ (XᵀH⁻²r).
  const double yP2y = quad(e.gram[1], w, q);
  std::vector<double> x2r(p, 0.0);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < q; ++j) x2r[i] += e.gram[1][i * q + j] * w[j];
  double corr = 0;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j) corr += x2r[i] * Minv[i * p + j] * x2r[j];
  const double yP3y = quad(e.gram[2], w, q) - corr;
  // AI of (σ²_g, σ²_e), V = σ²H: with G = (H − (1−h²)I)/h² and PHP = P (P = P_H),
  //   P G P = (P − (1−h²)P²)/h²,  P G P G P = (P − 2(1−h²)P² + (1−h²)²P³)/h⁴, and P_V = P/σ²,
  // so AI_ij = ½ yᵀP_V V_i P_V V_j P_V y needs only yᵀPy, yᵀP²y, yᵀP³y.
  const double s6 = r.sigma2 * r.sigma2 * r.sigma2, u = 1.0 - t;
  r.ai[0] = 0.5 * (r.yPy - 2 * u * yP2y + u * u * yP3y) / (t * t * s6);
  r.ai[1] = 0.5 * (yP2y - u * yP3y) / (t * s6);
  r.ai[2] = 0.5 * yP3y / s6;
  if (e.detail != h2_detail::derivatives) return r;
  // dH/dh² = G − I = (H − I)/h², so every term is a polynomial in P:
  //   tr(PḢ) = (df − tr P)/h², yPḢPy = (yPy − yP²y)/h²,
  //   tr(PḢPḢ) = (df − 2 tr P + tr P²)/h⁴, yPḢPḢPy = (yPy − 2yP²y + yP³y)/h⁴ (h⁴ = (h²)²).
  const auto K2 = xx_block(e.gram[1], q), K3 = xx_block(e.gram[2], q);
  std::vector<double> MK2(p * p, 0.0);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j)
      for (int64_t k = 0; k < p; ++k) MK2[i * p + j] += Minv[i * p + k] * K2[k * p + j];
  const double trP = e.trace_Hinv - trace_product(Minv, K2, p);
  const double trP2 = e.trace_Hinv2 - 2 * trace_product(Minv, K3, p) + trace_product(MK2, MK2, p);
  const double a1 = (r.yPy - yP2y) / t;                       // yPḢPy
  const double a2 = (r.yPy - 2 * yP2y + yP3y) / (t * t);      // yPḢPḢPy
  r.dlogl = -0.5 * (df - trP) / t + 0.5 * df * a1 / r.yPy;
  r.d2logl = 0.5 * (df - 2 * trP + trP2) / (t * t) -
             0.5 * df * (2 * a2 * r.yPy - a1 * a1) / (r.yPy * r.yPy);
  return r;
}

namespace {

reml_result finish(const h2_evaluator& ev, double h2, double logdet_XtX, bool estimated,
                   bool boundary, int evaluations) {
  const h2_evaluation e = ev.evaluate(h2, h2_detail::information);
  reml_result res;
  res.at = reml_profile(ev.host(), e, ev.n(), ev.q(), logdet_XtX);
  res.h2 = h2;
  res.logl = res.at.logl;
  res.sigma2_g = h2 * res.at.sigma2;
  res.sigma2_e = (1 - h2) * res.at.sigma2;
  res.estimated = estimated;
  res.boundary = boundary;
  res.evaluations = evaluations + 1;
  const double df = static_cast<double>(ev.n() - ev.q() + 1);
  if (!estimated) {
    // Only σ² is estimated: Var(σ̂²) = 2σ⁴/(n − p) (REML information ½ tr(P_V H P_V H)).
    const double se = res.at.sigma2 * std::sqrt(2.0 / df);
    res.se_sigma2_g = h2 * se;
    res.se_sigma2_e = (1 - h2) * se;
    res.se_h2 = nan_v;
    return res;
  }
  if (boundary || !(h2 > 0)) {
    res.se_sigma2_g = res.se_sigma2_e = res.se_h2 = nan_v;
    return res;
  }
  const double gg = res.at.ai[0], ge = res.at.ai[1], ee = res.at.ai[2];
  const double det = gg * ee - ge * ge;
  const double vgg = ee / det, vee = gg / det, vge = -ge / det;
  const double vp = res.sigma2_g + res.sigma2_e;
  const double dg = res.sigma2_e / (vp * vp), de = -res.sigma2_g / (vp * vp);
  res.se_sigma2_g = std::sqrt(vgg);
  res.se_sigma2_e = std::sqrt(vee);
  res.se_h2 = std::sqrt(dg * dg * vgg + 2 * dg * de * vge + de * de * vee);
  return res;
}

// Brent's minimiser (Brent 1973, ch. 5): golden section with parabolic steps, on [a, b].
template <class F>
double brent_minimise(F&& f, double a, double b, double tol, double& fx_out) {
  const double c = 0.5 * (3.0 - std::sqrt(5.0));
  const double eps = std::sqrt(std::numeric_limits<double>::epsilon());
  double x = a + c * (b - a), w = x, v = x;
  double fx = f(x), fw = fx, fv = fx;
  double d = 0, e = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const double m = 0.5 * (a + b);
    const double tol1 = eps * std::fabs(x) + tol / 3, tol2 = 2 * tol1;
    if (std::fabs(x - m) <= tol2 - 0.5 * (b - a)) break;
    bool golden = true;
    if (std::fabs(e) > tol1) {
      double r = (x - w) * (fx - fv), q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      else q = -q;
      if (std::fabs(p) < std::fabs(0.5 * q * e) && p > q * (a - x) && p < q * (b - x)) {
        e = d;
        d = p / q;
        const double u = x + d;
        if (u - a < tol2 || b - u < tol2) d = x < m ? tol1 : -tol1;
        golden = false;
      }
    }
    if (golden) {
      e = (x < m ? b : a) - x;
      d = c * e;
    }
    const double u = x + (std::fabs(d) >= tol1 ? d : (d > 0 ? tol1 : -tol1));
    const double fu = f(u);
    if (fu <= fx) {
      (u < x ? b : a) = x;
      v = w; fv = fw;
      w = x; fw = fx;
      x = u; fx = fu;
    } else {
      (u < x ? a : b) = u;
      if (fu <= fw || w == x) {
        v = w; fv = fw;
        w = u; fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u; fv = fu;
      }
    }
  }
  fx_out = fx;
  return x;
}

}  // namespace

reml_result fit_reml(const h2_evaluator& ev, const reml_options& opt) {
  const int64_t n = ev.n(), q = ev.q();
  if (n - (q - 1) < 2)
    throw input_error("REML needs more fitted samples than fixed effects + 1 (" +
                      std::to_string(n) + " samples, " + std::to_string(q - 1) + " fixed effects)");
  const double hi = std::min(opt.h2_max, ev.h2_limit() * (1 - 1e-7));
  int evaluations = 0;
  // log det(XᵀX) is a constant of the likelihood: Aᵀ H⁻¹ A at h² = 0 is AᵀA.
  const h2_evaluation at0 = ev.evaluate(0.0, h2_detail::value);
  ++evaluations;
  const double ld_xtx = logdet_xtx_of(ev.host(), at0, q);
  auto logl = [&](double h2) {
    ++evaluations;
    try {
      const h2_evaluation e = h2 == 0.0 ? at0 : ev.evaluate(h2, h2_detail::value);
      const double l = reml_profile(ev.host(), e, n, q, ld_xtx).logl;
      return std::isnan(l) ? -std::numeric_limits<double>::infinity() : l;  // NaN never wins a comparison
    } catch (const numeric_error&) {
      return -std::numeric_limits<double>::infinity();  // H not positive definite there
    }
  };
  // Grid first (the likelihood can have more than one local maximum), then Brent on the bracket.
  const int k = std::max(opt.grid, 2);
  std::vector<double> xs(k + 1), fs(k + 1);
  int best = 0;
  for (int i = 0; i <= k; ++i) {
    xs[i] = hi * i / k;
    fs[i] = logl(xs[i]);
    if (std::isnan(fs[i])) fs[i] = -std::numeric_limits<double>::infinity();  // never the maximum
    if (fs[i] > fs[best]) best = i;
  }
  if (!std::isfinite(fs[best]))
    throw numeric_error("the REML likelihood is not finite anywhere on h² ∈ [0, " +
                        std::to_string(hi) + "]: h²G + (1−h²)I is not positive definite");
  const double lo_b = xs[std::max(best - 1, 0)], hi_b = xs[std::min(best + 1, k)];
  double fmin = 0;
  double h2 = brent_minimise([&](double x) { return -logl(x); }, lo_b, hi_b, opt.tolerance, fmin);
  double best_logl = -fmin;
  if (!std::isfinite(best_logl) && std::isfinite(fs[best])) {  // Brent met only NaN/-inf: the grid's best
    h2 = xs[best];
    best_logl = fs[best];
  }
  // The ends themselves (Brent never evaluates the bracket's ends).
  for (double end : {lo_b, hi_b})
    if ((end == 0.0 || end == xs[k]) && fs[end == 0.0 ? 0 : k] >= best_logl) {
      h2 = end;
      best_logl = fs[end == 0.0 ? 0 : k];
    }
  const double edge = 1e-6;
  bool boundary = h2 <= edge || h2 >= hi - edge;
  // Newton with exact derivatives: Brent stops where logL differences drown in rounding
  // (|Δh²| ~ 1e-6); the score pins ĥ² to ~1e-12.
  if (opt.newton && !boundary) {
    for (int it = 0; it < 20; ++it) {
      ++evaluations;
      const auto e = ev.evaluate(h2, h2_detail::derivatives);
      const auto pt = reml_profile(ev.host(), e, n, q, ld_xtx);
      if (!std::isfinite(pt.dlogl) || !(pt.d2logl < 0) || !std::isfinite(pt.d2logl)) break;  // keep Brent's h²
      double step = -pt.dlogl / pt.d2logl;
      const double next = std::clamp(h2 + step, lo_b, hi_b);
      step = next - h2;
      h2 = next;
      if (std::fabs(step) < 1e-13 * std::max(1.0, h2)) break;
    }
    boundary = h2 <= edge || h2 >= hi - edge;
  }
  return finish(ev, h2, ld_xtx, true, boundary, evaluations);
}

reml_result fit_known_h2(const h2_evaluator& ev, double h2) {
  if (!(h2 >= 0 && h2 < 1)) throw input_error("--h2 must be in [0, 1), got " + std::to_string(h2));
  const double ld_xtx = logdet_xtx_of(ev.host(), ev.evaluate(0.0, h2_detail::value), ev.q());
  return finish(ev, h2, ld_xtx, false, false, 2);
}

}  // namespace pmx
