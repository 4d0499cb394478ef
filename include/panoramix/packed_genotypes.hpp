// Owning 2-bit genotype matrices in both orientations.
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/genotype_view.hpp"

namespace pmx {

/// Variant-major 2-bit genotypes (the .bed orientation), rows of ceil(n/4) bytes.
class packed_genotypes {
 public:
  packed_genotypes() = default;
  packed_genotypes(int64_t n_samples, int64_t n_variants);

  int64_t n_samples() const { return n_samples_; }
  int64_t n_variants() const { return n_variants_; }
  int64_t row_bytes() const { return row_bytes_; }
  uint8_t* row(int64_t j) { return bytes_.data() + j * row_bytes_; }
  const uint8_t* row(int64_t j) const { return bytes_.data() + j * row_bytes_; }
  variant_major_view view() const { return {bytes_.data(), n_samples_, n_variants_, row_bytes_}; }

  /// Sets one call (tests and the simulator; bulk readers write rows directly).
  void set(int64_t sample, int64_t variant, uint8_t code);

 private:
  int64_t n_samples_ = 0, n_variants_ = 0, row_bytes_ = 0;
  std::vector<uint8_t> bytes_;
};

/// Sample-major 2-bit genotypes, rows of whole 64-bit words (32 calls each).
class sample_major_genotypes {
 public:
  sample_major_genotypes() = default;
  sample_major_genotypes(int64_t n_samples, int64_t n_variants);

  int64_t n_samples() const { return n_samples_; }
  int64_t n_variants() const { return n_variants_; }
  int64_t row_words() const { return row_words_; }
  uint64_t* row(int64_t i) { return words_.data() + i * row_words_; }
  sample_major_view view() const { return {words_.data(), n_samples_, n_variants_, row_words_}; }

 private:
  int64_t n_samples_ = 0, n_variants_ = 0, row_words_ = 0;
  std::vector<uint64_t> words_;
};

/// Blocked transpose variant-major -> sample-major (OpenMP over sample blocks when threads > 1).
sample_major_genotypes transpose_to_sample_major(const variant_major_view& g, int threads);

/// Copies the rows of `variants` of a variant-major matrix, keeping only the samples in
/// `samples` (indices in increasing order; empty = all). Used for --keep/--extract.
packed_genotypes subset(const variant_major_view& g, const std::vector<int64_t>& samples,
                        const std::vector<int64_t>& variants);

}  // namespace pmx
