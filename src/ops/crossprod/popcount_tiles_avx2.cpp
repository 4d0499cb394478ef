// AVX2 tiles: no vector popcount, so bytes are counted with the nibble lookup (VPSHUFB) and
// summed into 64-bit lanes with VPSADBW (Mula's method).
#include <immintrin.h>

#include "ops/crossprod/popcount_tiles.hpp"

#pragma GCC push_options
#pragma GCC target("avx2")

namespace pmx::kernels::cpu {
namespace {

inline __m256i popcount_bytes(__m256i v) {
  const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1,
                                       2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  return _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(v, low)),
                         _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
}

inline int64_t hsum(__m256i v) {
  __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

// Byte counters hold at most 8 per term per word group; flush them to 64-bit lanes every
// 15 steps (15 * 2 terms * 8 < 256).
template <bool two>
void tile(const uint64_t* const* x, const uint64_t* const* y,
                                          const uint64_t* const* z, int64_t words, int64_t* acc) {
  __m256i total[16], bytes[16];
  for (int i = 0; i < 16; ++i) total[i] = bytes[i] = _mm256_setzero_si256();
  int steps = 0;
  for (int64_t w = 0; w < words; w += 4) {
    __m256i xa[4];
    for (int a = 0; a < 4; ++a) xa[a] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[a] + w));
    for (int b = 0; b < 4; ++b) {
      const __m256i yb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y[b] + w));
      __m256i zb = _mm256_setzero_si256();
      if constexpr (two) zb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(z[b] + w));
      for (int a = 0; a < 4; ++a) {
        __m256i c = popcount_bytes(_mm256_and_si256(xa[a], yb));
        if constexpr (two) c = _mm256_add_epi8(c, popcount_bytes(_mm256_and_si256(xa[a], zb)));
        bytes[a * 4 + b] = _mm256_add_epi8(bytes[a * 4 + b], c);
      }
    }
    if (++steps == 15 || w + 4 >= words) {
      for (int i = 0; i < 16; ++i) {
        total[i] = _mm256_add_epi64(total[i], _mm256_sad_epu8(bytes[i], _mm256_setzero_si256()));
        bytes[i] = _mm256_setzero_si256();
      }
      steps = 0;
    }
  }
  for (int i = 0; i < 16; ++i) acc[i] += hsum(total[i]);
}

void tile1(const uint64_t* const* x, const uint64_t* const* y, int64_t words, int64_t* acc) {
  tile<false>(x, y, nullptr, words, acc);
}
void tile2(const uint64_t* const* x, const uint64_t* const* y, const uint64_t* const* z, int64_t words,
           int64_t* acc) {
  tile<true>(x, y, z, words, acc);
}

}  // namespace

popcount_tiles popcount_tiles_avx2() { return {"avx2", tile1, tile2}; }

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
