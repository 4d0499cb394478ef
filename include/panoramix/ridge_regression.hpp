// Ridge regression's normal equations from 2-bit genotypes (the KRR paper's §V-A):
//
//   β = (XᵀX + λI)⁻¹ XᵀY,   X = [Z | C]   (samples × (m + c))
//
// over a chosen set of samples (the fitted ones), with Z the centred dosages, Z_il = x_il − 2p_l
// for a called genotype and 0 for a missing one (mean imputation at the given frequencies p), and
// C covariates given as doubles (already standardised by the caller).
//
// XᵀX has three kinds of blocks:
//   Z ᵀZ  (SNP × SNP)  from the exact integer sums of the crossprod op on word-aligned variant
//          rows of the chosen samples, S_kl = Σ x_ik x_il, N_kl = Σ c_ik c_il, U_kl = Σ x_ik c_il,
//          Ut_kl = Σ c_ik x_il (c = called), then with q = 2p
//              z_k·z_l = S_kl − q_l U_kl − q_k Ut_kl + q_k q_l N_kl,
//          evaluated in double-double (error-free products and sums), so every entry is the exact
//          value rounded about once: |error| ≲ 2u·|z_k·z_l| + u²·(|S| + |q_l U| + |q_k Ut| + |q_k q_l N|).
//          Tiles of variants without a missing call among the chosen samples ask the op for S only
//          (N = n, U_kl = Σ_i x_ik, Ut_kl = Σ_i x_il).
//   ZᵀC  (SNP × covariate) and ZᵀY: the genotype_gemm op (gemm_transposed), whose Z is exactly the
//          matrix above; dgemm accuracy (genotype_gemm.hpp).
//   CᵀC  and CᵀY: plain double sums.
// Predictions X_new β use the gemm op with the same p (the training frequencies).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct ridge_normal_equations {
  int64_t n = 0;       ///< samples in X
  int64_t m = 0;       ///< variants (the first m rows and columns)
  int64_t c = 0;       ///< covariates (the last c rows and columns)
  int64_t traits = 0;  ///< columns of Y
  matrix_buffer<double> XtX;  ///< (m + c) × (m + c), row-major, symmetric (both triangles)
  matrix_buffer<double> XtY;  ///< (m + c) × traits, column-major
  std::vector<std::pair<std::string, double>> stage_seconds;
};

/// XᵀX and XᵀY over the samples `samples` of `data` (indices, strictly increasing) and every
/// variant of `data`. `a1_freq`: one per variant in [0, 1] (missing calls are imputed at 2p).
/// `covariates`: samples.size() × n_covariates, row-major, finite (null when n_covariates is 0).
/// `Y`: samples.size() × traits, column-major, finite (null when traits is 0).
ridge_normal_equations compute_ridge_normal_equations(const executor& exec, const genotype_source& data,
                                                      std::span<const double> a1_freq,
                                                      std::span<const int64_t> samples, const double* covariates,
                                                      int64_t n_covariates, const double* Y, int64_t traits,
                                                      progress_sink* progress);

/// Predictions X β for every sample of `data` (its variants those of the fit, in order):
/// pred = Z β[0, m) + C β[m, m + c), with Z centred by `a1_freq` (the training frequencies).
/// `covariates`: data.n_samples() × n_covariates, row-major; a sample with a NaN covariate gets NaN
/// predictions. `beta`: (m + c) × traits, column-major, leading dimension ld_beta; `pred`:
/// n_samples × traits, column-major, leading dimension ld_pred (overwritten).
void ridge_predict(const executor& exec, const genotype_source& data, std::span<const double> a1_freq,
                   const double* covariates, int64_t n_covariates, const double* beta, int64_t ld_beta,
                   int64_t traits, double* pred, int64_t ld_pred, progress_sink* progress);

}  // namespace pmx
