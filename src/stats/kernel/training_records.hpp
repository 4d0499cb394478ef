// Internal to src/stats: the records of a training/TEST split that kernel ridge regression
// (krr_analysis.cpp), ridge regression (rr_analysis.cpp) and the Matérn fit
// (matern/matern_fit_analysis.cpp) share, with one set of rules:
//  - phenotype and covariate columns (by name or 1-based number) matched to samples by FID/IID;
//  - the fitted training samples: those with every phenotype and every covariate present;
//  - phenotypes centred on their means over the fitted samples (a phenotype without variance there
//    is a named input_error);
//  - covariates standardised with the fitted samples' means and SDs (divisor n − 1; a covariate
//    without variance is a named input_error);
//  - TEST: genotypes in any format the front end reads (a PLINK fileset by default) restricted to
//    the training variant IDs, which must then be the training variants (same order, positions and
//    alleles; check_same_variants names the first difference).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/kernel_ridge.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/phenotypes.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx::detail {

/// FIDs (fid = true) or IIDs of every sample of `s`, in order.
std::vector<std::string> sample_ids(const genotype_source& s, bool fid);

/// The TEST genotypes `path` (read by `open`, else as a PLINK fileset prefix) restricted to the
/// training variants (by ID), then checked to be the same variants as `train`.
std::unique_ptr<genotype_source> open_test_genotypes(
    const std::string& path, const std::function<std::unique_ptr<genotype_source>(const std::string&)>& open,
    const genotype_source& train);

/// Columns of a phenotype/covariate table matched to samples (fid, iid): values[column][sample].
struct matched_columns {
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;
};

/// Every column (`all`) and then the `wanted` ones (names or numbers) of `t`, matched to (fid, iid);
/// NaN where a sample is not in the file. Throws input_error for an unknown column or when no
/// sample of the file is among (fid, iid).
matched_columns match_columns(const phenotype_table& t, const std::vector<std::string>& wanted, bool all,
                              const std::string& what, const std::vector<std::string>& fid,
                              const std::vector<std::string>& iid);

/// Which files and columns hold the phenotypes and covariates (the options of krr and rr).
struct record_files {
  const std::string& pheno;
  const std::vector<std::string>& pheno_names;
  bool all_pheno;
  const std::string& covar;  ///< empty: no covariates
  const std::vector<std::string>& covar_names;  ///< empty: every column of `covar`
};

/// The phenotypes and covariates of the training samples.
struct training_records {
  phenotype_table pheno;                   ///< the --pheno file (TEST phenotypes come from it too)
  std::unique_ptr<phenotype_table> covar;  ///< the --covar file, when given
  matched_columns phenotypes, covariates;  ///< over every training sample (NaN: missing)
  std::vector<int64_t> fitted;             ///< training samples with every phenotype and covariate
  std::vector<double> means;               ///< per phenotype, over the fitted samples
  matrix_buffer<double> Y;                 ///< fitted × phenotypes, column-major, centred on `means`

  int64_t n() const { return static_cast<int64_t>(fitted.size()); }
  int64_t traits() const { return static_cast<int64_t>(phenotypes.values.size()); }
  int64_t n_covariates() const { return static_cast<int64_t>(covariates.values.size()); }
};

/// Reads the files, chooses the fitted samples among the training samples (fid, iid) and centres
/// the phenotypes. Logs the counts. Throws input_error without phenotype columns, with fewer than
/// 2 fitted samples, or for a phenotype without variance among them.
training_records read_training_records(const record_files& files, const std::vector<std::string>& fid,
                                       const std::vector<std::string>& iid, analysis_log& log);

/// Mean and SD (divisor n − 1) of each covariate over the fitted samples: x ↦ (x − mean) / sd.
struct covariate_scaling {
  std::vector<double> mean, sd;
};

/// Throws input_error naming a covariate without variance among the fitted samples.
covariate_scaling scale_covariates(const training_records& r, const std::string& covar_path);

/// How solve_kernel_ridge solved, for the log: "fp64 Cholesky", or for fp32/adaptive the tile
/// size, the count of off-diagonal tiles per precision, the refinement and GMRES-IR steps.
std::string describe_solve(const kernel_ridge_solution& s, const kernel_ridge_options& opt);

/// Accuracy per trait of TEST predictions (TEST samples × traits, column-major) against the TEST
/// samples' phenotypes in the --pheno file `pheno` (read from `pheno_path`), over the samples with
/// a phenotype and a prediction; logged per trait. Empty when no TEST sample is in the file.
std::vector<prediction_accuracy> measure_test_predictions(const phenotype_table& pheno, const std::string& pheno_path,
                                                          const std::vector<std::string>& traits,
                                                          const std::vector<std::string>& fid,
                                                          const std::vector<std::string>& iid,
                                                          const double* predictions, analysis_log& log);

}  // namespace pmx::detail
