// One BGEN variant's genotype probabilities (layout 2, after decompression) to a 2-bit .bed row,
// with plink2's hard-call rule. Pure and thread-safe: the reader decodes variants in parallel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace pmx::io {

/// plink2's dosage unit: a dosage d in [0, 2] is held in 1/16384 (rounded as bgen_probabilities.cpp
/// says).
inline constexpr uint32_t bgen_dosage_one = 16384;

/// plink2's integer hard-call threshold for a distance `threshold` in [0, 0.5) (0.1 -> 1638).
uint32_t bgen_hard_call_units(double threshold);

struct bgen_row_counts {
  int64_t missing = 0;    ///< flagged missing, or ploidy 0
  int64_t uncertain = 0;  ///< dosage too far from 0, 1 and 2: made missing
};

/// Decodes `size` bytes of uncompressed genotype data for `n_samples` samples and `n_alleles`
/// alleles into `row` (ceil(n/4) bytes, zeroed by the caller; allele 2 is the counted A1). Returns
/// "" or what is wrong in words ("ploidy 3 (sample 12): ...", "the block is 10 bytes short"). A
/// call is made when plink2's integer dosage is within `hard_call_units` / 16384 of 0, 1 or 2.
std::string decode_bgen_probabilities(const uint8_t* data, size_t size, int64_t n_samples, int n_alleles,
                                      uint32_t hard_call_units, uint8_t* row, bgen_row_counts& counts);

}  // namespace pmx::io
