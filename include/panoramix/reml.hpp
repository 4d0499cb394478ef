// REML for one genomic random effect: y = Xβ + g + e, g ~ N(0, σ²_g G), e ~ N(0, σ²_e I).
//
// Parameterisation: V = σ² H(h²), H(h²) = h² G + (1 − h²) I, so σ²_g = h² σ², σ²_e = (1 − h²) σ²
// and h² = σ²_g / (σ²_g + σ²_e) on the scale of G (as GCTA's V(G)/Vp; GEMMA's pve multiplies σ²_g
// by mean(diag G) instead). σ² is profiled out (σ̂² = yᵀP_H y / (n − p)), leaving a function of h².
//
// Three independent pieces:
//   * an h2_evaluator: "one evaluation at h²" = form H, factor it, log det H and the Gram
//     matrices Aᵀ H⁻ᵏ A of A = [X y]. Two implementations: eigen (G = U S Uᵀ once, then each
//     evaluation is O(n q²)) and Cholesky (one factorisation of H per evaluation through
//     cholesky_solve: no n³ eigendecomposition, the GPU path for 50,000 samples).
//   * reml_profile(): the profiled REML log-likelihood and its first two derivatives in h² from an
//     evaluation, independent of how it was computed.
//   * fit_reml(): the optimiser (grid, Brent, Newton polish), which sees only the evaluator.
//
// Log-likelihood convention (the same number GEMMA prints as "REMLE log-likelihood in the null
// model"): ℓ = −½[(n−p) log 2π + log det V + log det(XᵀV⁻¹X) − log det(XᵀX) + yᵀP y], i.e. the
// density of n − p error contrasts with orthonormal rows (Harville 1974).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/ops/shifted_solve.hpp"

