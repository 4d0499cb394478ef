// The restricted likelihood of one mixed-model fit in the eigenbasis of K, from its weighted Gram
// sums, and GEMMA's search for the λ that maximises it: host and device code, so that the cpu
// search (cpu.cpp) and the cuda kernel (cuda.cu) run the same arithmetic.
//
// The fit's columns, rotated by Uᵀ, are [W (c columns) | x (optional) | y]. With h_i = 1/(λ d_i + 1),
// every quantity comes from the weighted Gram matrices G_r = Σ_i h_i^r v_i v_iᵀ (r = 0..3, K × K,
// row-major) of those columns (Zhou & Stephens 2012, supplement §3.1; GEMMA's LogRL_f, LogRL_dev1,
// LogRL_dev2 and CalcRLWald compute the same quantities through the same projections): projecting
// out the fixed-effect columns one at a time (a Schur complement per column) gives yᵀPy, yᵀPPy,
// yᵀPPPy, tr P, tr PP and log|WᵀH⁻¹W| − log|WᵀW|, hence the likelihood and its first two
// derivatives in λ, in O(K³) once the O(nK²) sums are formed.
#pragma once
#include <float.h>
#include <math.h>

#if defined(__CUDACC__)
#define PMX_REML_HD __host__ __device__
// The search templates call their `at` functor, __device__ in the kernel: no host instantiation
// of those is ever made, so nvcc's host/device call check is off for them.
#define PMX_REML_TEMPLATE_CHECK _Pragma("nv_exec_check_disable")
#else
#define PMX_REML_HD
#define PMX_REML_TEMPLATE_CHECK
#endif

