#include "ops/crossprod/missing_sums.hpp"

#include <algorithm>

#include "core/cpu_dispatch.hpp"
#include "ops/crossprod/kernels.hpp"

namespace pmx::kernels::cpu {
namespace {

void scalar_sums(const uint8_t* table, int64_t ld, const int32_t* idx, int64_t count, int64_t len, int32_t* sx,
                 int32_t* sxx, int32_t* sm) {
  constexpr int64_t step = 256;
  uint32_t acc[step];
  for (int64_t t0 = 0; t0 < len; t0 += step) {
    const int64_t nt = std::min(step, len - t0);
    std::fill(sx + t0, sx + t0 + nt, 0);
    std::fill(sxx + t0, sxx + t0 + nt, 0);
    if (sm) std::fill(sm + t0, sm + t0 + nt, 0);
    for (int64_t k0 = 0; k0 < count; k0 += missing_rows_per_pass) {
      std::fill(acc, acc + nt, 0u);
      for (int64_t k = k0; k < std::min(count, k0 + missing_rows_per_pass); ++k) {
        const uint8_t* r = table + idx[k] * ld + t0;
        for (int64_t t = 0; t < nt; ++t) acc[t] += (r[t] * missing_spread) & missing_fields;
      }
      for (int64_t t = 0; t < nt; ++t) {
        const auto lo = static_cast<int32_t>(acc[t] & 1023), hi = static_cast<int32_t>((acc[t] >> 10) & 1023);
        sx[t0 + t] += lo + hi;
        sxx[t0 + t] += lo + 3 * hi;
        if (sm) sm[t0 + t] += static_cast<int32_t>(acc[t] >> 20);
      }
    }
  }
}

}  // namespace

missing_sums_fn missing_sums_kernel(const executor& exec) { return active_missing_sums(exec).sums; }

missing_sums_kernels missing_sums_scalar() { return {"scalar", scalar_sums}; }

std::vector<missing_sums_kernels> supported_missing_sums() {
  std::vector<missing_sums_kernels> out;
  __builtin_cpu_init();
  // Same names and conditions as the popcount tiles, so one PMX_CPU_ISA picks both families.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
    out.push_back(missing_sums_avx512());
  if (__builtin_cpu_supports("avx2")) out.push_back(missing_sums_avx2());
  if (__builtin_cpu_supports("popcnt")) out.push_back(missing_sums_scalar());
  return out;
}

const missing_sums_kernels& active_missing_sums(const executor& exec) {
  return choose_cpu_isa<missing_sums_kernels>(exec.tuning().cpu_isa, supported_missing_sums);
}

}  // namespace pmx::kernels::cpu
