// BGEN input (v1.2/v1.3, layout 2; uncompressed, zlib or zstd; 1- to 28-bit probabilities): hard
// calls as 2-bit .bed codes, with the sample and variant records `plink2 --bgen FILE ref-first
// [--sample FILE] --make-bed` writes. Each variant's probabilities are decoded straight into its
// 2-bit row (no dosage matrix): the genotypes stay at n·m/4 bytes in memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/chromosome_set.hpp"
#include "panoramix/decoded_genotypes.hpp"
#include "panoramix/progress.hpp"
#include "panoramix/vcf_files.hpp"

namespace pmx {

struct bgen_options {
  /// Oxford .sample file (ID_1 = FID, ID_2 = IID, optional sex and phenotype columns); empty: the
  /// BGEN's own sample identifier block, whose IDs become FID/IID as VCF IDs do (`ids` below).
  std::string sample_file;
  /// How a sample-block ID becomes FID/IID (plink2 applies --double-id/--const-fid/--id-delim to
  /// BGEN IDs as to VCF IDs); the half-call and GQ/DP fields are not used.
  vcf_options ids;
  /// A call is made when the ALT dosage is within this distance of 0, 1 or 2, else it is missing
  /// (plink2 --hard-call-threshold; plink2's default 0.1). In [0, 0.5).
  double hard_call_threshold = 0.1;
  /// Names chromosomes as plink2 prints them ("01" -> "1", "chrX"/"23" -> "X", ...).
  chromosome_set chromosomes = chromosome_set::human();
  /// Threads decoding variants (0: OpenMP's default).
  int threads = 0;
};

/// What the reader saw, for the log.
struct bgen_read_counts {
  int64_t missing_calls = 0;    ///< calls flagged missing in the file (or ploidy 0)
  int64_t uncertain_calls = 0;  ///< calls made missing: the dosage is farther than the threshold from 0/1/2
  int64_t unsorted = 0;         ///< variants at a lower position than the one before on their chromosome
};

/// A BGEN file as a genotype source (every sample, every variant).
///   * variants: biallelic (a file with a variant of more alleles is refused, as by plink2);
///     allele 1 is REF = A2 (.bim column 6), allele 2 is ALT = A1 (the counted allele), as plink2
///     `ref-first`; ID = the rsID field (as plink2; an empty rsID is an error); cM 0;
///   * calls: ALT dosage d = E[ALT count] (haploid: twice P(ALT)), rounded to plink2's 1/16384
///     units; the call is round(d) when |d - round(d)| <= hard_call_threshold, else missing;
///     flagged-missing samples and ploidy 0 are missing; ploidy above 2 is refused (as by plink2);
///   * samples: from `sample_file` when given, else from the sample block (a file with neither is
///     refused); parents "0".
/// A bad header, layout 1 (BGEN v1.1), an unknown compression, 29- to 32-bit probabilities, a
/// truncated file, a block that does not decompress to its stated length, probabilities summing
/// above 1 or a chromosome that comes back after another throw input_error naming the file, the
/// variant (index and ID) and what is wrong.
class bgen_genotypes final : public decoded_genotypes {
 public:
  explicit bgen_genotypes(const std::string& path, const bgen_options& options = {},
                          progress_sink* progress = nullptr);
  const bgen_read_counts& counts() const { return counts_; }

 private:
  bgen_read_counts counts_;
};

}  // namespace pmx
