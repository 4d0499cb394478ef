// Two genotype sources over the same variants seen as one: the samples of `first`, then those of
// `second`. For statistics over a union of cohorts that must share one pass over the genotypes
// (KRR's training and test samples: one kernel, one set of frequencies).
#pragma once
#include <string>

#include "panoramix/genotype_source.hpp"

namespace pmx {

class concatenated_samples final : public genotype_source {
 public:
  /// Both sources must outlive this object. Throws input_error naming both sources and the first
  /// variant that differs (count, chromosome, position, ID or alleles, in order).
  concatenated_samples(const genotype_source& first, const genotype_source& second);

  const std::string& name() const override { return name_; }
  int64_t n_samples() const override { return first_.n_samples() + second_.n_samples(); }
  int64_t n_variants() const override { return first_.n_variants(); }
  const sample_record& sample(int64_t i) const override;
  const variant_record& variant(int64_t j) const override { return first_.variant(j); }
  packed_genotypes read_block(int64_t first, int64_t count) const override;
  /// Never a view: the two sources' rows are not adjacent in memory.
  variant_major_view mapped_block(int64_t, int64_t) const override { return {}; }

 private:
  const genotype_source& first_;
  const genotype_source& second_;
  std::string name_;
};

/// Throws input_error unless `b` has the variants of `a` in the same order with the same
/// chromosome, position, ID and alleles (A1 and A2 as they stand): the first difference is named.
void check_same_variants(const genotype_source& a, const genotype_source& b);

}  // namespace pmx
