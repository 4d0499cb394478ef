// Outputs of the ridge regression analysis (rr_analysis.hpp), as `panoramix rr` writes them:
//   PREFIX.beta       header `ID A1 <phenotype>...`; one line per training variant (its ID and A1,
//                     the counted allele, in .bim order), then one per covariate (its name, A1 `.`):
//                     β of the centred dosages (per A1 copy) and of the standardised covariates
//   PREFIX.pred       FID IID then one predicted phenotype per column (header; TEST samples): X_test β
//                     plus the training mean; NA where a TEST sample lacks a covariate
//   PREFIX.eval       trait n mspe pearson_r (header; one line per phenotype), when TEST samples
//                     have phenotypes
//   PREFIX.precision  the tile precision map of a fp32/adaptive solve (krr_files.hpp's layout)
// Numbers are %.17g, NA for NaN.
#pragma once
#include <string>

#include "panoramix/output_file.hpp"
#include "panoramix/rr_analysis.hpp"

namespace pmx {

/// Adds the files above to `out`; returns their names, comma-separated, for the log.
std::string write_rr(output_group& out, const std::string& prefix, const rr_analysis& r);

}  // namespace pmx
