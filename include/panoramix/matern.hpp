// Whittle–Matérn covariances of genotypes (thesis chapter 5): pairwise Euclidean distances of
// the samples' dosages from the exact integer crossproduct, and the covariance matrix C(D) with
// its parameter derivatives (the op ops/matern_covariance.hpp evaluates C itself).
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/matern_covariance.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct genotype_distance_result {
  int64_t n = 0, n_variants = 0;
  matrix_buffer<double> h;  ///< n × n, row-major, symmetric, zero diagonal: h_ij = ‖g̃_i − g̃_j‖ (scaled)
  double scale = 1;         ///< the divisor of D applied (1, or 2 Σ p(1−p) with `standardize`)
};

/// Euclidean distances h_ij = √D_ij of the A1 dosages, missing calls mean-imputed (2p, p the
/// counted A1 frequency of all samples), from VanRaden's unscaled Gram matrix F = Z Zᵀ (the exact
/// integer M·Mᵀ plus corrections, grm.hpp): D_ij = F_ii + F_jj − 2 F_ij (centring leaves
/// distances unchanged). With `standardize`, D is divided by 2 Σ p(1−p) (the distance in the
/// units of the VanRaden GRM, G_ii + G_jj − 2 G_ij), so that ρ does not grow with the variant
/// count. Negative D from rounding are set to 0.
genotype_distance_result genotype_distances(const executor& exec, const genotype_source& data, bool standardize,
                                            progress_sink* progress);

/// Log-likelihoods of y = Xβ + g + ε at given parameters, V = C(D) + σ²_ε I, β by GLS.
struct matern_likelihood {
  double ml = 0;    ///< −½(n log 2π + log det V + (y − Xβ̂)ᵀV⁻¹(y − Xβ̂)), β̂ the GLS estimate
  double reml = 0;  ///< −½((n−p) log 2π + log det V + log det XᵀV⁻¹X + (y − Xβ̂)ᵀV⁻¹(y − Xβ̂))
  std::vector<double> beta;  ///< β̂ (p entries)
};

/// h: n × n distances (row-major, host memory); y: n; X: n × p row-major (p may be 0: ml is then
/// the zero-mean Gaussian log-density, scikit-learn's GaussianProcessRegressor
/// log_marginal_likelihood for ConstantKernel(σ²)·Matern(ρ, ν) + WhiteKernel(σ²_ε)). Covariances by
/// the quadrature route; Cholesky on the executor's host side (LAPACK). Throws numeric_error
/// when V is not positive definite.
matern_likelihood matern_log_likelihood(const executor& exec, const double* h, int64_t n, const double* y,
                                        const double* X, int64_t p, const matern_params& prm, double sigma2_e);

}  // namespace pmx
