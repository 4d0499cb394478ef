// Genotypes held in memory as a genotype_source: a variant-major 2-bit matrix (owned, or a view the
// caller keeps alive) with its sample and variant records. For genotypes that come from no file
// (the C API's bytes, simulations, tests) and for sources already compacted to their kept rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/genotype_source.hpp"

namespace pmx {

class memory_genotypes final : public genotype_source {
 public:
  /// Owns `genotypes` (samples × variants, every one kept). `samples` and `variants` hold one
  /// record per sample and variant, or are empty where nothing is known: every sample is then a
  /// founder ("0" "0" parents) of unknown sex, every variant unplaced (chromosome "0", ID ".").
  explicit memory_genotypes(packed_genotypes genotypes, std::vector<sample_record> samples = {},
                            std::vector<variant_record> variants = {}, std::string name = "memory");
  /// The same over `genotypes` without a copy: the caller keeps that memory alive and unchanged
  /// while this object is used.
  explicit memory_genotypes(const variant_major_view& genotypes, std::vector<sample_record> samples = {},
                            std::vector<variant_record> variants = {}, std::string name = "memory");
  memory_genotypes(const memory_genotypes&) = delete;  // the view would point into the other's copy
  memory_genotypes& operator=(const memory_genotypes&) = delete;
  memory_genotypes(memory_genotypes&&) = default;  // a moved vector keeps its storage: the view stays
  memory_genotypes& operator=(memory_genotypes&&) = default;

  /// Every sample × every variant.
  const variant_major_view& view() const { return view_; }

  const std::string& name() const override { return name_; }
  int64_t n_samples() const override { return view_.n_samples; }
  int64_t n_variants() const override { return view_.n_variants; }
  const sample_record& sample(int64_t i) const override;
  const variant_record& variant(int64_t j) const override;
  packed_genotypes read_block(int64_t first, int64_t count) const override;
  /// Always a view (the rows are in memory already).
  variant_major_view mapped_block(int64_t first, int64_t count) const override;

 private:
  packed_genotypes owned_;
  variant_major_view view_;
  std::vector<sample_record> samples_;
  std::vector<variant_record> variants_;
  sample_record unknown_sample_;
  variant_record unknown_variant_;
  std::string name_;
};

}  // namespace pmx
