// The restricted likelihood of one mixed-model fit in the eigenbasis of K, as a function of
// λ = σg²/σe² (Zhou & Stephens 2012, supplement §3.1; GEMMA's LogRL_f / LogRL_dev1 / LogRL_dev2 /
// CalcRLWald compute the same quantities through the same projections).
//
// The fit's columns, rotated by Uᵀ, are [W (c columns) | x (optional) | y]. With h_i = 1/(λ d_i + 1)
// every quantity comes from the weighted Gram matrices G_r = Σ_i h_i^r v_i v_iᵀ (r = 0..3) of those
// columns: projecting out the fixed-effect columns one at a time (a Schur complement per column)
// gives yᵀPy, yᵀPPy, yᵀPPPy, tr P, tr PP and log|WᵀH⁻¹W| − log|WᵀW|, hence the likelihood and its
// first two derivatives in λ, all in O(K³) once the O(nK²) Gram sums are formed.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace pmx::detail {

/// G_0..G_3 (K × K, symmetric, row-major) and the traces Σh, Σh², Σ log(λd + 1) of one λ.
struct weighted_grams {
  int K = 0;
  double lambda = 0;
  std::vector<double> g[4];
  double trace_h = 0, trace_h2 = 0, logdet_h = 0;
  void resize(int columns);
  double& at(int r, int a, int b) { return g[r][static_cast<size_t>(a * K + b)]; }
  double at(int r, int a, int b) const { return g[r][static_cast<size_t>(a * K + b)]; }
};

/// h_i^r for r = 1..max_power at one λ, with the traces Σh, Σh² (shared by every column pair of
/// that λ) and, when asked for (the likelihood's value needs it, its derivatives do not),
/// Σ log(λd + 1); NaN otherwise.
struct lambda_weights {
  double lambda = 0;
  std::vector<double> h[3];
  double trace_h = 0, trace_h2 = 0, logdet_h = 0;
  void set(std::span<const double> d, double lambda, int max_power, bool with_logdet);
};

/// For each of `count` columns v_b: Σ u_i v_bi (when with_unweighted) and Σ h_i^r u_i v_bi for
/// r = 1..max_power, into out[4b + r] (out[4b] the unweighted one). `scratch` is reused memory.
void weigh_against(const lambda_weights& w, const double* u, const double* const* cols, int count, int64_t n,
                   int max_power, bool with_unweighted, double* out, std::vector<double>& scratch);

/// Every pair of `cols` (K column pointers of n values) at powers 1..max_power (and 0 when
/// with_unweighted).
void weigh_columns(const lambda_weights& w, const double* const* cols, int K, int64_t n, int max_power,
                   bool with_unweighted, weighted_grams& out);

/// log L_R(λ) (GEMMA's normalisation), dL/dλ and d²L/dλ² (order 0, 1 or 2; powers up to order + 1
/// must be present) of y given the other K − 1 columns as fixed effects, over n samples.
struct reml_point {
  double f = 0, dev1 = 0, dev2 = 0;
};
reml_point restricted_likelihood(const weighted_grams& w, int64_t n, int order);

/// yᵀPy after all K − 1 other columns (GEMMA's P_yy; σe² = P_yy / (n − K + 1) at the REML λ).
double projected_yy(const weighted_grams& w);

/// GEMMA's Wald test of column K − 2 (x) after the first K − 2 (W), at the λ the Grams are of:
/// β = xᵀPy/xᵀPx, se² = yᵀP₁y / ((n − K + 1) xᵀPx), p = F(1, n − K + 1) upper tail of β²/se².
struct wald_result {
  double beta = 0, se = 0, p = 0;
};
wald_result wald_test(const weighted_grams& w, int64_t n);

/// r² of column `x` on the first `x` columns (unweighted, G_0): 1 − residual / total sum of squares
/// of x, whose sum is 0 (x centred, the intercept among the first columns).
double r2_on_previous(const weighted_grams& w, int x);

/// λ maximising the restricted likelihood, as GEMMA's CalcLambda searches: dL/dλ at the
/// `regions` + 1 log-spaced points of [l_min, l_max] (`grid_dev1(k)`); in every interval where it
/// changes sign (or is 0), its root (safeguarded Newton to full precision, `at(λ, 2)` giving
/// dev1 and dev2); the root of the largest likelihood, replaced by l_min or l_max where either is
/// larger still (with no sign change, the larger end).
struct lambda_fit {
  double lambda = 0, logl = 0;
};
struct lambda_search {
  double l_min = 1e-5, l_max = 1e5;
  int regions = 10;
  double grid(int k) const;  ///< the k-th grid point, k = 0..regions
};
lambda_fit maximise_restricted_likelihood(const lambda_search& s, const std::function<double(int)>& grid_dev1,
                                          const std::function<reml_point(double, int)>& at);

}  // namespace pmx::detail
