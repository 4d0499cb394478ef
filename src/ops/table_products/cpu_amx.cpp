// AMX-INT8 product of the affine route (cpu_amx.hpp): P_ij = Σ_l w_l y_il y_jl as int8 tile
// products, fused with the rank-one and missing-call terms so C is touched once per call.
//
// Layout. Y (all samples): tiles of 16 samples × 64 positions, row-major (Y[c][b] = y of sample
// 16g + c at position 64s + b), stored [sample/16][pos/64], 1 KiB each, built once per call; it is
// the A operand (u8). Each thread owns a 32-row block I of C; for it, the transposes of its two
// tile rows in the VNNI order TDPBUUD reads (B[r][4c + t] = y(c, 4r + t)) times the digits form the
// B operand (u8, y·d ≤ 254). For every 32-column block J <= I, 2×2 tiles (4 int32 accumulators,
// 2 A and 2 B tiles: all 8 tile registers, one 1 KiB load per TDPBUUD) give the digit products
// C^T[j][i], scaled into a j-major double block (32 doubles per j) where the missing-call column
// terms also land as contiguous updates; the block is added to C with the rank-one terms, and
// the row terms follow on the rows of C just written.
#include <immintrin.h>

// GCC 12 warns "__Y may be used uninitialized" inside avx512fintrin.h (GCC bug 105593, a false
// positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "ops/table_products/cpu_amx.hpp"

// The AMX build (the cpu backend takes this route only where amx_int8_usable()).
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,amx-tile,amx-int8")
#include "core/amx_tiles.hpp"

namespace pmx::kernels::cpu {
namespace {

constexpr int64_t panel_steps = 32;  // 64-position steps per digit product: ≤ 2048 variants

using detail::amx_configure_full_tiles;
using detail::amx_release_tiles;
inline void memory_barrier() { detail::amx_memory_barrier(); }

// buf[32][32] (int32, [j][i]) = Σ over `steps` 64-position steps of the Y tiles of a column
// pair (a0, a1: consecutive steps 1 KiB apart) times the sliced tiles of the row pair (b: 2 KiB
// per step, tile 0 then tile 1).
void tile_product(const uint8_t* a0, const uint8_t* a1,
                                                               const uint8_t* b, int64_t steps, int32_t* buf) {
  memory_barrier();
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t s = 0; s < steps; ++s) {
    _tile_loadd(4, a0 + s * 1024, 64);
    _tile_loadd(6, b + s * 2048, 64);
    _tile_dpbuud(0, 4, 6);
    _tile_loadd(7, b + s * 2048 + 1024, 64);
    _tile_dpbuud(1, 4, 7);
    _tile_loadd(5, a1 + s * 1024, 64);
    _tile_dpbuud(2, 5, 6);
    _tile_dpbuud(3, 5, 7);
  }
  _tile_stored(0, buf, 128);
  _tile_stored(1, buf + 16, 128);
  _tile_stored(2, buf + 512, 128);
  _tile_stored(3, buf + 528, 128);
  memory_barrier();
}

// acc[r * stride + c] += scale · buf[r][c] for a 32 × 32 block.
void add_scaled(const int32_t* buf, double scale, double* acc, int64_t stride) {
  const __m512d sc = _mm512_set1_pd(scale);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; c += 8) {
      const __m512d x = _mm512_cvtepi32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(buf + r * 32 + c)));
      _mm512_storeu_pd(acc + r * stride + c, _mm512_fmadd_pd(x, sc, _mm512_loadu_pd(acc + r * stride + c)));
    }
}

// dst (VNNI order, one 1 KiB tile per slice, slice_stride apart) = the Y tile src transposed as
// 16 × 16 u32 words (dst[r][4c + t] = src[c][4r + t]) times the digit of each position: row r of
// dst holds positions 4r..4r+3, so its digits are d[4r..4r+3] repeated (y ≤ 2, d ≤ 127: y·d fits u8).
void sliced_tile(const uint8_t* src, const uint8_t* d, int slices,
                                                              int64_t slice_stride, int64_t digit_stride, uint8_t* dst) {
  alignas(64) uint32_t t[256];
  const auto* s32 = reinterpret_cast<const uint32_t*>(src);
  for (int c = 0; c < 16; ++c)
    for (int r = 0; r < 16; ++r) t[r * 16 + c] = s32[c * 16 + r];
  const __m512i one = _mm512_set1_epi8(1), two = _mm512_set1_epi8(2);
  for (int s = 0; s < slices; ++s) {
    const uint8_t* ds = d + s * digit_stride;
    for (int r = 0; r < 16; ++r) {
      uint32_t d4;
      std::memcpy(&d4, ds + 4 * r, 4);
      const __m512i dv = _mm512_set1_epi32(static_cast<int>(d4)), d2 = _mm512_add_epi8(dv, dv);
      const __m512i y = _mm512_load_si512(t + r * 16);
      __m512i v = _mm512_maskz_mov_epi8(_mm512_test_epi8_mask(y, one), dv);
      v = _mm512_mask_mov_epi8(v, _mm512_test_epi8_mask(y, two), d2);
      _mm512_storeu_si512(dst + s * slice_stride + r * 64, v);
    }
  }
}

