// Genome-wide association by an exact linear mixed model per variant, as GEMMA `-lmm 1` runs it:
//   y = W a + x_j b + g + e,   g ~ N(0, σg² K),  e ~ N(0, σe² I),  λ = σg²/σe²
// over the samples with the phenotype, every covariate and a row of K (W = [1 | covariates]).
// K = U diag(d) Uᵀ is decomposed once (eigenvalues below 1e-10 in magnitude set to 0, as GEMMA);
// in the rotated basis H = λK + I is diagonal, so every likelihood evaluation is O(n).
// For each variant: x_j counts ALT (.bim column 5, GEMMA's allele1), missing calls take the mean
// of the called samples; λ_j maximises the restricted likelihood of the model with x_j by GEMMA's
// search (the sign changes of its derivative on 10 log-spaced intervals of [1e-5, 1e5], each root
// by Brent then Newton steps to GEMMA's 1e-5 relative stop, then the interval ends: λ_j is GEMMA's
// to about 1e-10, and the likelihood's maximiser to about 1e-5); then the Wald test of b at λ_j:
//   BETA = xᵀPy / xᵀPx, SE = sqrt(yᵀP₁y / (df xᵀPx)), P = F(1, df) upper tail of BETA²/SE²,
// df = n − (covariates + 2), P the projection after W and P₁ after W and x.
// With `null_lambda` (--lmm-null, EMMAX / GCTA --mlma style) every variant uses the λ of the null
// model instead of its own.
//
// How: Uᵀx_j for all variants is one genotype × dense product (the gemm op, Zᵀ·U with Z the
// centred, mean-imputed dosages; centring moves x_j by a multiple of the intercept, which the
// projection removes), a block of variants at a time. The search's derivative at the 11 grid
// points reuses the covariate/phenotype sums shared by every variant.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

enum class lmm_error : uint8_t {
  none,
  constant_genotype,        ///< x_j constant over the analysed samples (GEMMA drops it)
  collinear_with_covariates, ///< r² of x_j on the covariates above 0.9999 (GEMMA's -r2 default)
  lambda_not_found           ///< the search's Newton steps left [1e-5, 1e5] or stalled (GEMMA: nan)
};

/// "." or the reason's name for the NA rows: CONST_GENOTYPE, CORR_WITH_COVAR, LAMBDA_NOT_FOUND.
const char* lmm_error_name(lmm_error e);

struct lmm_options {
  bool null_lambda = false;  ///< --lmm-null: the null model's λ for every variant
};

/// The model without any variant (reported once, as GEMMA's log does).
struct lmm_null_model {
  double lambda = 0;  ///< REML σg²/σe²
  double logl = 0;    ///< restricted log-likelihood there
  double vg = 0, ve = 0;
  double pve = 0;     ///< λ tr(K)/n / (λ tr(K)/n + 1), GEMMA's "pve estimate"
};

struct lmm_association {
  int64_t samples = 0;  ///< analysed: phenotype, every covariate and a row of K
  lmm_null_model null;
  /// Per variant: calls missing among the analysed samples, ALT frequency over their calls.
  std::vector<int64_t> miss_ct;
  std::vector<double> alt_freq;
  std::vector<lmm_error> error;
  /// Per variant, NaN where error != none: the Wald test of ALT's effect at λ (λ of the variant, or
  /// the null model's with null_lambda) and the restricted log-likelihood there.
  std::vector<double> beta, se, p, lambda, logl;
  /// Wall seconds per stage (eigendecomposition, rotation U'X, lambda search and test).
  std::vector<std::pair<std::string, double>> stage_seconds;
};

/// The tests of phenotype `y` (one value per sample of `data`, NaN = missing) with `covariates`
/// (n × q row-major, NaN = missing; null when q = 0) under relationship matrix `K` (n × n row-major
/// over the samples of `data`; a sample whose diagonal entry is NaN has no row and is left out).
/// Throws input_error with fewer than q + 3 analysed samples, a constant y, or a K that is not
/// finite on the analysed samples.
lmm_association run_lmm_association(const executor& exec, const genotype_source& data, std::span<const double> y,
                                    const double* covariates, int64_t q, const double* K, const lmm_options& o,
                                    progress_sink* progress);

}  // namespace pmx
