// Outputs of the association analysis (association_analysis.hpp), in plink2 --glm's layout:
//   PREFIX.<trait>.glm.linear   #CHROM POS ID REF ALT A1 TEST OBS_CT BETA SE T_STAT P ERRCODE,
//                               one line per variant and test (ADD, then each covariate unless
//                               hide_covar); REF/ALT are .bim columns 6/5; numbers with 6
//                               significant digits as plink2 prints them, NA where ERRCODE is not ".".
// With --lmm instead:
//   PREFIX.<trait>.lmm          #CHROM POS ID REF ALT A1 A1_FREQ MISS_CT OBS_CT BETA SE LOGL_H1 LAMBDA P
//                               ERRCODE, one line per variant; A1 = ALT (GEMMA's allele1), OBS_CT the
//                               analysed samples (missing calls mean-imputed), LAMBDA the REML λ of the
//                               variant's model, P the Wald test's; 10 significant digits.
#pragma once
#include <string>

#include "panoramix/association_analysis.hpp"
#include "panoramix/output_file.hpp"

namespace pmx {

/// Adds the files above to `out`; returns their names, comma-separated, for the log.
std::string write_association(output_group& out, const std::string& prefix, const association_analysis& r,
                              bool hide_covar);

}  // namespace pmx
