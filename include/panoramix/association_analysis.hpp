// `panoramix assoc` from files to results: the phenotypes (one regression set each) and
// covariates of the --pheno/--covar files matched to the genotyped samples by FID/IID; then per
// phenotype either --glm (A1 chosen from the founders' allele frequencies as plink2,
// run_linear_association / run_logistic_association; chromosome X with SEX as an added covariate,
// as plink2) or --lmm (run_lmm_association under the
// relationship matrix of --grm or of the genotypes, every phenotype as quantitative, as GEMMA).
// Writing is formats' job (association_files.hpp).
#pragma once
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/chromosome_set.hpp"
#include "panoramix/linear_association.hpp"
#include "panoramix/logistic_association.hpp"
#include "panoramix/mixed_model_association.hpp"

namespace pmx {

struct association_options {
  std::string pheno;                        ///< phenotype file (FID IID values..., header optional)
  std::vector<std::string> pheno_names;     ///< columns by name or 1-based number
  bool all_pheno = false;                   ///< every column (the default when no names are given)
  std::string covar;                        ///< covariate file; empty: none
  std::vector<std::string> covar_names;     ///< its columns; empty: all
  bool covar_variance_standardize = false;  ///< plink2 --covar-variance-standardize
  bool lmm = false;                         ///< the mixed model instead of --glm's regressions
  lmm_options lmm_fit;                      ///< --lmm-null
  bool loco = false;                        ///< --loco: each chromosome's variants under K without it
  std::string grm;                          ///< --grm PREFIX (GCTA binary); empty: K from the genotypes
  chromosome_set chromosomes = chromosome_set::human();
};

/// One phenotype's regressions: logistic when it is case/control as plink2 reads one (every value
/// 1 = control, 2 = case, or 0/-9/NA missing, with both 1 and 2 present), else linear.
struct trait_association {
  std::string name;
  bool binary = false;
  linear_association linear;      ///< when !binary
  logistic_association logistic;  ///< when binary
  /// The variants on chromosome X (plink2 adds SEX as their last covariate), when the data has
  /// both X and other variants; else every variant is in linear/logistic above.
  linear_association linear_x;
  logistic_association logistic_x;
  lmm_association lmm;            ///< with --lmm (binary is then false)
};

struct association_analysis {
  bool lmm = false;
  std::vector<trait_association> traits;
  std::vector<variant_record> variants;  ///< the tested variants, in order
  /// --glm with X and other variants: per variant, whether on X (its results in the _x members),
  /// and its row there or in the others' results. Empty otherwise (rows = variant order).
  std::vector<uint8_t> on_x;
  std::vector<int64_t> part_row;
};

/// Throws input_error for options that cannot work (no phenotype file).
void check_association_options(const association_options& o);

association_analysis run_association_analysis(const association_options& o, const analysis_context& ctx);

}  // namespace pmx
