// Genome-wide association by linear regression, as plink2 --glm runs it on a quantitative trait:
// for each variant j, over the samples with the phenotype, every covariate and a call at j,
//   y = b0 + b1 x_j + Σ_k g_k c_k + e,   x_j = copies of the tested allele A1,
// by ordinary least squares; BETA, SE, T_STAT = BETA/SE and P (two-sided, Student t with
// OBS_CT − (covariates + 2) degrees of freedom) for x_j and for each covariate.
//
// A1 is plink2's "nonmajor" allele: ALT (.bim column 5) unless its frequency among the founders is
// above 1/2, then REF. (On an exact tie plink2 2.00a3.5 sometimes takes REF: seen on 3 inbred rice
// variants with counts 186/2/186, not on simulated or hand-made ties; the test names them.) NA rows, as plink2 names
// them: CONST_OMITTED_ALLELE (x_j constant over the samples), CORR_TOO_HIGH (a correlation between two predictors above
// 0.999 in absolute value), VIF_TOO_HIGH (a variance inflation factor above 50), too few samples for the predictors.
//
// How: the O(n·m·q) part, Xᵀ[1 | C | y] over the samples with the phenotype and covariates, is one
// genotype × dense product (the gemm op, missing calls 0); each variant's normal equations then
// subtract the few samples missing at that variant from the covariate sums (exact per-variant
// sample sets, as plink2 has, without a pass per variant over the covariates).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

enum class glm_error : uint8_t {
  none,
  const_omitted_allele,
  corr_too_high,
  vif_too_high,
  too_few_samples,
  firth_convergence_failed  ///< logistic: neither the plain nor the Firth fit converged
};

/// plink2's ERRCODE text: ".", "CONST_OMITTED_ALLELE", "CORR_TOO_HIGH", "VIF_TOO_HIGH", "SAMPLE_CT<=COVAR_CT",
/// "FIRTH_CONVERGE_FAIL".
const char* glm_error_name(glm_error e);

struct linear_association {
  std::vector<std::string> tests;  ///< "ADD", then the covariate names
  std::vector<uint8_t> a1_is_ref;  ///< per variant: A1 = REF (.bim A2), else ALT (.bim A1)
  std::vector<int64_t> obs_ct;     ///< per variant: samples in its regression
  std::vector<glm_error> error;    ///< per variant
  /// Per variant and test (row-major, variants × tests): NaN where error != none.
  std::vector<double> beta, se, t, p;
  int64_t samples = 0;  ///< with the phenotype and every covariate (before per-variant missing calls)
};

/// The regressions of `y` (one value per sample of `data`, NaN = missing) on every variant of
/// `data` with `covariates` (n × q row-major, NaN = missing; null when q = 0) named `names`.
/// `alt_freq`: per variant, the founders' ALT (.bim A1) frequency that chooses A1. Throws input_error when
/// fewer than q + 3 samples have the phenotype and covariates, or when y is constant over them.
linear_association run_linear_association(const executor& exec, const genotype_source& data, std::span<const double> y,
                                          const double* covariates, int64_t q, const std::vector<std::string>& names,
                                          std::span<const double> alt_freq, progress_sink* progress);

}  // namespace pmx
