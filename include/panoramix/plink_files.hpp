// PLINK 1 binary filesets: .fam (samples), .bim (variants), .bed (2-bit genotypes).
// Readers validate everything and throw pmx::input_error naming file, line and problem.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/bed_file.hpp"
#include "panoramix/chromosome_set.hpp"
#include "panoramix/genotype_records.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "panoramix/sample_list.hpp"

namespace pmx {

/// Reads a .fam file: 6 whitespace-separated columns; (FID, IID) pairs must be unique; the
/// phenotype column may be a number, a missing code or a label, not an infinite or overflowing
/// number (inf, 1e999).
std::vector<sample_record> read_fam(const std::string& path);
/// Reads a .bim file: 6 whitespace-separated columns; variant IDs other than "." must be unique;
/// centimorgans a finite number (as plink2), positions integers.
std::vector<variant_record> read_bim(const std::string& path);

/// A .bed/.bim/.fam triple with optional sample and variant subsets; as a genotype_source it shows
/// the kept samples and variants.
class plink_fileset final : public genotype_source {
 public:
  explicit plink_fileset(const std::string& prefix);

  const std::vector<sample_record>& all_samples() const { return samples_; }
  const std::vector<variant_record>& all_variants() const { return variants_; }
  const bed_file& bed() const { return *bed_; }
  const std::string& prefix() const { return prefix_; }
  const std::string& name() const override { return prefix_; }

  /// Restricts to samples listed in a PLINK --keep file (FID IID, or IID with a #IID header).
  void keep_samples(const std::string& path);
  /// Restricts to variants listed in a PLINK --extract file (one ID per line, first column).
  void extract_variants(const std::string& path);
  /// Restricts variants further by a predicate on their record.
  template <class Pred>
  void filter_variants(Pred keep) {
    std::vector<int64_t> kept;
    for (int64_t j : variant_index_)
      if (keep(variants_[j])) kept.push_back(j);
    variant_index_ = std::move(kept);
  }

  /// Indices (into all_samples / all_variants) of the kept ones, increasing.
  const std::vector<int64_t>& sample_index() const { return sample_index_; }
  const std::vector<int64_t>& variant_index() const { return variant_index_; }
  int64_t n_samples() const override { return static_cast<int64_t>(sample_index_.size()); }
  int64_t n_variants() const override { return static_cast<int64_t>(variant_index_.size()); }
  const sample_record& sample(int64_t i) const override { return samples_[sample_index_[i]]; }
  const variant_record& variant(int64_t j) const override { return variants_[variant_index_[j]]; }

  /// True when no subset drops samples: blocks can then be served from the mapped file as is.
  bool all_samples_kept() const { return n_samples() == static_cast<int64_t>(samples_.size()); }

  /// Kept variants [first, first + count), compacted to the kept samples.
  packed_genotypes read_block(int64_t first, int64_t count) const override;

  /// The same block as a view into the mapped file, without a copy, when every sample is kept and
  /// the block's variants are consecutive in the file; else a view with data == nullptr.
  variant_major_view mapped_block(int64_t first, int64_t count) const override;

 private:
  std::string prefix_;
  std::vector<sample_record> samples_;
  std::vector<variant_record> variants_;
  std::unique_ptr<bed_file> bed_;
  std::vector<int64_t> sample_index_, variant_index_;
};

}  // namespace pmx
