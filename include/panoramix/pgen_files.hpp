// PLINK 2 binary filesets (.pgen + .pvar or .pvar.zst + .psam) as a genotype source: the calls,
// IDs and allele codes `plink2 --pfile PREFIX --make-bed` writes, decoded from the .pgen's
// records (written from the published PLINK 2 format specification; pgenlib is not used) straight
// into 2-bit .bed rows: the genotypes stay at n·m/4 bytes in memory.
#pragma once
#include <cstdint>
#include <string>

#include "panoramix/chromosome_set.hpp"
#include "panoramix/decoded_genotypes.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct pgen_options {
  /// Names chromosomes as plink2 prints them ("chr1" -> "1", "23" -> "X" in the human set, ...).
  chromosome_set chromosomes = chromosome_set::human();
  /// Threads decoding records (0: OpenMP's default).
  int threads = 0;
};

/// How the records were stored (the main data track of each), and what else the reader saw.
struct pgen_read_counts {
  int64_t fixed_width = 0;  ///< 2-bit codes as they are (all records of modes 0x01 and 0x02)
  int64_t one_bit = 0;      ///< the two commonest codes as bits, the rest as a difflist
  int64_t sparse = 0;       ///< a difflist from one code (rare variants)
  int64_t ld = 0;           ///< a difflist from the last record that is not LD-compressed
  int64_t ld_inverted = 0;  ///< the same with hom REF and hom ALT swapped
  int64_t phased = 0;       ///< records with a hardcall-phase track (dropped: .bed has no phase)
  int64_t unsorted = 0;     ///< variants at a lower position than the one before on their chromosome
};

/// The fileset PREFIX.pgen, PREFIX.pvar (else PREFIX.pvar.zst), PREFIX.psam.
///   * variants from the .pvar: A1 (counted, .bim column 5) = ALT, A2 = REF, as plink2 --make-bed;
///   * samples from the .psam: FID "0" without an FID column, the first non-categorical
///     phenotype (see io/psam_file.hpp);
///   * storage modes 0x01 (.bed), 0x02 (`--make-pgen format=2`) and 0x10 (`--make-pgen`): every
///     main-track storage (fixed-width, 1-bit, difflists, LD-compressed and inverted); phase
///     tracks are skipped (checked for length).
/// Refused by name (unsupported_error: file, variant number and ID, what, and the plink2 command
/// that writes a readable fileset): multiallelic variants, dosage tracks, other storage modes.
/// A .pvar or .psam count that disagrees with the .pgen header, a truncated or corrupt .pgen (a
/// record that runs past its end, a bad record type byte, a sample index out of range, ...) throw
/// input_error naming the file, the variant and what is wrong.
class pgen_genotypes final : public decoded_genotypes {
 public:
  explicit pgen_genotypes(const std::string& prefix, const pgen_options& options = {},
                          progress_sink* progress = nullptr);
  const pgen_read_counts& counts() const { return counts_; }

 private:
  pgen_read_counts counts_;
};

}  // namespace pmx
