// Missing-call terms of the affine route (cpu_amx.hpp), sparse in the missing calls:
//   C[a][b] += − Y[a][b] − Y[b][a] + Σ_{l∈miss(a)∩miss(b)} α_l²,   Y[j][i] = Σ_{l∈miss(j)} v_l y_il.
// Row pass: each sample j owns row j of C and adds −Y[j][i] for i <= j plus the jointly missing
// α² (its own rows, no races). Column pass: 8 samples at a time build Y[j][·] for i > j in a
// small buffer and add it down their 8 columns (one cache line per row of C). Y[j][·] is a sum of
// .bed rows decoded to v·y on the fly: 8 calls per AVX-512 vector (shift, mask, permute), four
// variants per pass over the output.
#include <immintrin.h>

// GCC 12 warns "__Y may be used uninitialized" inside avx512fintrin.h (GCC bug 105593, a false
// positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <bit>
#include <cstring>

#include "ops/table_products/cpu_amx.hpp"

namespace pmx::kernels::cpu {
namespace {

// The 2-bit codes of samples i..i+7 of a .bed row, one per 64-bit lane (bytes past the row read as 0).
__attribute__((target("avx512f"))) inline __m512i eight_codes(const uint8_t* row, int64_t i, int64_t valid_bytes) {
  const uint8_t* r = row + i / 4;
  uint64_t w = r[0];
  if (i / 4 + 1 < valid_bytes) w |= uint64_t{r[1]} << 8;
  const __m512i shifts = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  return _mm512_and_si512(_mm512_srlv_epi64(_mm512_set1_epi64(static_cast<int64_t>(w)), shifts), _mm512_set1_epi64(3));
}

// out[i - base] += Σ_q coef[q] · y_q(sample i) for i in [i0, i1), i0 a multiple of 8, for m <= 4
// .bed rows (y by code: A1 count, or A2 count where flips[q]; 0 for missing).
__attribute__((target("avx512f"))) void add_decoded_rows(const uint8_t* const* rows, const double* coef,
                                                         const uint8_t* flips, int m, int64_t i0, int64_t i1,
                                                         int64_t valid_bytes, double* out, int64_t base) {
  constexpr double by_code[2][4] = {{2, 0, 1, 0}, {0, 0, 1, 2}};
  __m512d tab[4];
  for (int q = 0; q < m; ++q) {
    const double* y = by_code[flips[q]];
    const double c = coef[q];
    tab[q] = _mm512_setr_pd(c * y[0], c * y[1], c * y[2], c * y[3], c * y[0], c * y[1], c * y[2], c * y[3]);
  }
  for (int64_t i = i0; i < i1; i += 8) {
    __m512d s = _mm512_setzero_pd();
    for (int q = 0; q < m; ++q) s = _mm512_add_pd(s, _mm512_permutexvar_pd(eight_codes(rows[q], i, valid_bytes), tab[q]));
    double* o = out + (i - base);
    if (i + 8 <= i1) {
      _mm512_storeu_pd(o, _mm512_add_pd(_mm512_loadu_pd(o), s));
    } else {
      const auto mask = static_cast<__mmask8>((1u << (i1 - i)) - 1);
      _mm512_mask_storeu_pd(o, mask, _mm512_add_pd(_mm512_maskz_loadu_pd(mask, o), s));
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

void amx_missing_terms(const executor& exec, const variant_major_view& g, const affine_plan& plan,
                       const std::vector<std::vector<int64_t>>& miss, double* C, int64_t ld) {
  const int64_t n = g.n_samples;
  std::vector<std::vector<int64_t>> by_sample(static_cast<size_t>(n));
  for (int64_t l = 0; l < g.n_variants; ++l)
    if (plan.alpha[l] != 0)  // α = 0: v = 0 and α² = 0, nothing to add
      for (int64_t j : miss[l]) by_sample[j].push_back(l);
  auto minus_v = [&](int64_t l) { return -plan.alpha[l] * plan.beta[l]; };

  // Row pass: C[j][i] −= Y[j][i] for i <= j (Y[j][j] = 0), then the jointly missing α².
#pragma omp parallel for schedule(dynamic, 8) num_threads(exec.threads())
  for (int64_t j = 0; j < n; ++j) {
    double* row = C + j * ld;
    add_variant_list(g, plan, by_sample[j], minus_v, 0, j + 1, row, 0);
    for (int64_t l : by_sample[j]) {
      const double a2 = plan.alpha[l] * plan.alpha[l];
      for (int64_t i : miss[l]) {
        if (i > j) break;
        row[i] += a2;
      }
    }
  }
  // Column pass: C[i][j] −= Y[j][i] for i > j, 8 columns at a time.
#pragma omp parallel num_threads(exec.threads())
  {
    std::vector<double> y(static_cast<size_t>(8 * n));
#pragma omp for schedule(dynamic, 4)
    for (int64_t j0 = 0; j0 < n; j0 += 8) {
      const int64_t width = std::min<int64_t>(8, n - j0), len = n - j0;
      bool any = false;
      for (int64_t c = 0; c < width; ++c) {
        double* yc = y.data() + c * len;
        std::fill_n(yc, len, 0.0);
        add_variant_list(g, plan, by_sample[j0 + c], minus_v, j0, n, yc, j0);
        any = any || !by_sample[j0 + c].empty();
      }
      if (!any) continue;
      for (int64_t i = j0 + 1; i < n; ++i) {
        double* ci = C + i * ld + j0;
        for (int64_t c = 0; c < width && j0 + c < i; ++c) ci[c] += y[c * len + (i - j0)];
      }
    }
  }
}

}  // namespace pmx::kernels::cpu
