#include "ops/crossprod/popcount_tiles.hpp"

#include "core/cpu_dispatch.hpp"

#include "panoramix/error.hpp"

namespace pmx::kernels::cpu {

std::vector<popcount_tiles> supported_popcount_tiles() {
  std::vector<popcount_tiles> out;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    out.push_back(popcount_tiles_avx512());
  if (__builtin_cpu_supports("avx2")) out.push_back(popcount_tiles_avx2());
  if (__builtin_cpu_supports("popcnt")) out.push_back(popcount_tiles_scalar());
  return out;
}

const popcount_tiles& active_popcount_tiles(const executor& exec) {
  return choose_cpu_isa<popcount_tiles>(exec.tuning().cpu_isa, supported_popcount_tiles);
}

}  // namespace pmx::kernels::cpu
