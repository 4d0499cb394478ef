// The Matérn closed form C = σ² 2(x/2)^ν K_ν(x)/Γ(ν), x = √(2ν)h/ρ, in host-device code (the
// `bessel` route on cuda, where Boost does not run; the tests run the same functions on the
// host). K_ν by the classic scheme (Temme 1975; Thompson & Barnett 1986), derived here:
//   ν = n + μ, n = round(ν), |μ| ≤ 1/2;
//   x ≤ 2: Temme's series for K_μ and K_{μ+1}:
//     K_μ = Σ c_i f_i,  (x/2) K_{μ+1} = Σ c_i (p_i − i f_i),  c_i = (x²/4)^i / i!,
//     p_0 = ½(x/2)^{−μ}Γ(1+μ),  q_0 = ½(x/2)^{μ}Γ(1−μ),  p_i = p_{i−1}/(i−μ),  q_i = q_{i−1}/(i+μ),
//     f_0 = πμ/sin(πμ) [cosh(σ) Γ₁(μ) + sinh(σ)/σ · ln(2/x) Γ₂(μ)],  σ = μ ln(2/x),
//     f_i = (i f_{i−1} + p_{i−1} + q_{i−1}) / (i² − μ²),
//     Γ₁ = (1/Γ(1−μ) − 1/Γ(1+μ))/(2μ), Γ₂ = (1/Γ(1−μ) + 1/Γ(1+μ))/2 (per call, in long double:
//     no cancellation as μ → 0); μ → −μ swaps p and q, so Σ c_i (q_i − i f_i) = (x/2) K_{1−μ};
//   x > 2: Steed's evaluation of the continued fraction CF2 for K_{μ+1}/K_μ with the sum
//     K_μ = √(π/(2x)) e^{−x} / S (Thompson–Barnett), K_{μ±1}/K_μ = (±μ + x + ½ − h)/x;
//   then the forward recurrence K_{μ+j+1} = K_{μ+j−1} + 2(μ+j)/x K_{μ+j} (stable for K) as ratios
//   r_j = K_{μ+j+1}/K_{μ+j}, folded into C with Γ(ν) = Γ(1+μ) Π_{j=1}^{n−1}(μ+j) so that nothing
//   overflows: C/σ² = 2(x/2)^μ K_μ/Γ(1+μ) · [μ if n = 0, else (x/2) r_0 Π_{j≥1} (x/2) r_j/(μ+j)].
// dC/dρ = σ² (2/ρ)(x/2) C K_{ν−1}/K_ν (the op header's K integral in closed form). Every division
// by a number that depends on μ alone is a per-call reciprocal. Where e^{−x} would be subnormal
// (x > 700, C < 1e-150 for ν ≤ 150) the prefactor is formed through its logarithm (≈ 1e-13
// relative); elsewhere x is split in two doubles so that e^{−x}, (x/2)^μ carry no rounding of x.
#pragma once
#include <cmath>

#include "ops/matern_covariance/point.hpp"

