// PLINK 2 binary filesets (.pgen + .pvar or .pvar.zst + .psam) as a genotype source: the calls,
// IDs and allele codes `plink2 --pfile PREFIX --make-bed` writes, decoded from the .pgen's
// records (written from the published PLINK 2 format specification; pgenlib is not used) into
// 2-bit .bed rows block by block as they are read: the .pgen stays mapped, and a block costs its
// rows' n·count/4 bytes, so that `convert` streams and statistics read as from a .bed.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/chromosome_set.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct pgen_options {
  /// Names chromosomes as plink2 prints them ("chr1" -> "1", "23" -> "X" in the human set, ...).
  chromosome_set chromosomes = chromosome_set::human();
  /// Threads decoding the records of a block (0: OpenMP's default).
  int threads = 0;
};

/// How the records are stored (the main data track of each), and what else the reader saw.
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
/// Refused by name when opened (unsupported_error: file, variant number and ID, what, and the
/// plink2 command that writes a readable fileset): multiallelic variants, dosage tracks, other
/// storage modes. A .pvar or .psam count that disagrees with the .pgen header, a truncated .pgen
/// or a corrupt header throw input_error when opened; a corrupt record (a bad record type byte, a
/// sample index out of range, a track that runs past its record, ...) when a block holding it is
/// read, naming the file, the variant and what is wrong.
class pgen_genotypes final : public genotype_source {
 public:
  explicit pgen_genotypes(const std::string& prefix, const pgen_options& options = {},
                          progress_sink* progress = nullptr);
  ~pgen_genotypes() override;

  const std::string& name() const override { return prefix_; }
  int64_t n_samples() const override { return static_cast<int64_t>(samples_.size()); }
  int64_t n_variants() const override { return static_cast<int64_t>(variants_.size()); }
  const sample_record& sample(int64_t i) const override { return samples_[static_cast<size_t>(i)]; }
  const variant_record& variant(int64_t j) const override { return variants_[static_cast<size_t>(j)]; }
  /// Decodes variants [first, first + count) (on `threads` threads when the block is large).
  packed_genotypes read_block(int64_t first, int64_t count) const override;
  /// Always a view with data == nullptr: the rows exist only once decoded.
  variant_major_view mapped_block(int64_t, int64_t) const override { return {}; }

  const std::vector<sample_record>& samples() const { return samples_; }
  const std::vector<variant_record>& variants() const { return variants_; }
  const pgen_read_counts& counts() const { return counts_; }
  /// "PLINK 2 .pgen (storage mode 0x10)", with ", .pvar.zst" when it was compressed.
  const std::string& format() const { return format_; }

 private:
  struct records;  // the mapped .pgen and its record index
  std::string prefix_, format_;
  std::vector<sample_record> samples_;
  std::vector<variant_record> variants_;
  pgen_read_counts counts_;
  int threads_ = 1;
  std::unique_ptr<records> records_;
};

}  // namespace pmx
