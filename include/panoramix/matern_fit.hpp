// Maximum-likelihood (ML or REML) estimation of the Matérn mixed model (thesis chapter 5)
//   y = Xβ + g + ε,  Cov(g) = C(D; σ², ρ, ν),  ε ~ N(0, σ²_ε I),
// on given distances: Fisher scoring on θ = (log σ², log ρ, log ν, log σ²_ε) (positivity without
// bounds) with the analytic dC/dσ², dC/dρ, dC/dν of the op (ops/matern_covariance.hpp), β by GLS,
// V = C + σ²_ε I factorised by the executor's Cholesky (ops/dense_linalg.hpp).
//
// Iteration: at θ, with W = V⁻¹ (ML) or P = V⁻¹ − V⁻¹X(XᵀV⁻¹X)⁻¹XᵀV⁻¹ (REML), u = V⁻¹(y − Xβ̂)
// (= Py) and V_k = ∂V/∂θ_k, the score g_k = −½ tr(W V_k) + ½ uᵀV_k u and the expected information
// F_kl = ½ tr(W V_k W V_l); the step Δ = B⁻¹g with B = F at the start, then BFGS updates of B from
// the exact scores (Fisher scoring alone converges linearly where F differs from the observed
// information; B is reset to F where an update would not stay positive definite). Steps are at
// most 1 in any log parameter, halved while the log-likelihood (matern_log_likelihood) is lower
// than at θ or V is not positive definite. Converged when max |F⁻¹g| (or max |Δ|) < tolerance; the
// information at the estimate gives the SEs (delta method: se(θ_k) = θ_k √(F⁻¹)_kk).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/executor.hpp"
#include "panoramix/ops/matern_covariance.hpp"

namespace pmx {

enum class matern_criterion { ml, reml };

struct matern_fit_options {
  matern_criterion criterion = matern_criterion::reml;
  std::optional<double> fixed_nu;  ///< ν held at this value (0 < ν ≤ matern_max_nu); empty: estimated
  double tolerance = 1e-8;         ///< largest scoring step (log scale) at convergence
  int max_iterations = 200;
  /// Start: σ² = σ²_ε = half the OLS residual variance, ρ = the median positive distance, ν = 1
  /// (or the fixed ν); these override it.
  std::optional<matern_params> start;
  std::optional<double> start_sigma2_e;
};

struct matern_fit_result {
  matern_params params;
  double sigma2_e = 0;
  /// Standard errors of σ², ρ, ν, σ²_ε from the expected information (NaN for a fixed ν).
  std::array<double, 4> se{};
  double logL = 0;                   ///< ML or REML log-likelihood at the estimate (matern.hpp's)
  std::vector<double> beta, beta_se; ///< GLS estimate and its SE √((XᵀV⁻¹X)⁻¹)_aa
  std::vector<double> u;             ///< V⁻¹(y − Xβ̂): the BLUP of g at distances h* is C(h*) u
  int iterations = 0;                ///< scoring steps taken
  bool converged = false;  ///< false: max_iterations reached, no step increased logL, or σ² or σ²_ε fell
                           ///< below 1e-10 × the OLS residual variance, or ν above 0.999 × matern_max_nu
                           ///< (an optimum on the boundary)
};

/// Fits the model to y (n) with fixed effects X (n × p row-major; p may be 0) at distances h
/// (n × n, row-major, host memory). Logs each iteration to `log` when given. Throws logic_error
/// for invalid options, numeric_error when V is not positive definite at the start, when XᵀV⁻¹X
/// or the information matrix is singular, or on non-finite values. A fit that does not converge
/// is returned with converged = false (the caller names it).
matern_fit_result fit_matern(const executor& exec, const double* h, int64_t n, const double* y, const double* X,
                             int64_t p, const matern_fit_options& opt, analysis_log* log = nullptr);

/// "ML" or "REML".
const char* matern_criterion_name(matern_criterion c);

}  // namespace pmx
