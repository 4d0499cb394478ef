// AVX2 implementation of missing_sums (8 columns per vector; see missing_sums_simd.hpp).
#include <immintrin.h>

#include "ops/crossprod/missing_sums.hpp"

#pragma GCC push_options
#pragma GCC target("avx2")

namespace pmx::kernels::cpu {
namespace {

#define PMX_V __m256i
#define PMX_WIDE 8
#define PMX_LANES 8
inline __m256i pmx_load_u8(const uint8_t* p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
inline __m256i pmx_set1(int32_t x) { return _mm256_set1_epi32(x); }
inline __m256i pmx_add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
inline __m256i pmx_and(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
inline __m256i pmx_srli(__m256i a, int s) { return _mm256_srli_epi32(a, s); }
inline __m256i pmx_mullo(__m256i a, __m256i b) { return _mm256_mullo_epi32(a, b); }
inline __m256i pmx_loadu(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline void pmx_storeu(int32_t* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }

#include "ops/crossprod/missing_sums_simd.hpp"

}  // namespace

missing_sums_kernels missing_sums_avx2() { return {"avx2", pmx_sums}; }

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
