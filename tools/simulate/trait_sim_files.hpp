// Files of simulated phenotypes (trait_sim.hpp), as `panoramix simulate --traits K` writes them:
//   PREFIX.pheno  PLINK phenotype file: header `FID IID trait1 .. traitK`, one line per sample in
//                 .fam order, space-separated, NA where missing.
//   PREFIX.truth  the genetic architecture, tab-separated: `#` lines describing the model, a
//                 header `trait kind id1 id2 center1 center2 c0 c1 c2 shared value`, then per
//                 trait its rows (`.` where a column does not apply):
//                   qtl        id1 (variant), center1 (mean A1 dosage), shared, value = effect a
//                   pair       id1 id2 (variants), center1 center2, c0 c1 c2, shared, value = b
//                              (shared: 1 when common to every trait, --trait-correlation)
//                   lambda     value = λ (E = Σ b w − λ A)
//                   var_additive, var_epistatic, cov_additive_epistatic, var_genetic,
//                   var_residual, cov_genetic_residual, var_phenotypic, h2, epistatic_share
//                              value = the realised quantity (over all samples, divisor n,
//                              before NA masking)
//                   genetic_correlation  id1 = a later trait, value = realised correlation of G
// Numbers are written in the shortest form that reads back to the same double.
#pragma once
#include <string>
#include <vector>

#include "panoramix/output_file.hpp"
#include "panoramix/plink_files.hpp"
#include "simulate/trait_sim.hpp"

namespace pmx::sim {

/// Adds PREFIX.pheno and PREFIX.truth to `out` (they land when the caller commits the group).
/// Throws logic_error when `samples` or `variants` do not match `d`.
void add_trait_files(output_group& out, const std::string& prefix, const trait_params& p,
                     const trait_dataset& d, const std::vector<sample_record>& samples,
                     const std::vector<variant_record>& variants);

}  // namespace pmx::sim