// acc[j][0..31] −= v · yt[0..31]  (one column term: 32 y bytes of the row block, as doubles).
inline void sub_scaled_bytes(const uint8_t* yt, double v, double* acc) {
  const __m512d vv = _mm512_set1_pd(v);
  for (int q = 0; q < 4; ++q) {
    const __m512d y = _mm512_cvtepi64_pd(_mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(yt + 8 * q))));
    _mm512_storeu_pd(acc + 8 * q, _mm512_fnmadd_pd(y, vv, _mm512_loadu_pd(acc + 8 * q)));
  }
}

// C[i0 + r][j] += acc[32 j + r] + h[i0 + r] + h[j] for rows r < rows and j <= i0 + r: the j-major
// block added to the rows of C through 8 × 8 transposes.
void add_block_rows(const double* acc, const double* h, int64_t i0, int64_t rows,
                                                        double* C, int64_t ld) {
  for (int64_t r0 = 0; r0 < rows; r0 += 8) {
    const int64_t rn = std::min<int64_t>(8, rows - r0);
    for (int64_t j0 = 0; j0 <= i0 + r0 + rn - 1; j0 += 8) {
      __m512d v[8], t[8];
      for (int q = 0; q < 8; ++q) v[q] = _mm512_loadu_pd(acc + 32 * (j0 + q) + r0);
      // 8 × 8 transpose: t[r] = (v[0][r], ..., v[7][r]) (pairs, then 256-bit halves, then 128-bit lanes)
      for (int q = 0; q < 8; q += 2) {
        t[q] = _mm512_unpacklo_pd(v[q], v[q + 1]);
        t[q + 1] = _mm512_unpackhi_pd(v[q], v[q + 1]);
      }
      for (int q = 0; q < 8; q += 4)
        for (int e = 0; e < 2; ++e) {
          v[q + e] = _mm512_shuffle_f64x2(t[q + e], t[q + e + 2], 0x88);
          v[q + e + 2] = _mm512_shuffle_f64x2(t[q + e], t[q + e + 2], 0xdd);
        }
      for (int e = 0; e < 4; ++e) {
        t[e] = _mm512_shuffle_f64x2(v[e], v[e + 4], 0x88);
        t[e + 4] = _mm512_shuffle_f64x2(v[e], v[e + 4], 0xdd);
      }
      const __m512d hj = _mm512_loadu_pd(h + j0);
      for (int64_t q = 0; q < rn; ++q) {
        const int64_t i = i0 + r0 + q, last = std::min<int64_t>(7, i - j0);
        if (last < 0) continue;
        const auto mask = static_cast<__mmask8>((2u << last) - 1);
        double* c = C + i * ld + j0;
        const __m512d add = _mm512_add_pd(t[q], _mm512_add_pd(hj, _mm512_set1_pd(h[i])));
        _mm512_mask_storeu_pd(c, mask, _mm512_add_pd(_mm512_maskz_loadu_pd(mask, c), add));
      }
    }
  }
}

// y of the 4 calls in a .bed byte, as 4 bytes, for y = A1 count (flip 0) or A2 count (flip 1).
struct byte_tables {
  uint32_t y[2][256];
  byte_tables() {
    constexpr uint8_t by_code[2][4] = {{2, 0, 1, 0}, {0, 0, 1, 2}};
    for (int f = 0; f < 2; ++f)
      for (int b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (int c = 0; c < 4; ++c) v |= uint32_t{by_code[f][(b >> (2 * c)) & 3]} << (8 * c);
        y[f][b] = v;
      }
  }
};

