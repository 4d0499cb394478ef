// Non-owning views of 2-bit genotype matrices.
//
// Bit layout (PLINK .bed, kept as is): each call is 2 bits, 4 calls per byte, the first call in
// the low bits. Codes count copies of A1 (column 5 of .bim):
//   0b00 -> 2 (hom A1)   0b01 -> missing   0b10 -> 1 (het)   0b11 -> 0 (hom A2)
// Padding calls at the end of a row are 0b00 in the file; views ignore them.
#pragma once
#include <cstdint>

namespace pmx {

inline constexpr uint8_t code_hom_a1 = 0;
inline constexpr uint8_t code_missing = 1;
inline constexpr uint8_t code_het = 2;
inline constexpr uint8_t code_hom_a2 = 3;

/// A1 dosage of a code, or -1 for missing.
constexpr int dosage_of_code(uint8_t code) {
  constexpr int table[4] = {2, -1, 1, 0};
  return table[code & 3];
}

/// Variant-major (SNP-major) view, as in a .bed file: row j holds the n calls of variant j.
struct variant_major_view {
  const uint8_t* data = nullptr;
  int64_t n_samples = 0;
  int64_t n_variants = 0;
  int64_t row_bytes = 0;  ///< bytes between rows, >= ceil(n_samples / 4)

  const uint8_t* row(int64_t j) const { return data + j * row_bytes; }
  uint8_t code(int64_t sample, int64_t variant) const {
    return (row(variant)[sample >> 2] >> (2 * (sample & 3))) & 3;
  }
};

/// Row-major 2-bit matrix with word-aligned rows: 32 calls per 64-bit word, same codes and bit
/// order as .bed. Rows are samples (the sample-major, transposed form used by M·Mᵀ) or variants
/// (the .bed rows re-aligned, used by Mᵀ·M). Rows are padded to whole words with the missing
/// code, so padding adds nothing to any quantity over called calls.
struct packed_rows_view {
  const uint64_t* data = nullptr;
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  int64_t row_words = 0;  ///< words between rows, >= ceil(n_cols / 32)

  const uint64_t* row(int64_t r) const { return data + r * row_words; }
  uint8_t code(int64_t r, int64_t c) const { return (row(r)[c >> 5] >> (2 * (c & 31))) & 3; }
};

}  // namespace pmx
