// The per-call constants of the host-device Bessel-K route (bessel_k.hpp): everything that
// depends on μ = ν − round(ν) alone, in long double, so that the per-distance code divides by
// nothing but x-dependent quantities.
#include "ops/matern_covariance/bessel_k.hpp"

#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/sin_pi.hpp>
#include <cmath>

namespace pmx::detail {

bessel_consts make_bessel_consts(double sigma2, double rho, double nu) {
  using ld = long double;
  bessel_consts k{};
  k.sigma2 = sigma2, k.rho = rho, k.nu = nu;
  k.n = static_cast<int>(std::floor(nu + 0.5));
  const ld mu = static_cast<ld>(nu) - k.n;
  k.mu = static_cast<double>(mu);
  const ld x_per_h = std::sqrt(2 * static_cast<ld>(nu)) / rho;
  k.x_hi = static_cast<double>(x_per_h);
  k.x_lo = static_cast<double>(x_per_h - k.x_hi);
  const ld gp = boost::math::tgamma(1 + mu), gm = boost::math::tgamma(1 - mu);
  k.fact = mu == 0 ? 1.0 : static_cast<double>(boost::math::constants::pi<ld>() * mu / boost::math::sin_pi(mu));
  k.gampl = static_cast<double>(1 / gp), k.gammi = static_cast<double>(1 / gm);
  // Γ₁ = (1/Γ(1−μ) − 1/Γ(1+μ))/(2μ) = (Γ(1+μ) − Γ(1−μ))/(2μ Γ(1+μ) Γ(1−μ)), the difference
  // through tgamma1pm1 (no cancellation as μ → 0; −γ at μ = 0).
  k.gam1 = mu == 0 ? -0.57721566490153286 : static_cast<double>((boost::math::tgamma1pm1(mu) - boost::math::tgamma1pm1(-mu)) /
                                                                (2 * mu * gp * gm));
  k.gam2 = static_cast<double>((1 / gm + 1 / gp) / 2);
  for (int i = 1; i <= bessel_temme_terms; ++i) {
    k.inv_i[i] = 1.0 / i;
    k.inv_imu[i] = static_cast<double>(1 / (i - mu));
    k.inv_ipmu[i] = static_cast<double>(1 / (i + mu));
    k.inv_i2mu2[i] = static_cast<double>(1 / (static_cast<ld>(i) * i - mu * mu));
  }
  // CF2 (Steed): a_i = a_{i−1} − 2i from a_0 = −(¼ − μ²); c_i = −a_i c_{i−1}/(i+1) from c_0 = ¼ − μ².
  ld a = -(0.25L - mu * mu), c = 0.25L - mu * mu;
  k.cf_c[0] = static_cast<double>(c), k.cf_a[0] = static_cast<double>(a), k.cf_inv_a[0] = 0;
  for (int i = 1; i < bessel_cf2_terms; ++i) {
    a -= 2 * i;
    c = -a * c / (i + 1);
    k.cf_a[i] = static_cast<double>(a), k.cf_inv_a[i] = static_cast<double>(1 / a), k.cf_c[i] = static_cast<double>(c);
  }
  return k;
}

}  // namespace pmx::detail
