// Genome-wide association by logistic regression, as plink2 --glm runs it on a case/control trait
// (its default 'firth-fallback'): for each variant j, over the samples with the phenotype, every
// covariate and a call at j, logit P(case) = b0 + b1 x_j + Σ g_k c_k by maximum likelihood (Newton /
// IRLS from 0); where that does not converge (separation: rare variants), Firth's penalised
// likelihood instead (FIRTH? = Y). OR = exp(b), LOG(OR)_SE from the inverse information, Z_STAT,
// two-sided normal P. A1, the NA reasons and the screening of the predictors are those of
// linear_association.hpp.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/linear_association.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct logistic_association {
  std::vector<std::string> tests;  ///< "ADD", then the covariate names
  std::vector<uint8_t> a1_is_ref;  ///< per variant
  std::vector<uint8_t> firth;      ///< per variant: the Firth fit was used
  std::vector<int64_t> obs_ct;
  std::vector<glm_error> error;
  /// Per variant and test (row-major): log odds ratio, its SE, Z = b/SE, P; NaN where error != none.
  std::vector<double> log_or, se, z, p;
  int64_t samples = 0;
};

/// `y`: 1 for cases, 0 for controls, NaN missing (one per sample of `data`); the rest as
/// run_linear_association. Throws input_error without cases or without controls.
logistic_association run_logistic_association(const executor& exec, const genotype_source& data,
                                              std::span<const double> y, const double* covariates, int64_t q,
                                              const std::vector<std::string>& names, std::span<const double> alt_freq,
                                              progress_sink* progress);

}  // namespace pmx
