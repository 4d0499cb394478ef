// The Matérn mixed-model fit as `panoramix matern-fit` runs it, from files to results: the
// samples' genotype distances (genotype_distances, matern.hpp), one phenotype and the covariates
// matched by FID and IID with krr's/rr's rules (the fitted samples: those with the phenotype and
// every covariate; a phenotype or covariate without variance among them is refused), X =
// intercept + covariates, fit_matern (matern_fit.hpp), and the BLUP ĝ = C(h_i,fitted) V⁻¹(y − Xβ̂)
// of every genotyped sample (the fitted ones and those without a phenotype alike).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/matern_fit.hpp"

namespace pmx {

struct matern_fit_analysis_options {
  std::string pheno;        ///< phenotype file (FID IID values..., header optional)
  std::string pheno_name;   ///< its column by name or 1-based number
  std::string covar;        ///< covariate file; empty: intercept only
  std::vector<std::string> covar_names;  ///< its columns; empty: all
  bool standardize = false;              ///< distances in VanRaden GRM units (matern.hpp)
  matern_fit_options fit;
};

struct matern_fit_analysis {
  std::vector<std::string> fid, iid;        ///< the genotyped samples, in order
  std::vector<int64_t> fitted;              ///< indices of the fitted samples
  std::string trait;
  std::vector<std::string> fixed_effects;   ///< "intercept", then the covariates' names
  int64_t n_variants = 0;
  double distance_scale = 1;                ///< the divisor of D (genotype_distance_result)
  matern_fit_result fit;                    ///< β on the phenotype's own scale (intercept included)
  std::vector<double> blup;                 ///< ĝ per genotyped sample
};

/// Throws input_error naming the option for a missing --pheno, --covar-name without --covar, a
/// fixed ν outside (0, matern_max_nu], a tolerance that is not a finite number > 0 or fewer than
/// 1 iteration.
void check_matern_fit_options(const matern_fit_analysis_options& opt);

/// Runs the analysis (see the header comment): the executor, then the genotypes from `ctx`.
/// Throws input_error for bad input (records as read_training_records says), numeric_error when V
/// is not positive definite or the fit did not converge (naming the iterations and the last
/// values).
matern_fit_analysis run_matern_fit_analysis(const matern_fit_analysis_options& opt, const analysis_context& ctx);

}  // namespace pmx
