// The Gaussian log-likelihood of y = Xβ + g + ε with Cov(g) = C(D), ε ~ N(0, σ²_ε I), at given
// Matérn parameters (the building block of matern-fit; matern.hpp).
#include <cmath>
#include <numbers>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/matern.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx {

matern_likelihood matern_log_likelihood(const executor& exec, const double* h, int64_t n, const double* y,
                                        const double* X, int64_t p, const matern_params& prm, double sigma2_e) {
  PMX_EXPECTS(n > 0 && h && y && (p == 0 || X) && p >= 0 && p < n, "likelihood operands");
  PMX_EXPECTS(std::isfinite(sigma2_e) && sigma2_e >= 0, "residual variance must be finite and >= 0");
  // V = C(h) + σ²_ε I, then one Cholesky solve of V [y X] (log det V from the factor).
  std::vector<double> V(static_cast<size_t>(n * n));
  matern_covariance(exec.host(), prm, matern_method::quadrature, h, n * n, {.C = V.data()});
  for (int64_t i = 0; i < n; ++i) V[i * n + i] += sigma2_e;
  std::vector<double> B(static_cast<size_t>(n * (p + 1)));
  for (int64_t i = 0; i < n; ++i) B[i] = y[i];
  for (int64_t c = 0; c < p; ++c)
    for (int64_t i = 0; i < n; ++i) B[(c + 1) * n + i] = X[i * p + c];  // X row-major n × p
  double logdet = 0;
  try {
    logdet = cholesky_solve(exec.host(), n, V.data(), n, p + 1, B.data(), n);
  } catch (const numeric_error& e) {
    throw numeric_error(std::string("Matérn likelihood: the covariance C(D) + sigma2_e I is not positive definite (") +
                        e.what() + ")");
  }
  // β = (Xᵀ V⁻¹ X)⁻¹ Xᵀ V⁻¹ y (GLS); r = y − Xβ; yᵀPy = yᵀV⁻¹y − (Xᵀ V⁻¹ y)ᵀ β.
  matern_likelihood L;
  std::vector<double> XtViX(static_cast<size_t>(p * p)), XtViy(static_cast<size_t>(p));
  for (int64_t a = 0; a < p; ++a) {
    for (int64_t b = 0; b < p; ++b) {
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += X[i * p + a] * B[(b + 1) * n + i];
      XtViX[b * p + a] = s;
    }
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += X[i * p + a] * B[i];
    XtViy[a] = s;
  }
  double yViy = 0;
  for (int64_t i = 0; i < n; ++i) yViy += y[i] * B[i];
  double logdet_x = 0;
  L.beta = XtViy;
  if (p > 0) logdet_x = cholesky_solve(exec.host(), p, XtViX.data(), p, 1, L.beta.data(), p);
  double quad = yViy;
  for (int64_t a = 0; a < p; ++a) quad -= XtViy[a] * L.beta[a];
  const double log2pi = std::log(2 * std::numbers::pi);
  L.ml = -0.5 * (double(n) * log2pi + logdet + quad);
  L.reml = -0.5 * (double(n - p) * log2pi + logdet + logdet_x + quad);
  return L;
}

}  // namespace pmx