namespace pmx::detail {

inline constexpr int bessel_temme_terms = 30;   ///< x ≤ 2: (x²/4)^i/(i!)² < 1e-17 by i = 13
inline constexpr int bessel_cf2_terms = 120;    ///< x > 2: Steed's CF2 converges in < 60 steps

/// Per-call constants (host-built by make_bessel_consts; copied to constant memory on cuda).
struct bessel_consts {
  double sigma2, rho, nu, mu;
  int n;                      ///< ν = n + μ
  double x_hi, x_lo;          ///< √(2ν)/ρ as a sum of two doubles
  double fact;                ///< πμ/sin(πμ)
  double gam1, gam2;          ///< Γ₁(μ), Γ₂(μ)
  double gampl, gammi;        ///< 1/Γ(1+μ), 1/Γ(1−μ)
  double inv_i[bessel_temme_terms + 1], inv_imu[bessel_temme_terms + 1], inv_ipmu[bessel_temme_terms + 1],
      inv_i2mu2[bessel_temme_terms + 1];  ///< 1/i, 1/(i−μ), 1/(i+μ), 1/(i²−μ²)
  double cf_a[bessel_cf2_terms], cf_inv_a[bessel_cf2_terms], cf_c[bessel_cf2_terms];  ///< CF2's μ-only terms
};

/// K_μ-part of one distance: A = 2(x/2)^μ K_μ/Γ(1+μ) up to the factor `scale_log` (A·e^{scale_log}
/// is the value; 0 unless x > 700), the ratios (x/2)K_{μ+1}/K_μ and (x/2)K_{1−μ}/K_μ.
struct bessel_mu_part {
  double A, scale_log, up, down;
};

PMX_MATERN_HD inline bessel_mu_part bessel_temme(const bessel_consts& k, double x) {
  const double d = -log(0.5 * x), e = k.mu * d;  // σ = μ ln(2/x)
  // E = (2/x)^μ; sinh σ through expm1 (no cancellation for small σ), E itself through exp (1 + expm1
  // would cancel for σ ≪ 0)
  const double em = expm1(e), E = exp(e);
  const double sinh_e = 0.5 * em * (1 + 1 / E), cosh_e = 0.5 * (E + 1 / E);
  const double fact2 = e == 0 ? 1.0 : sinh_e / e;
  double ff = k.fact * (k.gam1 * cosh_e + k.gam2 * fact2 * d);
  double p = 0.5 * E / k.gampl, q = 0.5 / (E * k.gammi);
  double sum = ff, sum1 = p, sum2 = q, c = 1;
  const double x2 = 0.25 * x * x;
  for (int i = 1; i <= bessel_temme_terms; ++i) {
    ff = (i * ff + p + q) * k.inv_i2mu2[i];
    c *= x2 * k.inv_i[i];
    p *= k.inv_imu[i];
    q *= k.inv_ipmu[i];
    const double del = c * ff;
    sum += del;
    sum1 += c * (p - i * ff);
    sum2 += c * (q - i * ff);
    if (fabs(del) < fabs(sum) * 1e-17) break;
  }
  return {2 * k.gampl * sum / E, 0.0, sum1 / sum, sum2 / sum};
}

PMX_MATERN_HD inline bessel_mu_part bessel_cf2(const bessel_consts& k, double x, double x_lo) {
  double b = 2 * (1 + x), d = 1 / b, h = d, delh = d, q1 = 0, q2 = 1;
  const double a1 = k.cf_c[0];
  double q = a1, s = 1 + q * delh;
  for (int i = 1; i < bessel_cf2_terms; ++i) {
    const double qnew = (q1 - b * q2) * k.cf_inv_a[i];
    q1 = q2, q2 = qnew;
    q += k.cf_c[i] * qnew;
    b += 2;
    d = 1 / (b + k.cf_a[i] * d);
    delh = (b * d - 1) * delh;
    h += delh;
    const double dels = q * delh;
    s += dels;
    if (fabs(dels) < fabs(s) * 1e-17) break;
  }
  h *= a1;
  const double up = 0.5 * (k.mu + x + 0.5 - h), down = 0.5 * (-k.mu + x + 0.5 - h);
  // 2 (x/2)^μ √(π/(2x)) e^{−x} / (S Γ(1+μ)), with x = x + x_lo exactly enough.
  const double base = 2 * k.gampl * sqrt(1.5707963267948966 / x) / s * (1 - 0.5 * x_lo / x);
  if (x <= 700) return {base * pow(0.5 * x, k.mu) * (1 + k.mu * x_lo / x) * exp(-x) * (1 - x_lo), 0.0, up, down};
  return {base, k.mu * log(0.5 * x) - x - x_lo, up, down};
}

/// C, dC/dσ², dC/dρ at one distance (ν-derivatives: not on this route).
PMX_MATERN_HD inline matern_point matern_bessel_k_point(const bessel_consts& k, double h) {
  if (h == 0) return matern_point{k.sigma2, 1.0, 0.0, 0.0, 0.0};
  // x = (x_hi + x_lo) h in two doubles (the product's rounding and the constant's).
  const double x = k.x_hi * h, x_lo = fma(k.x_hi, h, -x) + k.x_lo * h;
  // Beyond x = 1e150 (x² would overflow below) C < e^{−x} x^ν underflows for any ν < 1e148.
  if (!(x < 1e150)) return matern_point{0, 0, 0, 0, 0};
  const bessel_mu_part m = x <= 2 ? bessel_temme(k, x) : bessel_cf2(k, x, x_lo);
  // G = μ (n = 0) or (x/2) r_0 Π_{j=1}^{n−1} (x/2) r_j/(μ+j); `prev` = (x/2) K_{ν−1}/K_ν. With the
  // prefactor in logarithms (x > 700) G is summed as logarithms too (it may pass 1e308 there).
  const bool logs = m.scale_log != 0;
  double G = k.n == 0 ? k.mu : m.up, prev = k.n == 0 ? m.down : 0.25 * x * x / m.up, log_G = 0;
  double xr = m.up;  // (x/2) r_{j−1}
  for (int j = 1; j < k.n; ++j) {
    const double mj = k.mu + j, t = 1 + 0.25 * x * x / (mj * xr);  // (x/2) r_j/(μ+j)
    if (logs) log_G += log(t);
    else G *= t;
    xr = mj * t;
    prev = 0.25 * x * x / xr;
  }
  const double c = logs ? exp(log(m.A * G) + log_G + m.scale_log) : m.A * G;
  matern_point p{};
  p.C = k.sigma2 * c;
  p.dsigma2 = c;
  p.drho = k.sigma2 * (2 / k.rho) * c * prev;
  return p;
}

/// The per-call constants for σ², ρ, ν (bessel_k.cpp; long double and Boost.Math on the host).
bessel_consts make_bessel_consts(double sigma2, double rho, double nu);

}  // namespace pmx::detail