namespace pmx {

/// How much an evaluation computes (each level includes the ones before).
enum class h2_detail {
  value,        ///< log det H, Aᵀ H⁻¹ A, Aᵀ H⁻² A: the likelihood
  information,  ///< + Aᵀ H⁻³ A: the average-information matrix (SEs)
  derivatives,  ///< + tr H⁻¹, tr H⁻²: exact first and second derivatives in h² (Newton)
};

/// One evaluation at h². A = [X y] (n × q, q = p + 1, y last); gram[k] = Aᵀ H⁻⁽ᵏ⁺¹⁾ A, q × q
/// row-major (gram[2] empty below h2_detail::information).
struct h2_evaluation {
  double h2 = 0;
  double logdet_H = 0;
  std::vector<double> gram[3];
  double trace_Hinv = 0, trace_Hinv2 = 0;  ///< only with h2_detail::derivatives
  h2_detail detail = h2_detail::value;
};

/// "One evaluation at h²" of the REML likelihood. Implementations hold G (or its decomposition)
/// and A = [X y] for the fitted samples.
class h2_evaluator {
 public:
  virtual ~h2_evaluator() = default;
  virtual int64_t n() const = 0;
  virtual int64_t q() const = 0;
  /// Evaluates at h² ∈ [0, 1). Throws numeric_error when H(h²) is not positive definite.
  virtual h2_evaluation evaluate(double h2, h2_detail detail) const = 0;
  /// B ← H(h²)⁻¹ B for B n × m column-major with leading dimension ldb (BLUPs, PEVs).
  virtual void solve(double h2, int64_t m, double* B, int64_t ldb) const = 0;
  /// Smallest h² where H stops being positive definite (1 when G is positive semi-definite;
  /// the Cholesky evaluator does not know and returns 1).
  virtual double h2_limit() const { return 1.0; }
  virtual std::string name() const = 0;
  /// The executor of the small algebra beside the evaluations (p × p systems of the fixed
  /// effects): the host side of the one the evaluator was made with.
  virtual const executor& host() const = 0;
};

/// G (n × n, row-major or column-major: symmetric, only read) and A = [X y] (n × q column-major,
/// y in the last column). The eigen evaluator decomposes G once (symmetric_eigen on `exec`) and
/// rotates A once; each evaluation is then O(n q²).
std::unique_ptr<h2_evaluator> make_eigen_evaluator(const executor& exec, int64_t n, const double* G,
                                                   int64_t q, const double* A);
/// Keeps a copy of A and G through a shifted_operand (cpu: G itself, which must outlive the
/// evaluator; cuda: G uploaded once); each evaluation factors H with the shifted_solve op (one
/// factorisation with q right-hand sides for h2_detail::value, two for information, and one with
/// n + q right-hand sides, i.e. H⁻¹ explicitly, for derivatives).
std::unique_ptr<h2_evaluator> make_cholesky_evaluator(const executor& exec, int64_t n,
                                                      const double* G, int64_t q, const double* A);
/// The same on an operand already prepared (G on the device, shared with other users of it such
/// as an eigensolver or the BLUP product); the evaluator keeps it alive.
std::unique_ptr<h2_evaluator> make_cholesky_evaluator(std::shared_ptr<const shifted_operand> G, int64_t q,
                                                      const double* A);

/// The profiled REML likelihood at one h², from an evaluation.
struct reml_profile_point {
  double h2 = 0;
  double logl = 0;       ///< convention above, σ² at its REML value σ̂²(h²)
  double sigma2 = 0;     ///< σ̂² = yᵀP_H y / (n − p)
  double yPy = 0;        ///< yᵀ P_H y
  std::vector<double> beta;     ///< GLS β̂(h²)
  std::vector<double> cov_beta; ///< σ̂² (XᵀH⁻¹X)⁻¹, p × p row-major
  double dlogl = 0, d2logl = 0; ///< dℓ/dh², d²ℓ/dh² (NaN below h2_detail::derivatives)
  double ai[3] = {0, 0, 0};     ///< AI matrix of (σ²_g, σ²_e): [gg, ge, ee] (NaN below information)
};

/// log det(XᵀX) of the first p columns of A, and rank checks: throws numeric_error when XᵀX is
/// singular (collinear fixed effects).
double logdet_xtx(const executor& host, int64_t n, int64_t q, const double* A);

reml_profile_point reml_profile(const executor& host, const h2_evaluation& e, int64_t n, int64_t q,
                                double logdet_XtX);

struct reml_options {
  double h2_max = 0.99999;  ///< upper end of the search (H = G at h² = 1 is singular for a centred G)
  int grid = 20;            ///< grid intervals on [0, h2_max] before Brent (guards against local maxima)
  double tolerance = 1e-10; ///< Brent's absolute tolerance on h² (it stops near √ε anyway)
  bool newton = true;       ///< polish with exact derivatives (one inverse per step on Cholesky)
};

struct reml_result {
  reml_profile_point at;  ///< the likelihood at ĥ²
  double h2 = 0, sigma2_g = 0, sigma2_e = 0, logl = 0;
  /// SEs from the inverse of the average-information matrix (½ yᵀPV_iPV_jPy, Gilmour et al. 1995,
  /// as GCTA) of (σ²_g, σ²_e); SE(h²) by the delta method. NaN when ĥ² is on a boundary.
  double se_sigma2_g = 0, se_sigma2_e = 0, se_h2 = 0;
  int evaluations = 0;
  bool boundary = false;   ///< ĥ² at 0 or h2_max
  bool estimated = false;  ///< false when h² was given
};

/// Maximises the profiled REML likelihood over h² ∈ [0, min(h2_max, limit)): grid, then Brent's
/// method on the best bracket (200 steps at most), then Newton steps with exact derivatives until
/// |Δh²| < 1e-12 (20 at most; a non-finite derivative ends them). A NaN likelihood counts as −∞;
/// numeric_error when no grid point has a finite one.
reml_result fit_reml(const h2_evaluator& ev, const reml_options& opt = {});

/// The same outputs at a given h² (σ²_g and σ²_e from h² and σ̂²(h²)).
reml_result fit_known_h2(const h2_evaluator& ev, double h2);

}  // namespace pmx
