// AVX-512F implementation of missing_sums (16 columns per vector; see missing_sums_simd.hpp).
#include <immintrin.h>

// GCC 12 warns "__Y may be used uninitialized" inside avx512fintrin.h (GCC bug 105593, a false
// positive), as in popcount_tiles_avx512.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "ops/crossprod/missing_sums.hpp"

#pragma GCC push_options
#pragma GCC target("avx512f")

namespace pmx::kernels::cpu {
namespace {

#define PMX_V __m512i
#define PMX_WIDE 8
#define PMX_LANES 16
inline __m512i pmx_load_u8(const uint8_t* p) {
  return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline __m512i pmx_set1(int32_t x) { return _mm512_set1_epi32(x); }
inline __m512i pmx_add(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
inline __m512i pmx_and(__m512i a, __m512i b) { return _mm512_and_si512(a, b); }
inline __m512i pmx_srli(__m512i a, unsigned s) { return _mm512_srli_epi32(a, s); }
inline __m512i pmx_mullo(__m512i a, __m512i b) { return _mm512_mullo_epi32(a, b); }
inline __m512i pmx_loadu(const int32_t* p) { return _mm512_loadu_si512(p); }
inline void pmx_storeu(int32_t* p, __m512i v) { _mm512_storeu_si512(p, v); }

#include "ops/crossprod/missing_sums_simd.hpp"

}  // namespace

missing_sums_kernels missing_sums_avx512() { return {"avx512", pmx_sums}; }

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
