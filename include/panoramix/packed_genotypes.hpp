// Owning 2-bit genotype matrices in both orientations.
#pragma once
#include <cstdint>
#include <span>
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

/// Owning row-major 2-bit matrix with word-aligned rows (see packed_rows_view).
class packed_rows {
 public:
  packed_rows() = default;
  packed_rows(int64_t n_rows, int64_t n_cols);

  int64_t n_rows() const { return n_rows_; }
  int64_t n_cols() const { return n_cols_; }
  int64_t row_words() const { return row_words_; }
  uint64_t* row(int64_t r) { return words_.data() + r * row_words_; }
  packed_rows_view view() const { return {words_.data(), n_rows_, n_cols_, row_words_}; }

 private:
  int64_t n_rows_ = 0, n_cols_ = 0, row_words_ = 0;
  std::vector<uint64_t> words_;
};

/// Blocked transpose variant-major -> sample-major (rows = samples), OpenMP over sample blocks.
packed_rows transpose_to_sample_major(const variant_major_view& g, int threads);
/// Sample-major rows of the given samples only (row r = sample samples[r]), gathered code by code:
/// for a few samples this reads a small part of each variant row where the transpose writes all n.
packed_rows sample_major_rows(const variant_major_view& g, std::span<const int64_t> samples, int threads);

/// The .bed rows (rows = variants) copied into word-aligned rows padded with the missing code.
packed_rows word_aligned_variant_rows(const variant_major_view& g, int threads);

/// Copies the rows of `variants` of a variant-major matrix, keeping only the samples in
/// `samples` (indices in increasing order; empty = all). Used for --keep/--extract.
packed_genotypes subset(const variant_major_view& g, const std::vector<int64_t>& samples,
                        const std::vector<int64_t>& variants);

}  // namespace pmx