namespace pmx::detail::reml {

PMX_REML_HD inline double not_a_number() {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(0x7ff8000000000000LL);
#else
  return __builtin_nan("");
#endif
}
// std::min / std::max's comparisons (fmin/fmax treat NaN otherwise).
PMX_REML_HD inline double lesser(double a, double b) { return b < a ? b : a; }
PMX_REML_HD inline double greater(double a, double b) { return a < b ? b : a; }

/// The Gram sums of one λ: g[r] = G_r (K × K, row-major, symmetric; g[0] unweighted) with the
/// traces Σh, Σh² and Σ log|λd + 1| of that λ.
struct grams {
  int K = 0;
  double lambda = 0;
  const double* g[4] = {};
  double trace_h = 0, trace_h2 = 0, logdet_h = 0;
  PMX_REML_HD double at(int r, int a, int b) const { return g[r][a * K + b]; }
};

/// Working storage of the projections: p[r] K × K and pivot[r] K doubles each, r = 0..3.
struct workspace {
  double* p[4] = {};
  double* pivot[4] = {};
};

struct point {
  double f = 0, dev1 = 0, dev2 = 0;
};

/// The projections after the first `levels` columns: each column projected out of the Gram
/// matrices in turn (P' = P − P·w P·wᵀ / P_ww and its PP, PPP and unweighted companions), powers
/// up to max_power (0: the unweighted ones only). The pivots P_ww, PP_ww, PPP_ww and I_ww of each
/// level are kept for the traces and determinants. A pivot of exactly 0 (a column that is 0)
/// leaves the matrices as they are, as GEMMA does.
PMX_REML_HD inline void project(const grams& w, int levels, int max_power, const workspace& s) {
  const int K = w.K;
  for (int r = 0; r <= 3; ++r) {
    for (int c = 0; c < levels; ++c) s.pivot[r][c] = 0;
    if (r <= (max_power > 0 ? max_power : 0))
      for (int e = 0; e < K * K; ++e) s.p[r][e] = w.g[r][e];
  }
  for (int c = 0; c < levels; ++c) {
    {  // unweighted: log|WᵀW| and the r² screen
      double* I = s.p[0];
      const double ww = I[c * K + c];
      s.pivot[0][c] = ww;
      if (ww != 0)
        for (int a = c + 1; a < K; ++a)
          for (int b = a; b < K; ++b) I[a * K + b] = I[b * K + a] = I[a * K + b] - I[a * K + c] * I[b * K + c] / ww;
    }
    if (max_power < 1) continue;
    double* P = s.p[1];
    const double pw = P[c * K + c];
    s.pivot[1][c] = pw;
    if (max_power >= 2) s.pivot[2][c] = s.p[2][c * K + c];
    if (max_power >= 3) s.pivot[3][c] = s.p[3][c * K + c];
    if (pw == 0) continue;
    for (int a = c + 1; a < K; ++a)
      for (int b = a; b < K; ++b) {
        const double Pa = P[a * K + c], Pb = P[b * K + c];
        if (max_power >= 3) {
          const double* PP = s.p[2];
          double* PPP = s.p[3];
          const double PPa = PP[a * K + c], PPb = PP[b * K + c], PPw = PP[c * K + c];
          const double PPPa = PPP[a * K + c], PPPb = PPP[b * K + c], PPPw = PPP[c * K + c];
          PPP[a * K + b] = PPP[b * K + a] =
              PPP[a * K + b] - Pa * Pb * PPw * PPw / (pw * pw * pw) - (Pa * PPPb + Pb * PPPa + PPa * PPb) / pw +
              (Pa * PPb * PPw + Pb * PPa * PPw + Pa * Pb * PPPw) / (pw * pw);
        }
        if (max_power >= 2) {
          double* PP = s.p[2];
          const double PPa = PP[a * K + c], PPb = PP[b * K + c], PPw = PP[c * K + c];
          PP[a * K + b] = PP[b * K + a] = PP[a * K + b] + Pa * Pb * PPw / (pw * pw) - (Pa * PPb + Pb * PPa) / pw;
        }
        P[a * K + b] = P[b * K + a] = P[a * K + b] - Pa * Pb / pw;
      }
  }
}

/// log L_R(λ) (GEMMA's normalisation), dL/dλ and d²L/dλ² (order 0, 1 or 2; powers up to order + 1
/// must be present, and the unweighted G_0 for order 0) of y given the other K − 1 columns as
/// fixed effects, over n samples.
PMX_REML_HD inline point likelihood(const grams& w, double n, int order, const workspace& s) {
  const int K = w.K, nc = K - 1, y = K - 1;
  project(w, nc, order + 1, s);
  const double df = n - double(nc), l = w.lambda;
  double logdet_hiw = 0;
  for (int c = 0; c < nc; ++c) logdet_hiw += log(s.pivot[1][c]) - log(s.pivot[0][c]);
  const double P_yy = s.p[1][y * K + y];
  constexpr double pi = 3.14159265358979323846;
  point r;
  // GEMMA floors yᵀPy at 1e-8 in the likelihood (a phenotype the fixed effects fit exactly).
  r.f = 0.5 * df * (log(df) - log(2 * pi) - 1.0) - 0.5 * w.logdet_h - 0.5 * logdet_hiw -
        0.5 * df * log(P_yy < 1e-8 ? 1e-8 : P_yy);
  if (order < 1) return r;
  // K = (H − I)/λ in the eigenbasis, so PKP = (P − PP)/λ, PKPKP = (P − 2PP + PPP)/λ², and with
  // PHP = P, tr PH = df: tr PK = (df − tr P)/λ, tr PKPK = (df − 2 tr P + tr PP)/λ².
  double trace_P = w.trace_h, trace_PP = w.trace_h2;
  for (int c = 0; c < nc; ++c) {
    const double p1 = s.pivot[1][c], p2 = s.pivot[2][c];
    trace_P -= p2 / p1;
    if (order >= 2) trace_PP += p2 * p2 / (p1 * p1) - 2.0 * s.pivot[3][c] / p1;
  }
  const double PP_yy = s.p[2][y * K + y];
  const double yPKPy = (P_yy - PP_yy) / l;
  r.dev1 = -0.5 * (df - trace_P) / l + 0.5 * df * yPKPy / P_yy;
  if (order < 2) return r;
  const double PPP_yy = s.p[3][y * K + y];
  const double yPKPKPy = (P_yy + PPP_yy - 2.0 * PP_yy) / (l * l);
  r.dev2 = 0.5 * (df + trace_PP - 2.0 * trace_P) / (l * l) -
           0.5 * df * (2.0 * yPKPKPy * P_yy - yPKPy * yPKPy) / (P_yy * P_yy);
  return r;
}

/// yᵀPy after all K − 1 other columns (GEMMA's P_yy; σe² = P_yy / (n − K + 1) at the REML λ).
PMX_REML_HD inline double projected_yy(const grams& w, const workspace& s) {
  project(w, w.K - 1, 1, s);
  return s.p[1][(w.K - 1) * w.K + (w.K - 1)];
}

/// GEMMA's Wald test of column K − 2 (x) after the first K − 2 (W), at the λ the Grams are of:
/// β = xᵀPy/xᵀPx, se² = yᵀP₁y / ((n − K + 1) xᵀPx), and the statistic F = β²/se² with (1, df)
/// degrees of freedom (its upper tail, the p-value, is the caller's: Boost on the host).
struct wald {
  double beta = 0, se = 0, F = 0, df = 0;
};
PMX_REML_HD inline wald wald_test(const grams& w, double n, const workspace& s) {
  const int K = w.K, c = K - 2, x = K - 2, y = K - 1;
  project(w, c, 1, s);
  const double P_xx = s.p[1][x * K + x], P_xy = s.p[1][x * K + y], P_yy = s.p[1][y * K + y];
  const double Px_yy = P_yy - P_xy * P_xy / P_xx;  // after x too
  wald r;
  r.df = n - double(c) - 1.0;
  r.beta = P_xy / P_xx;
  const double tau = r.df / Px_yy;
  r.se = sqrt(1.0 / (tau * P_xx));
  r.F = (P_yy - Px_yy) * tau;
  return r;
}

/// r² of column `x` on the first `x` columns (unweighted, G_0): 1 − residual / total sum of squares
/// of x, whose sum is 0 (x centred, the intercept among the first columns).
PMX_REML_HD inline double r2_on_previous(const grams& w, int x, const workspace& s) {
  project(w, x, 0, s);
  const double total = w.at(0, x, x), residual = s.p[0][x * w.K + x];
  return total > 0 ? 1.0 - residual / total : 1.0;
}

/// x is tested only when r2_on_previous(x) is at most this (GEMMA's -r2 default).
constexpr double max_r2 = 0.9999;

/// GEMMA's CalcLambda: dL/dλ at the regions + 1 log-spaced points grid[0..regions] of
/// [l_min, l_max] (grid_dev1(k)); in every interval where it changes sign (or is 0), its root
/// (gemma_root); the root of the largest likelihood, replaced by l_min or l_max where either is
/// larger still (with no sign change, the larger end). `at(λ, order)` gives the point; NaN λ when a
/// root search fails (GEMMA's NA).
struct search {
  double l_min = 1e-5, l_max = 1e5;
  int regions = 10;
  const double* grid = nullptr;  // regions + 1 points from l_min (the last within rounding of l_max)
};
struct fit {
  double lambda = 0, logl = 0;
};

/// A root of dL/dλ in [lo, hi] (opposite signs at the ends) as GEMMA finds it: Brent–Dekker steps
/// (Brent 1973, ch. 4: inverse quadratic or secant interpolation, else bisection) until the
/// bracket is within 10 % of its lower end, then Newton steps λ ← λ − L'/L'' from Brent's last point
/// until one moves λ by less than 1e-5 relative; GEMMA keeps the point before that last step, and
/// so does this. NaN when Newton leaves (l_min, l_max) or stalls (GEMMA's NA).
PMX_REML_TEMPLATE_CHECK
template <class At>
PMX_REML_HD double gemma_root(double lo, double hi, double f_lo, double f_hi, const search& s, At& at) {
  constexpr double eps = DBL_EPSILON;
  double a = lo, b = hi, c = hi, fa = f_lo, fb = f_hi, fc = f_hi, d = hi - lo, e = hi - lo;
  double root = b;
  for (int iter = 0; iter < 100; ++iter) {
    bool ac_equal = false;
    if ((fb < 0 && fc < 0) || (fb > 0 && fc > 0)) ac_equal = true, c = a, fc = fa, d = e = b - a;
    if (fabs(fc) < fabs(fb)) ac_equal = true, a = b, b = c, c = a, fa = fb, fb = fc, fc = fa;
    const double tol = 0.5 * eps * fabs(b), m = 0.5 * (c - b);
    if (fb == 0 || fabs(m) <= tol) {
      root = b;
      break;
    }
    if (fabs(e) < tol || fabs(fa) <= fabs(fb)) {
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
      if (2 * p < lesser(3 * m * q - fabs(tol * q), fabs(e * q))) e = d, d = p / q;
      else d = e = m;
    }
    a = b, fa = fb;
    b += fabs(d) > tol ? d : (m > 0 ? tol : -tol);
    fb = at(b, 1).dev1;
    root = b;
    if ((fb < 0 && fc < 0) || (fb > 0 && fc > 0)) c = a;
    const double lower = lesser(b, c), upper = greater(b, c);
    const double min_abs =
        (lower > 0 && upper > 0) || (lower < 0 && upper < 0) ? lesser(fabs(lower), fabs(upper)) : 0.0;
    if (fabs(upper - lower) < 0.1 * min_abs) break;
  }
  double l = root, previous = root;
  point e2 = at(l, 2);
  for (int iter = 0; iter < 100; ++iter) {
    if (e2.dev2 == 0 || !isfinite(e2.dev1 / e2.dev2)) return not_a_number();
    previous = l;
    l = l - e2.dev1 / e2.dev2;
    if (fabs(l - previous) < 1e-5 * fabs(l)) return previous;
    if (!(l > s.l_min && l < s.l_max)) return not_a_number();
    e2 = at(l, 2);
  }
  return not_a_number();
}

PMX_REML_TEMPLATE_CHECK
template <class GridDev1, class At>
PMX_REML_HD fit maximise(const search& s, GridDev1& grid_dev1, At& at) {
  const double na = not_a_number();
  fit best{na, na};
  bool any = false;
  double d_next = grid_dev1(0);
  for (int k = 0; k < s.regions; ++k) {
    const double d_k = d_next;
    d_next = grid_dev1(k + 1);
    if (!(d_k * d_next <= 0)) continue;
    double l = gemma_root(s.grid[k], s.grid[k + 1], d_k, d_next, s, at);
    if (isnan(l)) return {na, na};  // GEMMA reports the variant as NA
    l = lesser(greater(l, s.l_min), s.l_max);
    const double f = at(l, 0).f;
    if (!any || f > best.logl) best = {l, f};
    any = true;
  }
  const double f_min = at(s.l_min, 0).f, f_max = at(s.l_max, 0).f;
  if (!any) return f_min >= f_max ? fit{s.l_min, f_min} : fit{s.l_max, f_max};
  if (f_min > best.logl) best = {s.l_min, f_min};
  if (f_max > best.logl) best = {s.l_max, f_max};
  return best;
}

}  // namespace pmx::detail::reml
