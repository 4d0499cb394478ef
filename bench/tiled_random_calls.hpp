// Random 2-bit calls for the drivers that run over ranks: a 64 MiB random pattern (codes 0, 2, 3,
// and with `missing_one_in` > 0 one byte in that many holding a missing call) tiled over the rows
// at shifting offsets — making 10^11 random calls would take longer than the products measured.
// Row j of the result starts at pattern offset (first_row + j)·7919·64, so a rank's rows are
// those rows of the whole matrix the same seed would make.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace pmx::bench {

inline std::unique_ptr<uint8_t[]> tiled_random_calls(int64_t rows, int64_t row_bytes, int64_t first_row,
                                                     uint64_t seed, int missing_one_in) {
  const int64_t pattern_bytes = int64_t{64} << 20;
  std::vector<uint8_t> pattern(static_cast<size_t>(pattern_bytes));
  std::mt19937_64 rng(seed);
  const uint8_t codes[3] = {0, 2, 3};
  for (auto& b : pattern) {
    const uint64_t r = rng();
    b = uint8_t(codes[r % 3] | codes[(r >> 8) % 3] << 2 | codes[(r >> 16) % 3] << 4 | codes[(r >> 24) % 3] << 6);
    if (missing_one_in > 0 && (r >> 32) % static_cast<uint64_t>(missing_one_in) == 0) b = uint8_t((b & ~3u) | 1u);
  }
  std::unique_ptr<uint8_t[]> calls(new uint8_t[static_cast<size_t>(row_bytes * std::max<int64_t>(rows, 1))]);
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < rows; ++j) {
    int64_t at = ((first_row + j) * 7919 * 64) % pattern_bytes, done = 0;
    while (done < row_bytes) {
      const int64_t c = std::min(row_bytes - done, pattern_bytes - at);
      std::memcpy(calls.get() + j * row_bytes + done, pattern.data() + at, static_cast<size_t>(c));
      done += c, at = 0;
    }
  }
  return calls;
}

}  // namespace pmx::bench
