// plink2's random thinning (see random_thinning.hpp), as plink2's source describes its draw
// (GeneratePerm1Interleaved of plink2_random.cc); the kept lists equal plink2's for every seed and
// count the tests try (tests/cli/test_make_bed.cpp).
#include "stats/filter/random_thinning.hpp"

#include <stdexcept>

namespace pmx {

detail::sfmt19937 plink2_random_generator(std::span<const uint32_t> seeds) {
  if (seeds.size() == 1) return detail::sfmt19937(seeds[0]);
  return detail::sfmt19937(seeds);
}

std::vector<uint8_t> plink2_thinning_mask(int64_t n, int64_t keep, detail::sfmt19937& rng) {
  if (!(keep > 0 && keep < n && n <= int64_t{UINT32_MAX}))
    throw std::invalid_argument("plink2_thinning_mask: needs 0 < keep < n < 2^32");
  const auto count = static_cast<uint64_t>(n);
  const uint64_t quotient = (uint64_t{1} << 32) / count, last_accepted = count * quotient - 1;
  const bool draw_kept = 2 * keep < n;
  std::vector<uint8_t> kept(static_cast<size_t>(n), draw_kept ? 0 : 1);
  const uint8_t undrawn = draw_kept ? 0 : 1;
  for (int64_t k = 0, draws = draw_kept ? keep : n - keep; k < draws; ++k) {
    uint64_t at;
    do {
      uint32_t u;
      do u = rng.next_u32(); while (u > last_accepted);
      at = u / quotient;
    } while (kept[at] != undrawn);
    kept[at] ^= 1;
  }
  return kept;
}

}  // namespace pmx
