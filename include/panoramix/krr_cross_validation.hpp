// K-fold cross-validation of kernel ridge regression over a grid of (γ, α), per phenotype: the
// fitted samples are split into `folds` groups by a seeded shuffle; for each γ, fold and α the
// weights come from the other folds (phenotypes centred on those folds' means) and predict the
// held-out fold; each grid point gets the MSPE and Pearson r of the held-out predictions pooled
// over folds, and each phenotype the point of least MSPE. The kernels are cut from one Gram
// matrix (kernel_matrix.hpp): no genotype is read again.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/kernel_matrix.hpp"
#include "panoramix/kernel_ridge.hpp"

namespace pmx {

struct krr_cv_options {
  int folds = 5;
  std::vector<double> gamma_grid;  ///< Gaussian: every γ tried (IBS: ignored)
  std::vector<double> alpha_grid;  ///< every α tried
  uint64_t seed = 1;
};

struct krr_cv_point {
  double gamma = 0, alpha = 0;
  std::vector<prediction_accuracy> accuracy;  ///< per phenotype, over every held-out prediction
};

struct krr_cv_result {
  std::vector<int> fold;             ///< fold of each fitted sample
  std::vector<krr_cv_point> grid;    ///< γ-major, then α
  std::vector<int64_t> best;         ///< per phenotype: index into grid of the least MSPE
};

/// Throws input_error for fewer than 2 folds, more folds than samples, an empty or non-positive
/// grid (α may be 0).
void check_krr_cv_options(const krr_cv_options& opt, kernel_type type, int64_t n);

/// `fitted`: the gram's sample indices of the fitted samples; `covariates` as kernel_block takes
/// them; `Y`: fitted × traits phenotypes (column-major; NaN never), any centring.
krr_cv_result cross_validate_krr(const executor& exec, const genotype_gram& g, const double* covariates,
                                 int64_t n_covariates, std::span<const int64_t> fitted, const double* Y, int64_t traits,
                                 const krr_cv_options& opt, const kernel_ridge_options& solve, analysis_log& log);

}  // namespace pmx
