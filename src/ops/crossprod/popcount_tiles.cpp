#include "ops/crossprod/popcount_tiles.hpp"

#include "core/cpu_dispatch.hpp"

#include <bit>

#include "panoramix/error.hpp"

namespace pmx::kernels::cpu {
namespace {

__attribute__((target("popcnt"))) void scalar_tile1(const uint64_t* const* x, const uint64_t* const* y,
                                                    int64_t words, int64_t* acc) {
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      int64_t s = 0;
      for (int64_t w = 0; w < words; ++w) s += std::popcount(x[a][w] & y[b][w]);
      acc[a * 4 + b] += s;
    }
}

__attribute__((target("popcnt"))) void scalar_tile2(const uint64_t* const* x, const uint64_t* const* y,
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

std::vector<popcount_tiles> supported_popcount_tiles() {
  std::vector<popcount_tiles> out;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    out.push_back(popcount_tiles_avx512());
  if (__builtin_cpu_supports("avx2")) out.push_back(popcount_tiles_avx2());
  if (__builtin_cpu_supports("popcnt")) out.push_back(popcount_tiles_scalar());
  return out;
}

const popcount_tiles& active_popcount_tiles() {
  return choose_cpu_isa<popcount_tiles>(supported_popcount_tiles);
}

void set_popcount_isa(const std::string& isa) { cpu_isa_override() = isa; }

}  // namespace pmx::kernels::cpu
