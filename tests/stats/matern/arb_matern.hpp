// The independent oracle of the Matérn tests: C_{ρ,ν,1}(h) = 2^{1−ν}/Γ(ν) x^ν K_ν(x), x = √(2ν)h/ρ,
// in Arb ball arithmetic (arb_hypgeom_bessel_k) at 1024 bits, and its ν-derivatives by central
// differences of step η = 2^−100 in the same arithmetic. Why differences and not series: Arb has
// no ν-jet of K_ν; at 1024 bits the step's truncation error (η² C‴/6 ≈ 1e−61 C‴) and the
// rounding it amplifies (radius/η² ≈ 2^−800) are both far below double precision, and the balls
// bound the rounding: radius() reports it and the tests require ≥ 64 exact bits.
#pragma once
#include <arb.h>
#include <arb_hypgeom.h>

#include <algorithm>
#include <cmath>

namespace pmx::test {

struct arb_matern_value {
  double C, dnu, d2nu, drho;
  long accurate_bits;  ///< the least relative accuracy (bits) of the three balls
};

namespace arb_detail {
// res = C_{ρ,ν,1}(h) with ν, h, ρ given as balls.
inline void covariance(arb_t res, const arb_t nu, const arb_t h, const arb_t rho, slong prec) {
  arb_t x, t, k, g;
  arb_init(x), arb_init(t), arb_init(k), arb_init(g);
  arb_mul_2exp_si(x, nu, 1);  // x = √(2ν) h / ρ
  arb_sqrt(x, x, prec);
  arb_mul(x, x, h, prec);
  arb_div(x, x, rho, prec);
  arb_hypgeom_bessel_k(k, nu, x, prec);
  arb_pow(t, x, nu, prec);  // x^ν
  arb_mul(k, k, t, prec);
  arb_one(t);  // 2^{1−ν}
  arb_sub(t, t, nu, prec);
  arb_set_ui(g, 2);
  arb_pow(t, g, t, prec);
  arb_mul(k, k, t, prec);
  arb_gamma(g, nu, prec);
  arb_div(res, k, g, prec);
  arb_clear(x), arb_clear(t), arb_clear(k), arb_clear(g);
}
}  // namespace arb_detail

/// C, dC/dν, d²C/dν² and dC/dρ at σ² = 1 (scale by σ² for others) for h > 0, the double inputs exact.
inline arb_matern_value arb_matern(double h_d, double nu_d, double rho_d = 1.0, slong prec = 1024) {
  arb_t nu, h, rho, eta, nup, num, c0, cp, cm, d1, d2;
  arb_init(nu), arb_init(h), arb_init(rho), arb_init(eta), arb_init(nup), arb_init(num);
  arb_init(c0), arb_init(cp), arb_init(cm), arb_init(d1), arb_init(d2);
  arb_set_d(nu, nu_d), arb_set_d(h, h_d), arb_set_d(rho, rho_d);
  arb_one(eta);
  arb_mul_2exp_si(eta, eta, -100);
  arb_add(nup, nu, eta, prec);
  arb_sub(num, nu, eta, prec);
  arb_detail::covariance(c0, nu, h, rho, prec);
  arb_detail::covariance(cp, nup, h, rho, prec);
  arb_detail::covariance(cm, num, h, rho, prec);
  arb_sub(d1, cp, cm, prec);  // (C(ν+η) − C(ν−η)) / 2η
  arb_mul_2exp_si(d1, d1, 99);
  arb_add(d2, cp, cm, prec);  // (C(ν+η) − 2C(ν) + C(ν−η)) / η²
  arb_submul_ui(d2, c0, 2, prec);
  arb_mul_2exp_si(d2, d2, 200);
  arb_t rp, rm, dr;  // dC/dρ = (C(ρ+η) − C(ρ−η)) / 2η
  arb_init(rp), arb_init(rm), arb_init(dr);
  arb_add(rp, rho, eta, prec);
  arb_sub(rm, rho, eta, prec);
  arb_detail::covariance(cp, nu, h, rp, prec);
  arb_detail::covariance(cm, nu, h, rm, prec);
  arb_sub(dr, cp, cm, prec);
  arb_mul_2exp_si(dr, dr, 99);
  arb_matern_value v{arf_get_d(arb_midref(c0), ARF_RND_NEAR), arf_get_d(arb_midref(d1), ARF_RND_NEAR),
                     arf_get_d(arb_midref(d2), ARF_RND_NEAR), arf_get_d(arb_midref(dr), ARF_RND_NEAR), 0};
  v.accurate_bits = std::min(std::min(arb_rel_accuracy_bits(c0), arb_rel_accuracy_bits(dr)),
                             std::min(arb_rel_accuracy_bits(d1), arb_rel_accuracy_bits(d2)));
  arb_clear(rp), arb_clear(rm), arb_clear(dr);
  arb_clear(nu), arb_clear(h), arb_clear(rho), arb_clear(eta), arb_clear(nup), arb_clear(num);
  arb_clear(c0), arb_clear(cp), arb_clear(cm), arb_clear(d1), arb_clear(d2);
  return v;
}

/// The thesis' log grid: 10^{−4 + 0.1 i}, i = 0 … 50.
inline double log_grid(int i) { return std::pow(10.0, -4.0 + 0.1 * i); }

}  // namespace pmx::test
