// Blocked transpose of 2-bit genotypes, variant-major -> sample-major.
//
// Four bytes from four consecutive variants at the same sample byte form a 4x4 matrix of 2-bit
// codes (byte t = variant t, 2-bit lane s = sample s). Two masked swap rounds transpose it in a
// register, so byte s then holds sample s's codes for the four variants. Eight such groups make
// one 64-bit word (32 variants) per sample. Padding variants past the end are written as the
// missing code, so they add nothing to any called-call quantity.
#include <algorithm>
#include <cstring>

#include "panoramix/packed_genotypes.hpp"

namespace pmx {
namespace {

inline uint32_t transpose_4x4_2bit(uint32_t x) {
  uint32_t t = ((x >> 12) ^ x) & 0x0000F0F0u;  // swap the off-diagonal 2x2 blocks
  x ^= t ^ (t << 12);
  t = ((x >> 6) ^ x) & 0x00CC00CCu;  // swap inside each 2x2 block
  x ^= t ^ (t << 6);
  return x;
}

}  // namespace

packed_rows transpose_to_sample_major(const variant_major_view& g, int threads) {
  packed_rows out(g.n_samples, g.n_variants);
  const int64_t n = g.n_samples, m = g.n_variants;
  const int64_t sample_bytes = (n + 3) / 4;
  const int64_t words = out.row_words();
  constexpr int64_t byte_block = 64;  // 256 samples per task: 4 x 64 output rows stay hot
  const int64_t n_blocks = (sample_bytes + byte_block - 1) / byte_block;
  uint64_t* dst = out.row(0);
  const int64_t dst_stride = out.row_words();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
  for (int64_t blk = 0; blk < n_blocks; ++blk) {
    const int64_t b0 = blk * byte_block, b1 = std::min(sample_bytes, b0 + byte_block);
    for (int64_t w = 0; w < words; ++w) {
      const uint8_t* rows[32];
      for (int t = 0; t < 32; ++t) {
        const int64_t j = w * 32 + t;
        rows[t] = j < m ? g.row(j) : nullptr;
      }
      for (int64_t b = b0; b < b1; ++b) {
        uint64_t acc[4] = {0, 0, 0, 0};
        for (int grp = 0; grp < 8; ++grp) {
          uint32_t x = 0;
          for (int t = 0; t < 4; ++t) {
            const uint8_t* r = rows[grp * 4 + t];
            const uint32_t byte = r ? r[b] : 0x55u;  // past the last variant: missing
            x |= byte << (8 * t);
          }
          x = transpose_4x4_2bit(x);
          for (int s = 0; s < 4; ++s) acc[s] |= static_cast<uint64_t>((x >> (8 * s)) & 0xFFu) << (8 * grp);
        }
        for (int s = 0; s < 4; ++s) {
          const int64_t i = 4 * b + s;
          if (i < n) dst[i * dst_stride + w] = acc[s];
        }
      }
    }
  }
  return out;
}

packed_rows sample_major_rows(const variant_major_view& g, std::span<const int64_t> samples, int threads) {
  const auto rows = static_cast<int64_t>(samples.size());
  packed_rows out(rows, g.n_variants);
  const int64_t words = out.row_words(), m = g.n_variants;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (threads > 1)
  for (int64_t w = 0; w < words; ++w) {  // 32 variants: their rows stay in cache for every sample
    const int64_t j0 = w * 32, count = std::min<int64_t>(32, m - j0);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = samples[r], byte = i >> 2;
      const int shift = 2 * static_cast<int>(i & 3);
      uint64_t acc = 0;
      for (int64_t t = 0; t < count; ++t) acc |= static_cast<uint64_t>((g.row(j0 + t)[byte] >> shift) & 3u) << (2 * t);
      for (int64_t t = count; t < 32; ++t) acc |= uint64_t{1} << (2 * t);  // past the last variant: missing
      out.row(r)[w] = acc;
    }
  }
  return out;
}

}  // namespace pmx
