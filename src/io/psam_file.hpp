// PLINK 2 sample files (.psam) as .fam records, as `plink2 --pfile PREFIX --make-bed` writes them.
#pragma once
#include <string>
#include <vector>

#include "panoramix/genotype_records.hpp"

namespace pmx::io {

/// Reads `path`: '#' header lines, the last of them "#FID IID ..." or "#IID ..." naming the columns
/// (FID, IID, SID, PAT, MAT, SEX; any other name is a phenotype), or no header and .fam's six
/// columns (FID IID PAT MAT SEX PHENO1). As plink2 writes them to .fam: FID "0" without an FID column,
/// parents "0" without PAT/MAT, the SID dropped; sex 1 for 1/M/m, 2 for 2/F/f, else 0; the
/// phenotype is the first column that is not categorical, binary (only -9/0/1/2/NA values: 1 and 2
/// kept, the rest -9) or quantitative (%g, NA/nan and -9 as -9), "-9" without one.
/// Throws input_error naming the file and line for a header without IID, a column named twice, PAT
/// without MAT, a line with fewer fields than columns, an IID of "0", a sample listed twice, a
/// phenotype that is not a finite number or a column that mixes categories and numbers.
std::vector<sample_record> read_psam(const std::string& path);

}  // namespace pmx::io
