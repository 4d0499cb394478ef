// Outputs of the gBLUP analysis (gblup_analysis.hpp), as `panoramix gblup` writes them:
//   PREFIX.gebv   FID IID GEBV PEV (header; every sample of G, in its order; PEV NA without PEVs)
//   PREFIX.fixef  name estimate se, intercept first (no header)
//   PREFIX.vc     sigma2_g, sigma2_e, h2, logL: name value se (no header; logL's se NA)
// with PREFIX.eigenval / PREFIX.eigenvec (pca_files.hpp) when PCs of G were computed. Numbers
// are %.17g, NA for a NaN (an SE that does not exist).
// Layer: formats (src/formats), above stats: writes statistics' results; cli and capi call it.
#pragma once
#include <string>

#include "panoramix/gblup_analysis.hpp"
#include "panoramix/output_file.hpp"

namespace pmx {

/// Adds the files above to `out`.
void write_gblup(output_group& out, const std::string& prefix, const gblup_analysis& r);

}  // namespace pmx
