// The ridge regression analysis as `panoramix rr` runs it (the KRR paper's §V-A, issue #20):
//
//   β = (XᵀX + λI)⁻¹ XᵀY,   X = [Z | C] over the fitted training samples,
//
// with the sample, phenotype, covariate and frequency rules of `krr` (krr_analysis.hpp):
//  - training genotypes from the context (--bfile with --keep/--extract, X/Y/MT dropped);
//  - A1 frequencies p over every training sample (founders or not); Z = x − 2p for a called
//    genotype, 0 for a missing one (mean imputation); TEST is centred with the training p;
//  - phenotypes matched by FID/IID, centred on their training means (one column of Y each); the
//    fitted samples are those with every phenotype and covariate;
//  - covariates standardised with the fitted samples' means and SDs (n − 1), appended to X after
//    the variants;
//  - XᵀX and XᵀY by ridge_regression.hpp (exact integer SNP × SNP sums), one factorisation of
//    XᵀX + λI for every phenotype (solve_kernel_ridge: fp64, or fp32/adaptive tiles with FP64
//    refinement), predictions X_test β plus the training means, MSPE and Pearson r per phenotype
//    where TEST samples have phenotypes in --pheno.
// Writing the results is formats' job (rr_files.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <limits>
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/chromosome_set.hpp"
#include "panoramix/kernel_ridge.hpp"

namespace pmx {

struct rr_analysis_options {
  std::string bfile;  ///< training fileset (for messages; the context opens it)
  std::string extract;
  chromosome_set chromosomes = chromosome_set::human();
  std::string pheno;                     ///< phenotype file (FID IID values..., header optional)
  std::vector<std::string> pheno_names;  ///< columns by name or 1-based number
  bool all_pheno = false;                ///< every column of the file
  std::string covar;                     ///< covariate file (empty: none)
  std::vector<std::string> covar_names;  ///< its columns; empty: all
  double lambda = std::numeric_limits<double>::quiet_NaN();  ///< ridge (>= 0, finite; required)
  std::string predict;  ///< TEST genotypes (a PLINK 1 fileset prefix unless open_predict reads them)
  /// Reads the TEST genotypes `predict` names, in a format the front end recognises; unset: a PLINK
  /// 1 fileset prefix.
  std::function<std::unique_ptr<genotype_source>(const std::string&)> open_predict;
  kernel_ridge_options solve;
};

struct rr_analysis {
  std::vector<std::string> traits;      ///< phenotype names
  std::vector<double> trait_means;      ///< training means (added back to the predictions)
  std::vector<std::string> variant_ids, variant_a1;  ///< the m training variants (rows of β)
  std::vector<std::string> covariate_names;          ///< the c covariates (rows m.. of β)
  std::vector<std::string> train_fid, train_iid;     ///< the fitted training samples, in file order
  kernel_ridge_solution solution;       ///< W = β: (m + c) × traits, column-major
  std::vector<std::string> test_fid, test_iid;
  matrix_buffer<double> predictions;    ///< test samples × traits, column-major (NaN: no covariate)
  std::vector<prediction_accuracy> accuracy;  ///< per trait, over TEST samples with a phenotype
  int64_t n_variants = 0, n_covariates = 0;
};

/// Throws input_error for options out of range or excluding each other (no file needed).
void check_rr_options(const rr_analysis_options& opt);

rr_analysis run_rr_analysis(const rr_analysis_options& opt, const analysis_context& ctx);

}  // namespace pmx
