// Scalar tiles: std::popcount on 64-bit words (the POPCNT instruction; baseline x86-64 would make
// it a libgcc call).
#include <bit>

#include "ops/crossprod/popcount_tiles.hpp"

#pragma GCC push_options
#pragma GCC target("popcnt")

namespace pmx::kernels::cpu {
namespace {

void scalar_tile1(const uint64_t* const* x, const uint64_t* const* y,
                  int64_t words, int64_t* acc) {
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      int64_t s = 0;
      for (int64_t w = 0; w < words; ++w) s += std::popcount(x[a][w] & y[b][w]);
      acc[a * 4 + b] += s;
    }
}

void scalar_tile2(const uint64_t* const* x, const uint64_t* const* y,
                  const uint64_t* const* z, int64_t words, int64_t* acc) {
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      int64_t s = 0;
      for (int64_t w = 0; w < words; ++w) s += std::popcount(x[a][w] & y[b][w]) + std::popcount(x[a][w] & z[b][w]);
      acc[a * 4 + b] += s;
    }
}

}  // namespace

popcount_tiles popcount_tiles_scalar() { return {"scalar", scalar_tile1, scalar_tile2}; }

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
