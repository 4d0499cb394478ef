// The part every decoding reader shares (VCF/BCF, BGEN: formats whose calls are not 2-bit rows on
// disk): the file is decoded once into variant-major 2-bit rows in memory, with its records, and
// served from there. A reader derives from it and fills the protected members while reading.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/genotype_source.hpp"

namespace pmx {

class decoded_genotypes : public genotype_source {
 public:
  const std::string& name() const override { return path_; }
  int64_t n_samples() const override { return static_cast<int64_t>(samples_.size()); }
  int64_t n_variants() const override { return static_cast<int64_t>(variants_.size()); }
  const sample_record& sample(int64_t i) const override { return samples_[static_cast<size_t>(i)]; }
  const variant_record& variant(int64_t j) const override { return variants_[static_cast<size_t>(j)]; }
  packed_genotypes read_block(int64_t first, int64_t count) const override;
  /// Always a view: the rows are in memory.
  variant_major_view mapped_block(int64_t first, int64_t count) const override;

  const std::vector<sample_record>& samples() const { return samples_; }
  const std::vector<variant_record>& variants() const { return variants_; }
  /// What was read ("BCF, bgzip", "BGEN layout 2, zstd", ...), for the log.
  const std::string& format() const { return format_; }

 protected:
  explicit decoded_genotypes(std::string path) : path_(std::move(path)) {}

  std::string path_, format_;
  std::vector<sample_record> samples_;
  std::vector<variant_record> variants_;
  std::vector<uint8_t> rows_;  // n_variants rows of row_bytes_, padding calls zero (as in .bed)
  int64_t row_bytes_ = 0;
};

}  // namespace pmx
