// Op: per-variant genotype class counts over a subset of samples.
#pragma once
#include <cstdint>
#include <span>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx {

/// Number of samples in each genotype class for one variant.
struct variant_counts {
  int64_t hom_a1 = 0, het = 0, hom_a2 = 0, missing = 0;
  int64_t called() const { return hom_a1 + het + hom_a2; }
  int64_t a1_copies() const { return 2 * hom_a1 + het; }
  friend bool operator==(const variant_counts&, const variant_counts&) = default;
};

/// out[j] = counts of variant j over the samples i with include[i] != 0 (all samples when
/// `include` is empty). `out` has g.n_variants entries. g, include and out are host memory; cuda
/// uploads the 2-bit rows in pieces and counts on the device (popcounts, as cpu), the same
/// integers on every backend.
void allele_counts(const executor& exec, const variant_major_view& g,
                   std::span<const uint8_t> include, std::span<variant_counts> out);

}  // namespace pmx
