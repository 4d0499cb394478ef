// One distance's Matérn sums over the exp-sinh table (quadrature_table.hpp), shared by the host
// backends and the CUDA kernel (host-device inline). The mathematics is in
// include/panoramix/ops/matern_covariance.hpp; here: the per-node terms, the window walk and the
// final combination with Γ, ψ, ψ′ (computed once per call on the host: ν is the same for every
// distance).
#pragma once
#include <cmath>

#ifdef __CUDACC__
#define PMX_MATERN_HD __host__ __device__
#else
#define PMX_MATERN_HD
#endif

namespace pmx::detail {

/// Per-call constants (host-computed; plain data, copied to the device as a kernel argument).
struct matern_consts {
  double nu, sigma2, rho;
  double a_per_h2;          ///< a = a_per_h2 · h² = νh²/(2ρ²)
  double b_per_h2;          ///< b = a/ν = h²/(2ρ²)
  double inv_gamma;         ///< 1/Γ(ν)
  double inv_gamma1;        ///< 1/Γ(ν+1)
  double psi, trigamma;     ///< ψ(ν), ψ′(ν)
  double psi1, trigamma1;   ///< ψ(ν+1), ψ′(ν+1)
  int derivatives;          ///< nonzero: ν-derivative sums too
  int stride;               ///< node stride (1: δ = 1/256; 4: δ = 1/64)
};

/// Values at one distance, for σ² as given (dsigma2 = C/σ²).
struct matern_point {
  double C, dsigma2, drho, dnu, d2nu;
};

/// Running sums of one form: I (the integral), I1, I2 (its ν-derivatives), K (∫ a u^{ν−2}…, for dρ).
struct matern_sums {
  double I = 0, I1 = 0, I2 = 0, K = 0;
};

/// Adds node (s, r, q) of the direct form; returns the log of its largest term (for the walk).
PMX_MATERN_HD inline double matern_direct_node(double s, double r, double q, double nu, double a, double b,
                                               double log_a, bool deriv, matern_sums& m) {
  const double e = nu * s - a * r + q;
  const double f = exp(e);  // f(x) w = x^{ν−1} e^{−a/x − x} w
  if (f > 0) {  // (skipped where it underflows: a r or b r may be infinite there)
    m.I += f;
    m.K += a * r * f;
    if (deriv) {
      const double L = s - b * r;  // ∂/∂ν log f = ln u − b/u
      m.I1 += f * L;
      m.I2 += f * L * L;
    }
  }
  return e + fmax(0.0, log_a - s);  // K's term is (a/u) f
}

/// Adds node (s, r, q) of the complement form J = ∫ T1 + T2 (T1 = (1 − e^{−a/u}) u^ν e^{−u},
/// T2 = a u^{ν−2} e^{−a/u−u} = (a/u) f); returns a log-magnitude bound of its terms.
PMX_MATERN_HD inline double matern_complement_node(double s, double r, double q, double nu, double a, double b,
                                                   double log_a, bool deriv, matern_sums& m) {
  const double ar = a * r;
  const double ef = nu * s - ar + q;
  const double f = exp(ef);
  const double t1 = -expm1(-ar) * exp(nu * s + s + q);
  m.I += t1;
  if (deriv) m.I1 += s * t1, m.I2 += s * s * t1;
  if (f > 0) {  // (skipped where it underflows: a r or b r may be infinite there)
    const double t2 = ar * f;
    m.I += t2;
    m.K += t2;
    if (deriv) {
      const double br = b * r, mm = s - br;
      // ∂T1/∂ν = s T1 + b f;  ∂T2/∂ν = T2 (1/ν + s − b/u) = b r f + T2 m
      m.I1 += b * f + br * f + t2 * mm;
      // ∂²T1/∂ν² = s² T1 + 2 s b f − b² r f;  ∂²T2/∂ν² = T2 ((1/ν + m)² − 1/ν²) = 2 b r f m + T2 m²
      m.I2 += 2 * s * b * f - b * br * f + 2 * br * f * mm + t2 * mm * mm;
    }
  }
  return fmax(nu * s + q + fmin(s, log_a), ef + fmax(0.0, log_a - s));
}

/// Table index nearest the peak of the direct integrand in t (e^s = (ν + √(ν² + 4a))/2).
PMX_MATERN_HD inline int matern_peak_index(double nu, double a, int origin, int nodes, double delta, int stride) {
  const double u = 0.5 * (nu + sqrt(nu * nu + 4 * a));
  const double t = asinh(log(u) / 1.5707963267948966);
  int l = static_cast<int>(nearbyint(t / (delta * stride))) * stride;
  const int lo = -((origin / stride) * stride), hi = ((nodes - 1 - origin) / stride) * stride;
  l = l < lo ? lo : (l > hi ? hi : l);
  return l + origin;
}

/// C and the derivatives from the sums of one form, times σ².
PMX_MATERN_HD inline matern_point matern_finish(const matern_consts& k, bool complement, const matern_sums& m,
                                                int stride) {
  matern_point p{};
  const double w = stride;  // the table's weights are for δ = 1/256; a stride of k steps kδ
  double c, c1, c2;
  if (!complement) {
    c = w * m.I * k.inv_gamma;
    c1 = w * m.I1 * k.inv_gamma - k.psi * c;
    c2 = w * m.I2 * k.inv_gamma - 2 * k.psi * c1 - (k.psi * k.psi + k.trigamma) * c;
  } else {
    const double qv = w * m.I * k.inv_gamma1;
    const double q1 = w * m.I1 * k.inv_gamma1 - k.psi1 * qv;
    const double q2 = w * m.I2 * k.inv_gamma1 - 2 * k.psi1 * q1 - (k.psi1 * k.psi1 + k.trigamma1) * qv;
    c = 1 - qv, c1 = -q1, c2 = -q2;
  }
  p.C = k.sigma2 * c;
  p.dsigma2 = c;
  p.drho = k.sigma2 * (2 / k.rho) * w * m.K * k.inv_gamma;
  p.dnu = k.derivatives ? k.sigma2 * c1 : 0;
  p.d2nu = k.derivatives ? k.sigma2 * c2 : 0;
  return p;
}

/// The complement form where C > 1/2 (the direct form cancels there), and where e^{−a/u} has not
/// vanished at the table's smallest node u_0 = 1/r0 (a < 745 u_0 ≈ 1.8e-13: the direct form
/// would miss ∫₀^{u_0} u^{ν−1} du; the complement's integrand is O(u^{ν+1}) there).
PMX_MATERN_HD inline bool matern_use_complement(double c_direct, double a, double r0) {
  return c_direct > 0.5 || a * r0 < 745;
}

/// The values at h = 0: C = σ², every other derivative 0 (the limit of the integrals as a → 0).
PMX_MATERN_HD inline matern_point matern_at_zero(const matern_consts& k) {
  return matern_point{k.sigma2, 1.0, 0.0, 0.0, 0.0};
}

/// Distances so large that a = νh²/(2ρ²) overflows: C and every derivative underflow to 0.
PMX_MATERN_HD inline bool matern_beyond_range(double a) { return !(a < INFINITY); }

/// Every node of the table at the call's stride (the reference backend's oracle sums; no window).
template <class Table>
PMX_MATERN_HD inline matern_point matern_full(const matern_consts& k, const Table& tab, int nodes, int origin,
                                              double h) {
  if (h == 0) return matern_at_zero(k);
  const double a = k.a_per_h2 * h * h, b = k.b_per_h2 * h * h, log_a = log(a);
  if (matern_beyond_range(a)) return matern_point{0, 0, 0, 0, 0};
  const bool deriv = k.derivatives != 0;
  const int st = k.stride, first = origin % st;
  matern_sums m;
  for (int i = first; i < nodes; i += st)
    matern_direct_node(tab.s[i], tab.r[i], tab.q[i], k.nu, a, b, log_a, deriv, m);
  if (!matern_use_complement(st * m.I * k.inv_gamma, a, tab.r[0])) return matern_finish(k, false, m, st);
  matern_sums c;
  for (int i = first; i < nodes; i += st)
    matern_complement_node(tab.s[i], tab.r[i], tab.q[i], k.nu, a, b, log_a, deriv, c);
  return matern_finish(k, true, c, st);
}

/// One form's sum from the peak node `start` outward, each way until a term falls 60 e-folds
/// (1e-26) below the largest one met: the integrand is unimodal in t, and its factors ln u − b/u
/// (ν-derivatives) grow only like a polynomial of the exponent, so what is left out is below 1e-20
/// of each sum.
template <bool Complement, class Table>
PMX_MATERN_HD inline matern_sums matern_walk(const matern_consts& k, const Table& tab, int nodes, int start, double a,
                                             double b, double log_a) {
  constexpr double cut = 60;
  const bool deriv = k.derivatives != 0;
  const int st = k.stride;
  matern_sums m;
  double top = -INFINITY;
  auto node = [&](int i) {
    return Complement ? matern_complement_node(tab.s[i], tab.r[i], tab.q[i], k.nu, a, b, log_a, deriv, m)
                      : matern_direct_node(tab.s[i], tab.r[i], tab.q[i], k.nu, a, b, log_a, deriv, m);
  };
  for (int i = start; i < nodes; i += st) {
    const double e = node(i);
    top = fmax(top, e);
    if (e < top - cut && i > start) break;
  }
  for (int i = start - st; i >= 0; i -= st) {
    const double e = node(i);
    top = fmax(top, e);
    if (e < top - cut) break;
  }
  return m;
}

/// The windowed sums (matern_walk) of the direct form, and of the complement where it is needed.
template <class Table>
PMX_MATERN_HD inline matern_point matern_window(const matern_consts& k, const Table& tab, int nodes, int origin,
                                                double delta, double h) {
  if (h == 0) return matern_at_zero(k);
  const double a = k.a_per_h2 * h * h, b = k.b_per_h2 * h * h, log_a = log(a);
  if (matern_beyond_range(a)) return matern_point{0, 0, 0, 0, 0};
  const int start = matern_peak_index(k.nu, a, origin, nodes, delta, k.stride);
  const matern_sums m = matern_walk<false>(k, tab, nodes, start, a, b, log_a);
  if (!matern_use_complement(k.stride * m.I * k.inv_gamma, a, tab.r[0])) return matern_finish(k, false, m, k.stride);
  return matern_finish(k, true, matern_walk<true>(k, tab, nodes, start, a, b, log_a), k.stride);
}

}  // namespace pmx::detail
