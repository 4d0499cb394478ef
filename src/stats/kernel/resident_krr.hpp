// Kernel ridge regression with the Gaussian kernel kept in device memory: the KRR paper's Build,
// Associate and Predict on one GPU without an n × n matrix on the host (krr_analysis.cpp takes this
// path where it applies, the host Gram matrix of kernel_matrix.hpp elsewhere).
//
//   Build      the exact integer S = X Xᵀ of the fitted training dosages stays on the device
//              (sample_sums, binary tensor cores); K_ij = exp(−γ (S_ii + S_jj − 2 S_ij + ‖c_i − c_j‖²))
//              is written beside it (finish_gaussian_kernel) and the sums are released;
//   Associate  solve_kernel_ridge factorises K + αI where it lies (tile Cholesky on the device);
//              K is released once W is known;
//   Predict    TEST × train distances from the crossprod op of the sample-major rows, a block of
//              TEST rows at a time, with the self-products ‖x_i‖² counted here from the 2-bit rows;
//              the kernel block and K_test,train W on the host.
//
// Why only without missing calls: S_ii + S_jj − 2 S_ij is ‖x_i − x_j‖² exactly when every call is
// present; mean imputation needs the VanRaden corrections, which exist on the host path only.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "panoramix/analysis_context.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/kernel_ridge.hpp"
#include "panoramix/matrix_buffer.hpp"

namespace pmx::detail {

struct resident_krr_problem {
  const genotype_source* train = nullptr;  ///< every kept training sample
  std::span<const int64_t> fitted;         ///< the fitted ones among them (increasing indices)
  const genotype_source* test = nullptr;   ///< TEST (same variants); null: no prediction
  double gamma = 0, alpha = 0;
  /// Standardised covariates, row-major: the samples of `train` (all of them), then those of
  /// `test`; null when nc = 0.
  const double* covariates = nullptr;
  int64_t nc = 0;
  const double* Y = nullptr;  ///< fitted × traits, column-major, centred
  int64_t traits = 0;
  kernel_ridge_options solve;
};

struct resident_krr_result {
  kernel_ridge_solution solution;
  matrix_buffer<double> predictions;  ///< TEST × traits, column-major, without the training means
  std::vector<std::pair<std::string, double>> build_seconds;    ///< Build's stages
  std::vector<std::pair<std::string, double>> predict_seconds;  ///< Predict's stages
};

/// Why the problem cannot run resident on `exec` (empty when it can): not a cuda executor, fp64
/// asked for (its FP64 Cholesky would need a second n × n copy on the device), missing calls in
/// the training (`train_missing_calls` > 0) or TEST genotypes.
std::string resident_krr_refusal(const executor& exec, const kernel_ridge_options& solve, int64_t train_missing_calls,
                                 const genotype_source* test);

/// Build, Associate and Predict as above. Throws unsupported_error when S does not fit the device
/// budget, pmx::error when K cannot be allocated, numeric_error as solve_kernel_ridge does.
resident_krr_result run_resident_krr(const executor& exec, const resident_krr_problem& p, analysis_log& log);

}  // namespace pmx::detail
