// Missing-call helpers of the affine route (cpu_amx.hpp): the per-variant lists of missing samples,
// and sums of .bed rows decoded to v·y on the fly for the row part of the missing-call terms,
// C[i][j] −= Σ_{l∈miss(i)} v_l y_jl: 8 calls per AVX-512 vector, variants in pairs through a
// 16-entry table, four variants per pass over the output row.
#include <immintrin.h>

// GCC 12 warns "__Y may be used uninitialized" inside avx512fintrin.h (GCC bug 105593, a false
// positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <bit>
#include <cstring>

#include "ops/table_products/cpu_amx.hpp"

// The AMX build (the cpu backend takes this route only where amx_int8_usable()).
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,amx-tile,amx-int8")

namespace pmx::kernels::cpu {
namespace {

// 32 calls of a .bed row from byte 8·word on (bytes past the row read as 0).
inline uint64_t row_word(const uint8_t* row, int64_t word, int64_t valid_bytes) {
  uint64_t w = 0;
  const int64_t at = 8 * word;
  if (at + 8 <= valid_bytes) std::memcpy(&w, row + at, 8);
  else std::memcpy(&w, row + at, static_cast<size_t>(valid_bytes - at));
  return w;
}

// out[i - base] += Σ_q coef[q] · y_q(sample i) for i in [i0, i1), i0 a multiple of 8, for m <= 4
// .bed rows (y by code: A1 count, or A2 count where flips[q]; 0 for missing). Variants go in
// pairs through a 16-entry table of coef_a·y_a + coef_b·y_b indexed by code_a + 4·code_b (one
// two-source permute per 8 calls of two variants).
void add_decoded_rows(const uint8_t* const* rows, const double* coef,
                                                         const uint8_t* flips, int m, int64_t i0, int64_t i1,
                                                         int64_t valid_bytes, double* out, int64_t base) {
  constexpr double by_code[2][4] = {{2, 0, 1, 0}, {0, 0, 1, 2}};
  const int pairs = (m + 1) / 2;
  __m512d lo[2], hi[2];
  const uint8_t* r[4];
  for (int p = 0; p < pairs; ++p) {
    const int a = 2 * p, b = 2 * p + 1 < m ? 2 * p + 1 : -1;
    alignas(64) double e[16];
    for (int cb = 0; cb < 4; ++cb)
      for (int ca = 0; ca < 4; ++ca)
        e[ca + 4 * cb] = coef[a] * by_code[flips[a]][ca] + (b >= 0 ? coef[b] * by_code[flips[b]][cb] : 0.0);
    lo[p] = _mm512_load_pd(e);
    hi[p] = _mm512_load_pd(e + 8);
    r[a] = rows[a];
    r[a + 1] = b >= 0 ? rows[b] : rows[a];  // coefficient 0 in the table
  }
  const __m512i shifts = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), three = _mm512_set1_epi64(3);
  for (int64_t word = i0 / 32; 32 * word < i1; ++word) {
    __m512i wa[2], wb[2];
    for (int p = 0; p < pairs; ++p) {
      wa[p] = _mm512_set1_epi64(static_cast<int64_t>(row_word(r[2 * p], word, valid_bytes)));
      wb[p] = _mm512_set1_epi64(static_cast<int64_t>(row_word(r[2 * p + 1], word, valid_bytes)));
    }
    for (int64_t i = std::max(i0, 32 * word); i < std::min(i1, 32 * word + 32); i += 8) {
      const __m512i sh = _mm512_add_epi64(shifts, _mm512_set1_epi64(2 * (i % 32)));
      const __m512i sh_b = _mm512_and_si512(_mm512_add_epi64(sh, _mm512_set1_epi64(62)), _mm512_set1_epi64(63));
      __m512d s = _mm512_setzero_pd();
      for (int p = 0; p < pairs; ++p) {
        // index = code_a | code_b << 2: b rotated so its code lands in bits 2-3, bits 0-1 from a
        const __m512i idx = _mm512_ternarylogic_epi64(_mm512_srlv_epi64(wa[p], sh), _mm512_rorv_epi64(wb[p], sh_b), three, 0xe4);
        s = _mm512_add_pd(s, _mm512_permutex2var_pd(lo[p], idx, hi[p]));
      }
      double* o = out + (i - base);
      if (i + 8 <= i1) {
        _mm512_storeu_pd(o, _mm512_add_pd(_mm512_loadu_pd(o), s));
      } else {
        const auto mask = static_cast<__mmask8>((1u << (i1 - i)) - 1);
        _mm512_mask_storeu_pd(o, mask, _mm512_add_pd(_mm512_maskz_loadu_pd(mask, o), s));
      }
    }
  }
}

// out += Σ_{l in list} coef_l y_l over [i0, i1), four variants per pass.
template <class Coef>
void add_variant_list(const variant_major_view& g, const affine_plan& plan, const std::vector<int64_t>& list,
                      Coef coef, int64_t i0, int64_t i1, double* out, int64_t base) {
  const int64_t valid_bytes = (g.n_samples + 3) / 4;
  for (size_t q0 = 0; q0 < list.size(); q0 += 4) {
    const int m = static_cast<int>(std::min<size_t>(4, list.size() - q0));
    const uint8_t* rows[4];
    double c[4];
    uint8_t f[4];
    for (int q = 0; q < m; ++q) {
      const int64_t l = list[q0 + q];
      rows[q] = g.row(l), c[q] = coef(l), f[q] = plan.flip[l];
    }
    add_decoded_rows(rows, c, f, m, i0, i1, valid_bytes, out, base);
  }
}

}  // namespace

std::vector<std::vector<int64_t>> missing_samples(const variant_major_view& g, int threads) {
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(g.n_variants));
  const int64_t n = g.n_samples, bytes = (n + 3) / 4;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t l = 0; l < g.n_variants; ++l) {
    const uint8_t* row = g.row(l);
    for (int64_t o = 0; o < bytes; o += 8) {
      uint64_t w = 0;
      std::memcpy(&w, row + o, static_cast<size_t>(std::min<int64_t>(8, bytes - o)));
      // Code 01 (missing): low bit set, high bit clear.
      for (uint64_t m = w & ~(w >> 1) & 0x5555555555555555ull; m; m &= m - 1) {
        const int64_t i = 4 * o + std::countr_zero(m) / 2;
        if (i < n) out[l].push_back(i);
      }
    }
  }
  return out;
}

void subtract_missing_rows(const variant_major_view& g, const affine_plan& plan, const std::vector<int64_t>& variants,
                           int64_t count, double* out) {
  add_variant_list(g, plan, variants, [&](int64_t l) { return -plan.alpha[l] * plan.beta[l]; }, 0, count, out, 0);
}

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
