// Allele frequencies from a file, for centring genotypes by frequencies other than the observed
// ones (e.g. base-population frequencies in single-step evaluations).
#pragma once
#include <string>
#include <vector>

#include "panoramix/genotype_source.hpp"

namespace pmx {

/// A1 (.bim column 5) frequency of every variant of `data`, from a PLINK 1.9 .frq (header with
/// SNP A1 A2 MAF: MAF is A1's frequency) or PLINK 2 .afreq (header with ID REF ALT ALT_FREQS)
/// file, matched by variant ID; where the file counts the .bim's A2 the value is 1 − frequency.
/// Extra variants in the file are ignored. Throws io_error when the file cannot be opened and
/// input_error naming the file and line for a wrong header, a short line, a frequency that is
/// not a finite number in [0, 1] (its value and column named), a .bim variant the file does not
/// list, or alleles that do not match.
std::vector<double> read_frequency_file(const std::string& path, const genotype_source& data);

}  // namespace pmx
