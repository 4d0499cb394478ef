// Counts by popcount on 64-bit words (32 calls): with lo/hi the two bits of each code,
//   hom A1 = !lo & !hi, missing = lo & !hi, het = !lo & hi, hom A2 = lo & hi,
// each restricted to the included samples' lanes (0b01 per included call in `lanes`).
#include <bit>
#include <cstring>
#include <vector>

#include "ops/allele_counts/kernels.hpp"

// Built for POPCNT (as every instruction-set build, a target region): baseline x86-64 would make
// std::popcount a libgcc call. The crossprod kernels need POPCNT too (x86-64-v2 and later).
#pragma GCC push_options
#pragma GCC target("popcnt")

namespace pmx::kernels::cpu {

void allele_counts(const executor& exec, const variant_major_view& g, std::span<const uint8_t> include,
                   std::span<variant_counts> out) {
  const int64_t n = g.n_samples;
  const int64_t full_words = n / 32, words = (n + 31) / 32;
  // Lane mask of included samples; the tail word also masks the padding calls.
  std::vector<uint64_t> lanes(static_cast<size_t>(words), 0);
  for (int64_t i = 0; i < n; ++i)
    if (include.empty() || include[i]) lanes[i >> 5] |= uint64_t{1} << (2 * (i & 31));
  constexpr uint64_t low = 0x5555555555555555ull;
#pragma omp parallel for schedule(static) num_threads(exec.threads()) if (g.n_variants > 64)
  for (int64_t j = 0; j < g.n_variants; ++j) {
    const uint8_t* row = g.row(j);
    int64_t a1 = 0, het = 0, a2 = 0, miss = 0;
    for (int64_t w = 0; w < words; ++w) {
      uint64_t x = 0;
      if (w < full_words) std::memcpy(&x, row + 8 * w, 8);
      else std::memcpy(&x, row + 8 * w, static_cast<size_t>((n - 32 * w + 3) / 4));
      const uint64_t lo = x & low, hi = (x >> 1) & low, m = lanes[w];
      a1 += std::popcount(~(lo | hi) & m);
      miss += std::popcount(lo & ~hi & m);
      het += std::popcount(~lo & hi & m);
      a2 += std::popcount(lo & hi & m);
    }
    out[j] = {a1, het, a2, miss};
  }
}

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
