// AVX-512 VPOPCNTQ tiles: 8 words (256 2-bit calls) per instruction; 16 accumulators for a 4x4
// tile plus 4 + 8 operand registers fit the 32 zmm registers.
#include <immintrin.h>

// GCC 12 warns "__Y is used uninitialized" inside avx512fintrin.h's _mm512_reduce_add_epi64
// (GCC bug 105593, a false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "ops/crossprod/popcount_tiles.hpp"

namespace pmx::kernels::cpu {
namespace {

__attribute__((target("avx512f,avx512vpopcntdq"))) void tile1(const uint64_t* const* x, const uint64_t* const* y,
                                                              int64_t words, int64_t* acc) {
  __m512i s[16];
  for (auto& v : s) v = _mm512_setzero_si512();
  for (int64_t w = 0; w < words; w += 8) {
    __m512i xa[4], yb[4];
    for (int a = 0; a < 4; ++a) xa[a] = _mm512_loadu_si512(x[a] + w);
    for (int b = 0; b < 4; ++b) yb[b] = _mm512_loadu_si512(y[b] + w);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        s[a * 4 + b] = _mm512_add_epi64(s[a * 4 + b], _mm512_popcnt_epi64(_mm512_and_si512(xa[a], yb[b])));
  }
  for (int i = 0; i < 16; ++i) acc[i] += _mm512_reduce_add_epi64(s[i]);
}

__attribute__((target("avx512f,avx512vpopcntdq"))) void tile2(const uint64_t* const* x, const uint64_t* const* y,
                                                              const uint64_t* const* z, int64_t words,
                                                              int64_t* acc) {
  __m512i s[16];
  for (auto& v : s) v = _mm512_setzero_si512();
  for (int64_t w = 0; w < words; w += 8) {
    __m512i xa[4], yb[4], zb[4];
    for (int a = 0; a < 4; ++a) xa[a] = _mm512_loadu_si512(x[a] + w);
    for (int b = 0; b < 4; ++b) yb[b] = _mm512_loadu_si512(y[b] + w), zb[b] = _mm512_loadu_si512(z[b] + w);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        const __m512i p = _mm512_add_epi64(_mm512_popcnt_epi64(_mm512_and_si512(xa[a], yb[b])),
                                           _mm512_popcnt_epi64(_mm512_and_si512(xa[a], zb[b])));
        s[a * 4 + b] = _mm512_add_epi64(s[a * 4 + b], p);
      }
  }
  for (int i = 0; i < 16; ++i) acc[i] += _mm512_reduce_add_epi64(s[i]);
}

}  // namespace

popcount_tiles popcount_tiles_avx512() { return {"avx512", tile1, tile2}; }

}  // namespace pmx::kernels::cpu
