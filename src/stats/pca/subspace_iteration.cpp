// Top eigenpairs of a symmetric positive semi-definite operator (see subspace_iteration.hpp).
#include "subspace_iteration.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx::detail {

// Flips each column so that its entry of largest magnitude is positive (the first such entry).
void normalise_signs(std::vector<double>& v, int64_t n, int64_t m) {
  for (int64_t c = 0; c < m; ++c) {
    double* col = v.data() + c * n;
    int64_t at = 0;
    for (int64_t i = 1; i < n; ++i)
      if (std::fabs(col[i]) > std::fabs(col[at])) at = i;
    if (col[at] < 0)
      for (int64_t i = 0; i < n; ++i) col[i] = -col[i];
  }
}

subspace_iteration_result top_eigenpairs(const executor& host, const subspace_iteration_options& opt,
                                         const std::function<void(const double*, double*)>& apply,
                                         progress_sink* progress) {
  const int64_t n = opt.n, l = opt.block, m = opt.wanted;
  subspace_iteration_result res;
  // Each step applies a degree-d Chebyshev polynomial of G that is small on [lo, θ_l] (θ_l the
  // block's last Ritz value, below the unwanted spectrum's top) and grows fast above it: the
  // wanted directions gain like t + sqrt(t² − 1), t = (2λ − θ_l − lo)/(θ_l − lo), per product
  // instead of λ/λ_{l+1}. The step's first product G Q also gives the Ritz residuals.
  const size_t nl = static_cast<size_t>(n * l);
  std::vector<double> Q(nl), Y(nl), X(nl), GX(nl);
  std::vector<double> B(static_cast<size_t>(l * l)), U(B.size()), theta(static_cast<size_t>(l));
  std::mt19937_64 rng(opt.seed);
  std::normal_distribution<double> normal;
  for (double& q : Q) q = normal(rng);
  apply(Q.data(), Y.data());
  orthonormalize(host, n, l, Y.data(), n);
  Q.swap(Y);
  int degree = 4;  // of the next filter: enough products to reach the tolerance at the last rate
  double first_residual = -1, last_residual = -1;
  for (int it = 1;; ++it) {
    apply(Q.data(), Y.data());  // Y = G Q
    dense_gemm(host, true, false, l, l, n, 1.0, Q.data(), n, Y.data(), n, 0.0, B.data(), l);
    for (int64_t a = 0; a < l; ++a)
      for (int64_t c = 0; c < a; ++c) B[c * l + a] = B[a * l + c] = 0.5 * (B[c * l + a] + B[a * l + c]);
    // A NaN never meets the tolerance and can hang LAPACK's eigensolver: stop with a named error.
    for (double b : B)
      if (!std::isfinite(b))
        throw numeric_error(opt.progress_stage + ": the operator gave a non-finite value at subspace step " +
                            std::to_string(it) + " (a NaN or infinity in the matrix)");
    symmetric_eigen(host, l, B.data(), l, l, theta.data(), U.data(), l);
    // Ritz vectors X = Q U and G X = Y U (all l: the filter continues from them).
    dense_gemm(host, false, false, n, l, l, 1.0, Q.data(), n, U.data(), l, 0.0, X.data(), n);
    dense_gemm(host, false, false, n, l, l, 1.0, Y.data(), n, U.data(), l, 0.0, GX.data(), n);
    double worst = 0;
    for (int64_t c = 0; c < m; ++c) {
      double r2 = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double r = GX[c * n + i] - theta[c] * X[c * n + i];
        r2 += r * r;
      }
      worst = std::max(worst, std::sqrt(r2));
    }
    const double top = std::fabs(theta[0]);
    res.iterations = it;
    res.max_residual = top > 0 ? worst / top : worst;
    if (worst <= opt.tolerance * top || l == n || it >= opt.max_iterations) {
      // l = n: Rayleigh–Ritz on the whole space is exact up to rounding.
      res.converged = worst <= opt.tolerance * top || l == n;
      break;
    }
    if (first_residual < 0) first_residual = std::max(res.max_residual, opt.tolerance);
    report(progress, opt.progress_stage,
           std::clamp(std::log(first_residual / res.max_residual) / std::log(first_residual / opt.tolerance), 0.0,
                      1.0));
    if (last_residual > 0 && res.max_residual < last_residual) {
      const double rate = std::pow(res.max_residual / last_residual, 1.0 / degree);
      const double need = std::log(opt.tolerance / res.max_residual) / std::log(rate);
      degree = std::clamp(static_cast<int>(std::ceil(need)), 2, 8);
    }
    last_residual = res.max_residual;
    const double lo = std::min(0.0, theta[l - 1]), hi = theta[l - 1];
    if (!(theta[0] > hi + 1e-9 * top) || hi <= lo) {
      Y.swap(GX);  // no separation to exploit: a plain power step
    } else {
      // Scaled three-term recurrence on [lo, hi]: X0 = X, X1 = (G − c)X σ₁/e, X_{j+1} = …
      const double e = 0.5 * (hi - lo), c = 0.5 * (hi + lo), sigma1 = e / (theta[0] - c);
      double sigma = sigma1;
      for (size_t q = 0; q < nl; ++q) Y[q] = (GX[q] - c * X[q]) * (sigma1 / e);
      for (int d = 2; d <= degree; ++d) {
        const double sigma2 = 1 / (2 / sigma1 - sigma);
        apply(Y.data(), GX.data());
        for (size_t q = 0; q < nl; ++q) {
          const double next = (GX[q] - c * Y[q]) * (2 * sigma2 / e) - sigma * sigma2 * X[q];
          X[q] = Y[q];
          Y[q] = next;
        }
        sigma = sigma2;
      }
    }
    orthonormalize(host, n, l, Y.data(), n);
    Q.swap(Y);
  }
  res.values.assign(theta.begin(), theta.begin() + m);
  res.vectors.assign(X.begin(), X.begin() + n * m);
  normalise_signs(res.vectors, n, m);
  return res;
}

}  // namespace pmx::detail
