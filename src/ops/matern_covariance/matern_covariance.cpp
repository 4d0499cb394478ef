// matern_covariance: validation, the per-call constants (Γ, ψ, ψ′ of ν and ν+1 by Boost.Math, once
// per call since ν is shared by every distance) and dispatch.
#include "panoramix/ops/matern_covariance.hpp"

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <exception>

#include "ops/matern_covariance/bessel_k.hpp"
#include "ops/matern_covariance/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

const char* matern_method_name(matern_method m) {
  switch (m) {
    case matern_method::bessel: return "bessel";
    case matern_method::trapezoid: return "trapezoid";
    case matern_method::quadrature: break;
  }
  return "quadrature";
}

void matern_covariance(const executor& exec, const matern_params& p, matern_method method, const double* h,
                       int64_t n, const matern_outputs& out, int table_stride) {
  PMX_EXPECTS(std::isfinite(p.sigma2) && p.sigma2 > 0, "σ² must be positive and finite");
  PMX_EXPECTS(std::isfinite(p.rho) && p.rho > 0, "ρ must be positive and finite");
  PMX_EXPECTS(std::isfinite(p.nu) && p.nu > 0, "ν must be positive and finite");
  PMX_EXPECTS(method == matern_method::bessel || p.nu <= matern_max_nu, "ν above the quadrature's range");
  PMX_EXPECTS(n >= 0 && (n == 0 || h), "distances");
  PMX_EXPECTS(table_stride == 1 || table_stride == 2 || table_stride == 4 || table_stride == 8, "table stride");
  if (n == 0) return;
  const bool derivatives = out.dnu || out.d2nu;
  if (exec.kind() != backend::cuda)
    for (int64_t i = 0; i < n; ++i) PMX_EXPECTS(std::isfinite(h[i]) && h[i] >= 0, "distances must be finite and >= 0");

  if (method == matern_method::bessel) {
    if (exec.kind() == backend::cuda) {
      if (derivatives)
        throw unsupported_error(
            "Matérn covariance: the Bessel-K route on cuda has no nu-derivatives (use --method trapezoid)");
      return kernels::cuda::matern_bessel(exec, detail::make_bessel_consts(p.sigma2, p.rho, p.nu), h, n, out);
    }
    const int threads = exec.kind() == backend::cpu ? exec.threads() : 1;
    std::exception_ptr failed;  // an exception must not leave the parallel region: the first is rethrown
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {
      try {
        kernels::store_matern(out, i, kernels::matern_bessel_point(p, h[i], derivatives));
      } catch (...) {
#pragma omp critical(pmx_matern_bessel_error)
        if (!failed) failed = std::current_exception();
      }
    }
    if (failed) std::rethrow_exception(failed);
    return;
  }

  detail::matern_consts k{};
  k.nu = p.nu, k.sigma2 = p.sigma2, k.rho = p.rho;
  k.a_per_h2 = p.nu / (2 * p.rho * p.rho);
  k.b_per_h2 = 1 / (2 * p.rho * p.rho);
  k.inv_gamma = 1 / boost::math::tgamma(p.nu);
  k.inv_gamma1 = 1 / boost::math::tgamma(p.nu + 1);
  k.psi = boost::math::digamma(p.nu);
  k.trigamma = boost::math::trigamma(p.nu);
  k.psi1 = boost::math::digamma(p.nu + 1);
  k.trigamma1 = boost::math::trigamma(p.nu + 1);
  k.derivatives = derivatives;
  k.stride = table_stride;
  if (method == matern_method::trapezoid) {
    k.stride = 1;  // (its exp-sinh fallback at full accuracy)
    switch (exec.kind()) {
      case backend::reference: return kernels::reference::matern_trapezoid(exec, k, h, n, out);
      case backend::cpu: return kernels::cpu::matern_trapezoid(exec, k, h, n, out);
      case backend::cuda: return kernels::cuda::matern_trapezoid(exec, k, h, n, out);
    }
  }
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::matern_quadrature(exec, k, h, n, out);
    case backend::cpu: return kernels::cpu::matern_quadrature(exec, k, h, n, out);
    case backend::cuda: return kernels::cuda::matern_quadrature(exec, k, h, n, out);
  }
}

}  // namespace pmx
