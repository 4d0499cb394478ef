// The KRR analysis as `panoramix krr` runs it, from files to results (the KRR paper's Algorithm 1):
//  - training genotypes from the context (--bfile with --keep/--extract, X/Y/MT dropped); with
//    `predict`, the TEST fileset's variants must be the training ones (TEST may have more: only
//    the training IDs are read; a training variant TEST lacks, or other alleles, is an error);
//  - A1 frequencies counted over every training sample (founders or not): they impute the missing
//    calls of both sets;
//  - phenotypes (one column each, matched by FID/IID) centred on their training means; the
//    training samples are those with every phenotype (and covariate) present;
//  - covariates standardised with the training samples' means and SDs (Gaussian kernel only);
//  - Build: one Gram matrix over training (+ test) samples (kernel_matrix.hpp), the kernels cut
//    from it; Associate: solve_kernel_ridge; Predict: K_test,train W plus the training means;
//    where TEST samples have phenotypes in --pheno: MSPE and Pearson r per phenotype.
// Writing the results is formats' job (krr_files.hpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/kernel_matrix.hpp"
#include "panoramix/kernel_ridge.hpp"
#include "panoramix/krr_cross_validation.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx {

/// Where the Gaussian kernel matrix lives: `automatic` keeps it in device memory (resident: no
/// n × n matrix on the host) where that path applies — a cuda executor, the Gaussian kernel, no
/// --cv, fp32/adaptive, no missing calls — and on the host otherwise (saying why in the log);
/// `device` makes those conditions an error; `host` always builds the host Gram matrix.
enum class kernel_residence { automatic, host, device };

struct krr_analysis_options {
  std::string bfile;  ///< training fileset (for messages; the context opens it)
  std::string extract;
  chromosome_set chromosomes = chromosome_set::human();
  std::string pheno;                     ///< phenotype file (FID IID values..., header optional)
  std::vector<std::string> pheno_names;  ///< columns by name or 1-based number
  bool all_pheno = false;                ///< every column of the file
  std::string covar;                     ///< covariate file (Gaussian kernel only)
  std::vector<std::string> covar_names;  ///< its columns; empty: all
  kernel_type kernel = kernel_type::gaussian;
  double gamma = 0;            ///< Gaussian bandwidth (> 0; 0: not given, then --cv's grid)
  double alpha = std::nan("");  ///< ridge (>= 0; NaN: not given, then --cv's grid)
  /// Cross-validation (folds 0: none): each phenotype then gets the (γ, α) of least CV MSPE; an
  /// empty grid takes the given γ or α alone.
  krr_cv_options cv{.folds = 0, .gamma_grid = {}, .alpha_grid = {}, .seed = 1};
  std::string predict;  ///< TEST genotypes (a PLINK 1 fileset prefix unless open_predict reads them)
  /// Reads the TEST genotypes `predict` names, in a format the front end recognises; unset: a PLINK
  /// 1 fileset prefix.
  std::function<std::unique_ptr<genotype_source>(const std::string&)> open_predict;
  kernel_ridge_options solve;
  kernel_residence kernel_on = kernel_residence::automatic;
};

struct krr_analysis {
  std::vector<std::string> traits;      ///< phenotype names
  std::vector<double> trait_means;      ///< training means (added back to the predictions)
  std::vector<std::string> train_fid, train_iid;  ///< the fitted training samples, in file order
  kernel_ridge_solution solution;       ///< W: rows = train samples above
  std::vector<std::string> test_fid, test_iid;
  matrix_buffer<double> predictions;    ///< test samples × traits, column-major
  std::vector<prediction_accuracy> accuracy;  ///< per trait, over TEST samples with a phenotype
  int64_t n_variants = 0;
  std::vector<double> gamma, alpha;     ///< per trait, as used (given or chosen by CV)
  std::optional<krr_cv_result> cv;      ///< when cross-validated
};

/// Throws input_error for options out of range or excluding each other (no file needed).
void check_krr_options(const krr_analysis_options& opt);

krr_analysis run_krr_analysis(const krr_analysis_options& opt, const analysis_context& ctx);

}  // namespace pmx
