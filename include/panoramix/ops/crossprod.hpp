// Op: exact integer crossproducts of a genotype matrix over samples (M·Mᵀ and its companion
// count of jointly called variants).
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx {

/// Which crossproducts to accumulate; null pointers are skipped.
///   S[i][j] += Σ_l x_il x_jl     (x = A1 dosage, 0 where missing)
///   N[i][j] += Σ_l c_il c_jl     (c = 1 where called: the per-pair count of jointly called variants)
/// Only the lower triangle (i >= j) of the row-major n×n arrays (leading dimension ld) is
/// updated; callers mirror it when they need the square. Accumulation across variant blocks
/// lets datasets larger than memory stream through.
struct crossprod_outputs {
  int32_t* S = nullptr;
  int32_t* N = nullptr;
  int64_t ld = 0;
};

void crossprod_samples(const executor& exec, const sample_major_view& g, const crossprod_outputs& out);

}  // namespace pmx
