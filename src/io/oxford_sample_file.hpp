// Oxford .sample files (the companion of .gen/.bgen) as .fam records, as plink2 --sample reads them.
#pragma once
#include <string>
#include <vector>

#include "panoramix/genotype_records.hpp"

namespace pmx::io {

/// Reads `path`: a header line of column names (ID_1 ID_2 missing ...), a line of column types
/// (0 0 0 then D, C, P or B), then one line per sample. FID = ID_1, IID = ID_2, parents "0"; sex
/// from a column named "sex" (1 male, 2 female, 0 or NA unknown; anything else is an error, as in
/// plink2); phenotype from the first P, B or C column (plink2's first phenotype: B's 0/1 become
/// 1/2, NA and -9 become -9, numbers in %g form), else -9. Throws input_error naming the file and
/// line for a missing column, a bad type line or sex code, or two samples with the same FID and IID.
std::vector<sample_record> read_oxford_samples(const std::string& path);

}  // namespace pmx::io
