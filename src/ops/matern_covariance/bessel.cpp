// The closed form of the Matérn covariance through Boost.Math's cyl_bessel_k (the second route,
// and the baseline the quadrature is timed against).
#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "ops/matern_covariance/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels {
namespace {

// C/σ² = 2^{1−ν}/Γ(ν) x^ν K_ν(x), x = √(2ν) h/ρ.
double unit_covariance(double nu, double rho, double h) {
  if (h == 0) return 1;
  const double x = std::sqrt(2 * nu) * h / rho;
  try {
    const double c = std::pow(2.0, 1 - nu) / boost::math::tgamma(nu) * std::pow(x, nu) * boost::math::cyl_bessel_k(nu, x);
    if (std::isfinite(c)) return c;
  } catch (const std::exception&) {  // K_ν(x) overflows (x → 0) or x underflowed to 0
  }
  char at[96];
  std::snprintf(at, sizeof at, "h = %.17g, nu = %.17g", h, nu);
  throw numeric_error(std::string("Matérn covariance (Bessel-K route): K_nu(x) is not representable at ") + at +
                      " (x = sqrt(2 nu) h / rho too small); use --method quadrature");
}

}  // namespace

detail::matern_point matern_bessel_point(const matern_params& p, double h, bool derivatives) {
  const double nu = p.nu, rho = p.rho;
  detail::matern_point v{};
  const double c = unit_covariance(nu, rho, h);
  v.C = p.sigma2 * c;
  v.dsigma2 = c;
  if (h > 0 && v.dsigma2 < 1) {
    // dC/dρ = σ² (2/ρ) Γ(ν)⁻¹ ∫ a u^{ν−2} e^{−a/u−u} du = σ² (4/ρ) a^{(ν+1)/2} K_{ν−1}(2√a) / Γ(ν).
    const double a = nu * h * h / (2 * rho * rho);
    v.drho = p.sigma2 * 4 / rho * std::pow(a, (nu + 1) / 2) *
             boost::math::cyl_bessel_k(std::fabs(nu - 1), 2 * std::sqrt(a)) / boost::math::tgamma(nu);
  }
  if (derivatives && h > 0 && v.dsigma2 < 1) {
    // 5-point central differences in ν; the step balances truncation (η⁴) against rounding (ε/η²).
    const double eta = 2.5e-3 * nu;
    double f[5];
    for (int j = 0; j < 5; ++j) f[j] = unit_covariance(nu + (j - 2) * eta, rho, h);
    v.dnu = p.sigma2 * (f[0] - 8 * f[1] + 8 * f[3] - f[4]) / (12 * eta);
    v.d2nu = p.sigma2 * (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) / (12 * eta * eta);
  }
  return v;
}

}  // namespace pmx::kernels
