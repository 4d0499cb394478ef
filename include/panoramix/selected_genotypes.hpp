// Any genotype source seen through a sample and variant selection (--keep, --extract, dropping
// X/Y/MT): the formats read whole (VCF/BCF, and later BGEN, .pgen) share it, and PLINK filesets go
// through it too, so every front end selects the same way whatever the format.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/genotype_source.hpp"

namespace pmx {

class selected_genotypes final : public genotype_source {
 public:
  /// Starts with every sample and variant of `all` kept.
  explicit selected_genotypes(std::unique_ptr<genotype_source> all);

  /// Keeps only the samples a PLINK --keep file lists (FID IID, or IID after a #IID header); throws
  /// input_error when none of them is in the data.
  void keep_samples(const std::string& path);
  /// Keeps only the variants whose IDs a PLINK --extract file lists (first column); throws
  /// input_error when none of them is in the data.
  void extract_variants(const std::string& path);
  /// Drops the samples a PLINK --remove file lists (the --keep format); throws input_error when
  /// none would remain.
  void remove_samples(const std::string& path);
  /// Keeps only the samples whose FID a PLINK --keep-fam file lists (first column); throws
  /// input_error when none remains.
  void keep_families(const std::string& path);
  /// Drops the variants whose IDs a PLINK --exclude file lists (first column); throws input_error
  /// when none would remain.
  void exclude_variants(const std::string& path);
  /// Keeps only the kept variants whose record satisfies `keep`.
  void filter_variants(const std::function<bool(const variant_record&)>& keep);
  /// Keeps kept sample i (variant j) where keep[i] != 0 (keep[j]); one flag per kept one.
  void keep_samples_where(const std::vector<uint8_t>& keep);
  void keep_variants_where(const std::vector<uint8_t>& keep);

  const genotype_source& all() const { return *all_; }
  /// Indices (into all()) of the kept samples and variants, increasing.
  const std::vector<int64_t>& sample_index() const { return sample_index_; }
  const std::vector<int64_t>& variant_index() const { return variant_index_; }
  bool all_samples_kept() const { return n_samples() == all_->n_samples(); }

  const std::string& name() const override { return all_->name(); }
  int64_t n_samples() const override { return static_cast<int64_t>(sample_index_.size()); }
  int64_t n_variants() const override { return static_cast<int64_t>(variant_index_.size()); }
  const sample_record& sample(int64_t i) const override { return all_->sample(sample_index_[i]); }
  const variant_record& variant(int64_t j) const override { return all_->variant(variant_index_[j]); }
  /// Kept variants [first, first + count) over the kept samples.
  packed_genotypes read_block(int64_t first, int64_t count) const override;
  /// The underlying source's view when every sample is kept and the block's variants are
  /// consecutive there (a mapped .bed, a VCF in memory: no copy); else data == nullptr.
  variant_major_view mapped_block(int64_t first, int64_t count) const override;

 private:
  std::unique_ptr<genotype_source> all_;
  std::vector<int64_t> sample_index_, variant_index_;
};

/// `source` itself behind an owning pointer, for a selection of a source the caller keeps (and
/// keeps alive while the selection lives): e.g. the variants of one chromosome.
std::unique_ptr<genotype_source> borrow(const genotype_source& source);

}  // namespace pmx