// (offset in C, value) of the lower-triangle entries whose samples share no called variant.
std::vector<std::pair<int64_t, double>> entries_without_joint_calls(const variant_major_view& g,
                                                                    const std::vector<std::vector<int64_t>>& miss,
                                                                    const double* C, int64_t ld) {
  const int64_t n = g.n_samples, k = g.n_variants;
  std::vector<int64_t> m(static_cast<size_t>(n), 0);
  for (const auto& list : miss)
    for (int64_t i : list) ++m[i];
  std::vector<std::pair<int64_t, double>> keep;
  std::vector<std::vector<int64_t>> by_sample;
  std::vector<uint8_t> mark;
  for (int64_t c = 0; c < n; ++c) {
    if (2 * m[c] < k) continue;
    if (by_sample.empty()) {
      by_sample.resize(static_cast<size_t>(n));
      for (int64_t l = 0; l < k; ++l)
        for (int64_t i : miss[l]) by_sample[i].push_back(l);
      mark.assign(static_cast<size_t>(k), 0);
    }
    for (int64_t l : by_sample[c]) mark[l] = 1;
    for (int64_t j = 0; j < n; ++j) {
      if (2 * m[j] >= k && j > c) continue;  // that pair is found from j
      int64_t both = 0;
      for (int64_t l : by_sample[j]) both += mark[l];
      if (k - m[c] - m[j] + both == 0) {
        const int64_t at = std::max(c, j) * ld + std::min(c, j);
        keep.emplace_back(at, C[at]);
      }
    }
    for (int64_t l : by_sample[c]) mark[l] = 0;
  }
  return keep;
}

}  // namespace

void amx_table_crossprod(const executor& exec, const variant_major_view& g, const affine_plan& plan,
                         const std::vector<std::vector<int64_t>>& miss, double* C, int64_t ld) {
  const int64_t n = g.n_samples, k = g.n_variants, np = plan.positions(), steps = np / 64;
  const int64_t n_pad = (n + 31) / 32 * 32, groups16 = n_pad / 16, blocks = n_pad / 32;
  const int threads = exec.threads();
  static const byte_tables tables;

  // Pairs with no jointly called variant must get exactly 0 (the GRM divides by that count and
  // reports 0/0 = nan, as PLINK does); the expansion would leave rounding residue, so their
  // entries are saved and put back. Only samples missing in at least half the block can be in
  // such a pair (k − m_i − m_j + both = 0 needs m_i + m_j >= k).
  std::vector<std::pair<int64_t, double>> keep = entries_without_joint_calls(g, miss, C, ld);

  // Per sample, its missing variants with v = αβ != 0 (row and column terms) and with α != 0
  // (jointly missing α²); the position of each variant in Y (-1: zero weight, so v = 0).
  std::vector<std::vector<int64_t>> miss_v(static_cast<size_t>(n)), miss_a(static_cast<size_t>(n));
  bool any_missing = false;
  for (int64_t l = 0; l < k; ++l) {
    const bool v = plan.alpha[l] * plan.beta[l] != 0, a = plan.alpha[l] != 0;
    for (int64_t j : miss[l]) {
      any_missing = true;
      if (v) miss_v[j].push_back(l);
      if (a) miss_a[j].push_back(l);
    }
  }
  std::vector<int64_t> position(static_cast<size_t>(k), -1);
  for (int64_t p = 0; p < np; ++p)
    if (plan.variant_at[p] >= 0) position[plan.variant_at[p]] = p;

  // h_i = Σ_l v_l y_il − Σ_{l∈miss(i)} α_l² + ½ Σ_l α_l²  (the first sum accumulates while Y is built).
  std::vector<double> h(static_cast<size_t>(n_pad), 0.5 * plan.alpha2_sum);
  for (int64_t l = 0; l < k; ++l)
    for (int64_t i : miss[l]) h[i] -= plan.alpha[l] * plan.alpha[l];

  // Y tiles, [sample group of 16][step] (np positions = steps × 64).
  const std::unique_ptr<uint8_t[]> Y(new uint8_t[static_cast<size_t>(n_pad * np)]);  // every tile is written below
  const int64_t valid_bytes = (n + 3) / 4;
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
  for (int64_t jg = 0; jg < groups16; ++jg) {
    const int64_t j0 = 16 * jg;
    double u[16] = {};
    for (int64_t st = 0; st < steps; ++st) {
      uint8_t* tile = Y.get() + (jg * steps + st) * 1024;
      std::memset(tile, 0, 1024);
      for (int64_t tp = 0; tp < 64; ++tp) {
        const int64_t l = plan.variant_at[st * 64 + tp];
        if (l < 0) continue;
        const uint8_t* row = g.row(l);
        const double v = plan.alpha[l] * plan.beta[l];
        const uint32_t* yt = tables.y[plan.flip[l]];
        for (int64_t b = 0; b < 4; ++b) {
          const int64_t byte = j0 / 4 + b;
          if (byte >= valid_bytes) break;
          uint32_t y4 = yt[row[byte]];
          const int64_t left = n - 4 * byte;  // calls of this byte that are samples
          if (left < 4) y4 &= (uint32_t{1} << (8 * left)) - 1;
          for (int c = 0; c < 4; ++c) {
            const uint32_t y = (y4 >> (8 * c)) & 255;
            tile[(4 * b + c) * 64 + tp] = static_cast<uint8_t>(y);
            u[4 * b + c] += v * y;
          }
        }
      }
    }
    for (int c = 0; c < 16; ++c) h[j0 + c] += u[c];
  }

  // Row blocks, largest first (block b multiplies b + 1 column blocks).
#pragma omp parallel num_threads(threads)
  {
    amx_configure_full_tiles();  // tiles 0-3: C, 4-5: A, 6-7: B
    constexpr int64_t slice_bytes = panel_steps * 2048;
    std::vector<uint8_t> B_store(static_cast<size_t>(affine_plan::max_slices * slice_bytes + 64));
    auto* B = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(B_store.data()) + 63) & ~uintptr_t{63});
    std::vector<double> acc(static_cast<size_t>(32 * n_pad));  // [j][i - i0]
    std::vector<uint8_t> yt(any_missing ? static_cast<size_t>(32 * np) : 0);  // [position][i - i0]
    alignas(64) int32_t buf[1024];
