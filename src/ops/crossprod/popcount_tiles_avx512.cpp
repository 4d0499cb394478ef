// AVX-512 VPOPCNTQ tiles: 8 words (256 2-bit calls) per instruction; 16 accumulators for a 4x4
// tile plus 4 + 8 operand registers fit the 32 zmm registers.
#include <immintrin.h>

// GCC 12 warns "__Y is used uninitialized" inside avx512fintrin.h's _mm512_reduce_add_epi64
// (GCC bug 105593, a false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "ops/crossprod/popcount_tiles.hpp"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vpopcntdq")

namespace pmx::kernels::cpu {
namespace {

// acc[i] += Σ lanes of s[i], i < 16, by a transpose-add tree (14 adds and 28 shuffles for all 16
// instead of 16 separate horizontal reductions): pairs of vectors fold 128-bit halves, then
// 256-bit halves, leaving the 16 sums in order in two vectors.
inline void reduce16(const __m512i* s, int64_t* acc) {
  __m512i t[8], u[4];
  for (int p = 0; p < 8; ++p)
    t[p] = _mm512_add_epi64(_mm512_unpacklo_epi64(s[2 * p], s[2 * p + 1]), _mm512_unpackhi_epi64(s[2 * p], s[2 * p + 1]));
  // t[p], 128-bit lane L: (s[2p] lanes 2L+{0,1}, s[2p+1] lanes 2L+{0,1}), each pair summed.
  for (int q = 0; q < 4; ++q)
    u[q] = _mm512_add_epi64(_mm512_shuffle_i64x2(t[2 * q], t[2 * q + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                            _mm512_shuffle_i64x2(t[2 * q], t[2 * q + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  // u[q], lanes: (s[4q], s[4q+1]) over lanes 0-3 and 4-7, then (s[4q+2], s[4q+3]) likewise.
  for (int r = 0; r < 2; ++r) {
    const __m512i v = _mm512_add_epi64(_mm512_shuffle_i64x2(u[2 * r], u[2 * r + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                                       _mm512_shuffle_i64x2(u[2 * r], u[2 * r + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    _mm512_storeu_si512(acc + 8 * r, _mm512_add_epi64(_mm512_loadu_si512(acc + 8 * r), v));
  }
}

void tile1(const uint64_t* const* x, const uint64_t* const* y,
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
  reduce16(s, acc);
}

void tile2(const uint64_t* const* x, const uint64_t* const* y,
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
  reduce16(s, acc);
}

}  // namespace

popcount_tiles popcount_tiles_avx512() { return {"avx512", tile1, tile2}; }

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
