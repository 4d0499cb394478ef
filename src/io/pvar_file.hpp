// PLINK 2 variant files (.pvar, plain or Zstd-compressed .pvar.zst) as .bim records, as
// `plink2 --pfile PREFIX --make-bed` writes them: A1 (the counted allele, .bim column 5) = ALT,
// A2 = REF, cM from the CM column (0 without one), chromosome names as plink2 prints them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/chromosome_set.hpp"
#include "panoramix/genotype_records.hpp"

namespace pmx::io {

struct pvar_contents {
  std::vector<variant_record> variants;
  int64_t unsorted = 0;     ///< variants at a lower position than the one before on their chromosome
  bool compressed = false;  ///< the file was Zstd-compressed
};

/// Reads `path`: '##' meta lines, then a '#CHROM' line naming the columns (CHROM POS ID REF ALT
/// required; QUAL FILTER INFO CM optional; FORMAT ends the list), or no header at all and .bim
/// columns (CHROM ID [CM] POS ALT REF). Throws input_error naming the file and line for a missing
/// column or field, a position that is not a non-negative integer, a cM that is not a finite
/// number, a chromosome that comes back after another; unsupported_error for a multiallelic
/// variant (ALT with a comma), with the plink2 flags that write a readable fileset.
/// `expected`: how many variants there should be (the .pgen header's count; 0 when unknown), room
/// reserved up front (a larger count is not an error here: the caller compares).
pvar_contents read_pvar(const std::string& path, const chromosome_set& chromosomes, size_t expected = 0);

}  // namespace pmx::io
