// The gBLUP analysis as `panoramix gblup` runs it, from files to results: G computed from the
// genotypes (as `grm`) or read from a GCTA binary GRM (optionally reduced to the --keep samples'
// rows and columns), the phenotype and covariates matched to G's samples by FID and IID, the
// samples with a missing phenotype or covariate left out of the fit (they get predictions only),
// the REML evaluator chosen, optionally the top eigenpairs of G, then fit_gblup (gblup.hpp).
// Writing the results is formats' job (gblup_files.hpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/gblup.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/grm_check.hpp"
#include "panoramix/grm_pcs.hpp"
#include "panoramix/matrix_buffer.hpp"

namespace pmx {

/// Which h2_evaluator fits the model. `automatic`: eigen for REML with up to 5,000 fitted samples
/// on cpu (25,000 on cuda), else Cholesky; beyond that limit the Cholesky evaluator runs Brent
/// alone (no Newton polish) on a coarser grid with tolerance 1e-7.
enum class gblup_evaluator_choice { automatic, eigen, cholesky };

struct gblup_analysis_options {
  /// Where G comes from: exactly one of `bfile` (computed from the genotypes, which the context's
  /// open_genotypes gives with `keep`/`extract` applied and X/Y/MT dropped) and `grm` (a GCTA
  /// binary GRM PREFIX, read here; `keep` then keeps those samples' rows and columns, in the
  /// GRM's order; `extract` is refused).
  std::string bfile, grm, keep, extract;
  grm_method method = grm_method::standardized;  ///< G from genotypes
  bool nonfounders = false;                      ///< G's frequencies from every sample
  chromosome_set chromosomes = chromosome_set::human();
  std::string pheno;       ///< phenotype file (FID IID values..., header optional)
  std::string pheno_name;  ///< its column by name; empty: by number `mpheno` (1-based)
  int mpheno = 1;
  std::string covar;                     ///< covariate file; empty: intercept only
  std::vector<std::string> covar_names;  ///< its columns by name or number; empty: all
  std::optional<double> h2;              ///< given h²; empty: REML
  bool reml = false;                     ///< REML asked for explicitly (excludes h2)
  gblup_evaluator_choice evaluator = gblup_evaluator_choice::automatic;
  bool pev = true;                       ///< prediction error variances
  grm_pcs_options pc{.pcs = 0};          ///< top eigenpairs of G (pcs 0: none)
  /// G, read or computed, must be finite, not all zero and positive semi-definite
  /// (check_grm_for_model); a G that is not is refused unless one of these repairs is asked for.
  grm_repair_options grm_repair;
};

struct gblup_analysis {
  std::vector<std::string> fid, iid;  ///< G's samples, in its order (every one gets a GEBV)
  gblup_result fit;
  bool pev = true;      ///< fit.pev holds the PEVs (else the writers give NA)
  grm_pcs_result pcs;   ///< pcs.pcs == 0 when none were asked for
};

/// G of the model and its samples, in G's order.
struct gblup_relationship {
  int64_t n = 0;
  std::vector<std::string> fid, iid;
  matrix_buffer<double> G;  ///< n × n, row-major, symmetric
};

/// The phenotype and covariates of G's n samples, one value each (NaN: missing), and the names
/// that messages give them: the command line's say "--pheno FILE", "--covar FILE"; another front
/// end names its own arguments.
struct gblup_records {
  std::vector<double> y;
  std::string trait;                             ///< the phenotype's name
  std::vector<std::vector<double>> covariates;   ///< each with n values
  std::vector<std::string> covariate_names;
  std::string pheno_source = "--pheno", covar_source = "--covar";
  std::string covar_hint = "leave it out with --covar-name";  ///< how to drop a constant covariate
};

/// Throws input_error for options that exclude each other or lie out of range (the checks that
/// need no input file), naming the option and the value: not exactly one of bfile and grm,
/// extract with grm, h2 with reml, an h2 that is not a finite number in [0, 1), an mpheno below
/// 1, a negative PC count, a PC tolerance that is not a finite number > 0, fewer than 1 PC
/// iteration, negative PC oversampling, both G repairs or a --grm-add-diagonal that is not a
/// finite number > 0. run_gblup_analysis checks them first; a front end may call it before it
/// makes the executor.
void check_gblup_options(const gblup_analysis_options& opt);

/// Runs the analysis (see the header comment). Asks the context for the executor first, then
/// (with bfile) for the genotypes. Throws input_error naming the file or option for bad input
/// (no autosomal variant, no --keep sample in the GRM, more PCs than samples, phenotype or
/// covariate columns or IDs not found, no fitted sample, a phenotype without variance over the
/// fitted samples, a constant covariate, a G that check_grm_for_model refuses, ...),
/// numeric_error from the fit.
gblup_analysis run_gblup_analysis(const gblup_analysis_options& opt, const analysis_context& ctx);

/// G from the genotypes as run_gblup_analysis computes it (opt's method, nonfounders and
/// chromosome set; the caller drops X/Y/MT), with the samples' FID and IID. Throws input_error
/// (naming opt.bfile) when `data` has no variant.
gblup_relationship compute_gblup_relationship(const executor& exec, const gblup_analysis_options& opt,
                                              const genotype_source& data, analysis_log* log);

/// The rest of run_gblup_analysis once G and the records are at hand: the fitted samples (a
/// phenotype and every covariate), the checks of the records (refused by the names in `records`),
/// the check or repair of G (a G with opt.grm set is refused when indefinite, else noted), the
/// evaluator, the PCs and the fit. The caller checks `opt` first (check_gblup_options).
gblup_analysis fit_gblup_analysis(const executor& exec, const gblup_analysis_options& opt, gblup_relationship rel,
                                  const gblup_records& records, analysis_log* log);

}  // namespace pmx
