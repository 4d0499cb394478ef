// The pedigree / single-step evaluation as `panoramix ssblup` runs it, from files to results: the
// pedigree checked and renumbered, the records and variance components read, the genotyped
// animals matched to the pedigree by .fam IID (added as founders when asked for), the genotypes
// read and centred (observed or given frequencies), then solve_single_step (single_step.hpp) by
// PCG. Writing the results is formats' job (single_step_files.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/single_step.hpp"

namespace pmx {

struct single_step_analysis_options {
  std::string ped;    ///< pedigree file (animal sire dam; columns found as read_pedigree_file does)
  std::string pheno;  ///< records file (header; ID first)
  std::vector<std::string> traits, classes, covariates;  ///< its columns
  std::string vc;     ///< variance components file (genetic, residual matrices)
  single_step_model model = single_step_model::pblup;
  /// Genotypes (the context's open_genotypes gives them, X/Y/MT dropped): named here for
  /// messages; needed by the genomic models, ignored (noted in the log) by pblup; empty: none.
  std::string bfile;
  std::string freq;              ///< A1 frequencies for centring (.frq/.afreq); empty: observed
  double w = 0.2;                ///< share of residual polygenic variance in G̃
  double tol = 1e-12;            ///< PCG stops when ‖r‖²/‖b‖² < tol ...
  double solution_tol = 0;       ///< ... or, when > 0, on the estimated relative error instead
  int64_t max_iterations = 10000;
  bool allow_unpedigreed = false;  ///< genotyped animals missing from the pedigree become founders
  /// After each PCG iteration (0: the start): its history entry and the cumulative seconds in the
  /// genotype products and in the pedigree terms (the command line writes PREFIX.iter.part).
  std::function<void(const pcg_iteration&, double genotype_seconds, double pedigree_seconds)> on_iteration;
};

struct single_step_analysis {
  pedigree ped;                     ///< as solved (added founders included), parents-first
  std::vector<std::string> traits;  ///< trait names, in the order of the solutions' columns
  /// The genotypes of the genomic models (null for pblup): variant IDs and A1 of the SNP effects.
  std::unique_ptr<genotype_source> genotypes;
  single_step_solution solution;    ///< solution.pcg.converged false: no usable solutions
};

/// Throws input_error naming the option and the value for settings out of range (the checks that
/// need no input file): --w not a finite number in [0, 1], --tol not a finite number > 0,
/// --solution-tol not a finite number >= 0, --max-iter below 1. run_single_step_analysis checks
/// them first.
void check_single_step_options(const single_step_analysis_options& opt);

/// Runs the analysis (see the header comment), logging each step. Asks the context for the
/// genotypes after reading pedigree, records and variance components (genomic models only), then
/// for the executor. Throws input_error for bad input (a genomic model without bfile, no autosomal
/// variant, genotyped animals not in the pedigree without allow_unpedigreed, an animal genotyped
/// twice, ...), and what read_pedigree_file, read_breeding_records, read_variance_components,
/// read_frequency_file and solve_single_step throw. PCG that does not converge is not an error
/// here (solution.pcg.converged says so).
single_step_analysis run_single_step_analysis(const single_step_analysis_options& opt,
                                              const analysis_context& ctx);

}  // namespace pmx
