// plink2's --thin-count and --thin-indiv-count draw: which `keep` of `n` items stay, drawn from
// SFMT-19937 exactly as plink2 draws them, so that a seed keeps plink2's variants and samples.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/sfmt19937.hpp"

namespace pmx {

/// plink2's generator for `--seed` values: one value seeds it (init_gen_rand), several are its
/// key (init_by_array).
detail::sfmt19937 plink2_random_generator(std::span<const uint32_t> seeds);

/// A mask over `n` items with exactly `keep` set (0 < keep < n). Positions come from 32-bit draws
/// by rejection (u < n·floor(2^32/n), position u / floor(2^32/n)); with keep < n/2 the kept ones
/// are drawn, otherwise all start kept and the n - keep dropped ones are drawn; a position already
/// drawn is drawn again.
std::vector<uint8_t> plink2_thinning_mask(int64_t n, int64_t keep, detail::sfmt19937& rng);

}  // namespace pmx