#pragma omp for schedule(dynamic, 1)
    for (int64_t bi = 0; bi < blocks; ++bi) {
      const int64_t ib = blocks - 1 - bi, i0 = 32 * ib, cols = i0 + 32;
      std::fill_n(acc.data(), 32 * cols, 0.0);
      for (const auto& gr : plan.groups)
        for (int64_t s0 = gr.begin / 64; s0 < gr.end / 64; s0 += panel_steps) {
          const int64_t ps = std::min(panel_steps, gr.end / 64 - s0);
          // B[slice][step][tile 0/1][16 × 64]
          for (int64_t st = 0; st < ps; ++st)
            for (int t = 0; t < 2; ++t)
              sliced_tile(Y.get() + ((2 * ib + t) * steps + s0 + st) * 1024, plan.digits.data() + (s0 + st) * 64,
                          gr.slices, ps * 2048, np, B + st * 2048 + t * 1024);
          for (int64_t jb = 0; jb <= ib; ++jb) {
            const uint8_t* a0 = Y.get() + (2 * jb * steps + s0) * 1024;
            for (int s = 0; s < gr.slices; ++s) {
              tile_product(a0, a0 + steps * 1024, B + s * ps * 2048, ps, buf);
              add_scaled(buf, std::ldexp(1.0, gr.scale_exp + 7 * s), acc.data() + 32 * 32 * jb, 32);
            }
          }
        }
      if (any_missing) {
        // Column terms: C[i][j] −= Σ_{l∈miss(j)} v_l y_il for the rows i of this block.
        for (int64_t p = 0; p < np; ++p) {
          const uint8_t* tile = Y.get() + (2 * ib * steps + p / 64) * 1024 + p % 64;
          for (int64_t r = 0; r < 32; ++r) yt[p * 32 + r] = tile[(r / 16) * steps * 1024 + (r % 16) * 64];
        }
        for (int64_t j = 0; j < std::min(cols, n); ++j)
          for (int64_t l : miss_v[j]) sub_scaled_bytes(yt.data() + position[l] * 32, plan.alpha[l] * plan.beta[l], acc.data() + 32 * j);
      }
      add_block_rows(acc.data(), h.data(), i0, std::min<int64_t>(32, n - i0), C, ld);
      for (int64_t r = 0; r < 32 && i0 + r < n && any_missing; ++r) {
        const int64_t i = i0 + r;
        double* c = C + i * ld;
        // Row terms: C[i][j] −= Σ_{l∈miss(i)} v_l y_jl (j <= i; y_il = 0), then the jointly missing α².
        subtract_missing_rows(g, plan, miss_v[i], i + 1, c);
        for (int64_t l : miss_a[i]) {
          const double a2 = plan.alpha[l] * plan.alpha[l];
          for (int64_t i2 : miss[l]) {
            if (i2 > i) break;
            c[i2] += a2;
          }
        }
      }
    }
    amx_release_tiles();
  }
  for (const auto& [at, value] : keep) C[at] = value;
}

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options
