// Outputs of the KRR analysis (krr_analysis.hpp), as `panoramix krr` writes them:
//   PREFIX.weights    FID IID then one column of W per phenotype (header; fitted training samples)
//   PREFIX.pred       FID IID then one predicted phenotype per column (header; TEST samples), when
//                     predicting; NA where a TEST sample lacks a covariate
//   PREFIX.eval       trait n mspe pearson_r (header; one line per phenotype), when TEST samples
//                     have phenotypes
//   PREFIX.cv         trait gamma alpha n mspe pearson_r chosen (header; every trait × grid point),
//                     with --cv
//   PREFIX.precision  the tile precision map of a fp32/adaptive solve: a comment line, then row i
//                     of tiles lists the precisions of tiles (i, 0..i) (diagonal tiles fp32)
// Numbers are %.17g, NA for NaN.
#pragma once
#include <string>

#include "panoramix/krr_analysis.hpp"
#include "panoramix/output_file.hpp"

namespace pmx {

/// Adds the files above to `out`; returns their names, comma-separated, for the log.
std::string write_krr(output_group& out, const std::string& prefix, const krr_analysis& r);

}  // namespace pmx
