// 4x4 register tiles of AND+POPCOUNT dot products, one implementation per instruction set,
// chosen at run time (the library is built for baseline x86-64 and must run anywhere).
//
//   tile1: acc[a*4+b] += Σ_w popcount(x[a][w] & y[b][w])
//   tile2: acc[a*4+b] += Σ_w popcount(x[a][w] & y[b][w]) + popcount(x[a][w] & z[b][w])
// `words` is a multiple of 8 (plane rows are zero-padded), so vector loops need no tails.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx::kernels::cpu {

using tile1_fn = void (*)(const uint64_t* const* x, const uint64_t* const* y, int64_t words, int64_t* acc);
using tile2_fn = void (*)(const uint64_t* const* x, const uint64_t* const* y, const uint64_t* const* z,
                          int64_t words, int64_t* acc);

struct popcount_tiles {
  const char* isa;
  tile1_fn tile1;
  tile2_fn tile2;
};

/// The implementations this CPU can run, best first ("avx512", "avx2", "scalar").
std::vector<popcount_tiles> supported_popcount_tiles();
/// The one ops of `exec` use: the best supported, or the one its tuning().cpu_isa names.
const popcount_tiles& active_popcount_tiles(const executor& exec);

// Per-ISA entry points (defined in popcount_tiles_<isa>.cpp, compiled with that ISA's flags).
popcount_tiles popcount_tiles_scalar();
popcount_tiles popcount_tiles_avx2();
popcount_tiles popcount_tiles_avx512();

}  // namespace pmx::kernels::cpu
