// Table kernels of genotype_gemm, written once with GCC vector types and compiled once per
// instruction set: each cpu_<isa>.cpp includes its standard headers, then this file after a
// `#pragma GCC target` (and PMX_GEMM_AVX512 / PMX_GEMM_AVX2 for the few intrinsics), so that
// everything here (internal linkage) is built for that ISA alone.
//
// Tables. One .bed byte = 4 calls of 2 bits indexes a table of 256 entries; an entry is a chunk of
// E ∈ {1, 2, 4, 8} columns (E doubles; tables 64-byte aligned). Codes: 0 hom A1 (x = 2),
// 1 missing, 2 het (x = 1), 3 hom A2 (x = 0); call t of a byte in bits 2t..2t+1.
//
//   Z·Λ    The index is a *sample-major* byte: the codes of one sample at 4 consecutive variants
//          4g..4g+3. Variant-major rows are transposed (4 rows × 32..256 samples at a time) into
//          such bytes, group-major: codes[gg * stride + s]. Then
//            T_g[b] = Σ_t zv[4g+t][code_t(b)] · Λ[4g+t]     (z values: centring, scale, missing =
//            0)
//          and Y[i] = Σ_g T_g[byte(i, g)]. Every entry sums the 4 exact terms of Z Λ it stands for,
//          so the result is componentwise accurate, missing calls included.
//   Zᵀ·Λ̃  The index is the .bed byte itself: 4 consecutive samples 4g..4g+3 of variant j. The
//          table cannot hold p_j (it is shared by all variants), so it holds
//            P_r,g[b] = Σ_{t called} (x_t − r) · Λ̃[4g+t]      for a pivot r ∈ {0, 1, 2}
//          (exact multiples; only the sums round) and each variant reads the table of its own
//          pivot r_j = round(2 p_j); the driver adds (r_j − 2p_j)·Σ_{called} Λ̃ and scales. The
//          rows of a block are first gathered, zlt_span bytes per row and visit, in pivot order
//          (segs[q * zlt_span + gg]; that is also where the missing calls are counted), then
//          each table block's bytes packed (block_segs[q * groups + gg]).
//
// Blocking: `groups` (zl_groups(l) / zlt_groups(l)) groups per block, whose tables (≤ 512 KiB)
// stay in L2 while every row of the other dimension in the block (≤ 8192, chosen by the driver)
// looks them up, 16 rows at a time: 16 accumulators, 16 bytes of codes per group (Z·Λ) or 8 per
// row and 8 groups (Zᵀ·Λ̃), then one aligned E-wide load and add per lookup. Each row's sum runs
// over the groups in order, whatever the ISA.
#pragma once

// Wide vector types cross no ABI boundary here (all internal, inlined): the note is moot. GCC 12
// also flags the _mm512_undefined_*() inside some AVX-512 intrinsics (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace {

using namespace pmx::kernels::cpu::gemm_isa;

template <int E>
struct vt {
  typedef double type __attribute__((vector_size(8 * E), may_alias));
};
template <>
struct vt<1> {
  typedef double type;
};
template <int E>
using vec = typename vt<E>::type;

template <int E>
inline vec<E> load_u(const double* p) {
  vec<E> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <int E>
inline void store_u(double* p, const vec<E>& v) {
  std::memcpy(p, &v, sizeof v);
}
template <int E>
inline const vec<E>& entry(const double* table, unsigned byte) {
  return *reinterpret_cast<const vec<E>*>(table + static_cast<size_t>(byte) * E);
}
template <int E>
inline vec<E>& entry(double* table, unsigned byte) {
  return *reinterpret_cast<vec<E>*>(table + static_cast<size_t>(byte) * E);
}

/// The 256 entries from the 4 × 4 per-call values v[t][code]: T[b] = (v0 + v1) + (v2 + v3), the
/// first pair from the low nibble of b, the second from the high nibble.
template <int E>
inline void fill_table(const vec<E> (&v)[4][4], double* table) {
  vec<E> lo[16], hi[16];
  for (int nib = 0; nib < 16; ++nib) {
    lo[nib] = v[0][nib & 3] + v[1][nib >> 2];
    hi[nib] = v[2][nib & 3] + v[3][nib >> 2];
  }
  for (int h = 0; h < 16; ++h)
    for (int q = 0; q < 16; ++q) entry<E>(table, static_cast<unsigned>(h << 4 | q)) = lo[q] + hi[h];
}

using stage_clock = pmx::kernels::cpu::stage_clock<stage_times>;

/// Up to 8 bytes as one little-endian word (bytes past `bytes` read as 0).
inline uint64_t load_word(const uint8_t* p, int64_t bytes) {
  uint64_t w = 0;
  if (bytes >= 8)
    std::memcpy(&w, p, 8);
  else if (bytes > 0)
    std::memcpy(&w, p, static_cast<size_t>(bytes));
  return w;
}

/// Calls f(c0, E) for the column chunks of widths 8, .., 8, then 4, 2, 1 as the remainder needs.
template <class F>
inline void for_chunks(int64_t l, F&& f) {
  int64_t c0 = 0;
  for (; c0 + 8 <= l; c0 += 8) f(c0, 8);
  for (int e : {4, 2, 1})
    if (l - c0 >= e) f(c0, e), c0 += e;
}

// ---- 2-bit transpose: 4 variant rows -> sample bytes (variant t in bits 2t..2t+1)
// ----------------

/// Portable form, 32 samples: r[t] holds variant t's codes (sample q in bits 2q..2q+1); o[w]
/// receives samples 8w..8w+7, one byte each.
inline uint64_t spread2(uint64_t x) {  // 16 2-bit fields of the low half -> 4-bit slots
  x &= 0xFFFFFFFFull;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (x | (x << 2)) & 0x3333333333333333ull;
}
inline uint64_t spread4(uint64_t x) {  // 8 4-bit fields of the low half -> 8-bit slots
  x &= 0xFFFFFFFFull;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  return (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
}
inline void transpose_32(const uint64_t (&r)[4], uint64_t (&o)[4]) {
  const uint64_t a0 = spread2(r[0]) | spread2(r[1]) << 2,
                 a1 = spread2(r[0] >> 32) | spread2(r[1] >> 32) << 2;
  const uint64_t b0 = spread2(r[2]) | spread2(r[3]) << 2,
                 b1 = spread2(r[2] >> 32) | spread2(r[3] >> 32) << 2;
  o[0] = spread4(a0) | spread4(b0) << 4;
  o[1] = spread4(a0 >> 32) | spread4(b0 >> 32) << 4;
  o[2] = spread4(a1) | spread4(b1) << 4;
  o[3] = spread4(a1 >> 32) | spread4(b1 >> 32) << 4;
}

#if defined(PMX_GEMM_AVX512) || defined(PMX_GEMM_AVX2)
// Vector form. Per input byte b (samples 4b..4b+3 of one variant), a 16-entry shuffle spreads
// the two calls of a nibble to bits 0-1 and 4-5; two variants or'ed (one shifted by 2) give a
// byte of two samples' nibbles, two such bytes per sample pair give the output bytes o_t[b] of
// samples 4b + t, and byte/word unpacks plus a 128-bit lane transpose put them in sample order.
#if defined(PMX_GEMM_AVX512)
using vbytes = __m512i;
inline vbytes v_set1(char c) { return _mm512_set1_epi8(c); }
inline vbytes v_and(vbytes a, vbytes b) { return _mm512_and_si512(a, b); }
inline vbytes v_or(vbytes a, vbytes b) { return _mm512_or_si512(a, b); }
inline vbytes v_shuffle(vbytes t, vbytes i) { return _mm512_shuffle_epi8(t, i); }
template <int s>
inline vbytes v_shl(vbytes a) {
  return _mm512_slli_epi16(a, s);
}
template <int s>
inline vbytes v_shr(vbytes a) {
  return _mm512_srli_epi16(a, s);
}
inline vbytes v_lut() {
  return _mm512_broadcast_i32x4(_mm_setr_epi8(0x00, 0x01, 0x02, 0x03, 0x10, 0x11, 0x12, 0x13, 0x20,
                                              0x21, 0x22, 0x23, 0x30, 0x31, 0x32, 0x33));
}
inline vbytes v_load(const uint8_t* p, int64_t bytes) {
  return bytes >= 64 ? _mm512_loadu_si512(p)
                     : _mm512_maskz_loadu_epi8(
                           bytes > 0 ? _bzhi_u64(~0ull, static_cast<unsigned>(bytes)) : 0, p);
}
constexpr int64_t v_bytes = 64;
#else
using vbytes = __m256i;
inline vbytes v_set1(char c) { return _mm256_set1_epi8(c); }
inline vbytes v_and(vbytes a, vbytes b) { return _mm256_and_si256(a, b); }
inline vbytes v_or(vbytes a, vbytes b) { return _mm256_or_si256(a, b); }
inline vbytes v_shuffle(vbytes t, vbytes i) { return _mm256_shuffle_epi8(t, i); }
template <int s>
inline vbytes v_shl(vbytes a) {
  return _mm256_slli_epi16(a, s);
}
template <int s>
inline vbytes v_shr(vbytes a) {
  return _mm256_srli_epi16(a, s);
}
inline vbytes v_lut() {
  return _mm256_broadcastsi128_si256(_mm_setr_epi8(0x00, 0x01, 0x02, 0x03, 0x10, 0x11, 0x12, 0x13,
                                                   0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x32, 0x33));
}
inline vbytes v_load(const uint8_t* p, int64_t bytes) {
  if (bytes >= 32) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  alignas(32) uint8_t tmp[32] = {};
  if (bytes > 0) std::memcpy(tmp, p, static_cast<size_t>(bytes));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp));
}
constexpr int64_t v_bytes = 32;
#endif

/// 4 rows × v_bytes input bytes (4·v_bytes samples) -> 4·v_bytes output bytes at out.
inline void transpose_vec(const vbytes (&r)[4], uint8_t* out) {
  const vbytes lut = v_lut(), lo4 = v_set1(0x0F), hi4 = v_set1(static_cast<char>(0xF0));
  auto spread_lo = [&](vbytes x) { return v_shuffle(lut, v_and(x, lo4)); };
  auto spread_hi = [&](vbytes x) { return v_shuffle(lut, v_and(v_shr<4>(x), lo4)); };
  const vbytes a_lo =
      v_or(spread_lo(r[0]), v_shl<2>(spread_lo(r[1])));  // samples 4b, 4b+1: c0 | c1 << 2
  const vbytes a_hi = v_or(spread_hi(r[0]), v_shl<2>(spread_hi(r[1])));  // samples 4b+2, 4b+3
  const vbytes b_lo = v_or(spread_lo(r[2]), v_shl<2>(spread_lo(r[3])));  // c2 | c3 << 2
  const vbytes b_hi = v_or(spread_hi(r[2]), v_shl<2>(spread_hi(r[3])));
  const vbytes o0 = v_or(v_and(a_lo, lo4), v_shl<4>(v_and(b_lo, lo4)));
  const vbytes o1 = v_or(v_and(v_shr<4>(a_lo), lo4), v_and(b_lo, hi4));
  const vbytes o2 = v_or(v_and(a_hi, lo4), v_shl<4>(v_and(b_hi, lo4)));
  const vbytes o3 = v_or(v_and(v_shr<4>(a_hi), lo4), v_and(b_hi, hi4));
#if defined(PMX_GEMM_AVX512)
  const __m512i p01l = _mm512_unpacklo_epi8(o0, o1), p01h = _mm512_unpackhi_epi8(o0, o1);
  const __m512i p23l = _mm512_unpacklo_epi8(o2, o3), p23h = _mm512_unpackhi_epi8(o2, o3);
  // q_m, 128-bit lane L: samples 64L + 16m .. +15
  const __m512i q0 = _mm512_unpacklo_epi16(p01l, p23l), q1 = _mm512_unpackhi_epi16(p01l, p23l);
  const __m512i q2 = _mm512_unpacklo_epi16(p01h, p23h), q3 = _mm512_unpackhi_epi16(p01h, p23h);
  const __m512i t0 = _mm512_shuffle_i64x2(q0, q1, 0x44), t1 = _mm512_shuffle_i64x2(q2, q3, 0x44);
  const __m512i t2 = _mm512_shuffle_i64x2(q0, q1, 0xEE), t3 = _mm512_shuffle_i64x2(q2, q3, 0xEE);
  _mm512_storeu_si512(out, _mm512_shuffle_i64x2(t0, t1, 0x88));
  _mm512_storeu_si512(out + 64, _mm512_shuffle_i64x2(t0, t1, 0xDD));
  _mm512_storeu_si512(out + 128, _mm512_shuffle_i64x2(t2, t3, 0x88));
  _mm512_storeu_si512(out + 192, _mm512_shuffle_i64x2(t2, t3, 0xDD));
#else
  const __m256i p01l = _mm256_unpacklo_epi8(o0, o1), p01h = _mm256_unpackhi_epi8(o0, o1);
  const __m256i p23l = _mm256_unpacklo_epi8(o2, o3), p23h = _mm256_unpackhi_epi8(o2, o3);
  const __m256i q0 = _mm256_unpacklo_epi16(p01l, p23l), q1 = _mm256_unpackhi_epi16(p01l, p23l);
  const __m256i q2 = _mm256_unpacklo_epi16(p01h, p23h), q3 = _mm256_unpackhi_epi16(p01h, p23h);
  auto* o = reinterpret_cast<__m256i*>(out);
  _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(q0, q1, 0x20));
  _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(q2, q3, 0x20));
  _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(q0, q1, 0x31));
  _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(q2, q3, 0x31));
#endif
}
#endif

// ---- Z·Λ ---------------------------------------------------------------------------------------

/// Row stride of the codes buffer for `rows` samples (room for whole vector transposes).
inline int64_t zl_stride(int64_t rows) { return (rows + 255) / 256 * 256; }

/// codes[gg * stride + s] = byte of sample i0 + s at variants 4(g0 + gg) .. 4(g0 + gg) + 3, for
/// s < round_up(i1 − i0, 32) at least (samples past n read as code 0; their results are never
/// stored).
inline void zl_repack(const pmx::variant_major_view& g, int64_t i0, int64_t i1, int64_t g0,
                      int64_t groups, uint8_t* codes, int64_t stride) {
  const int64_t used_bytes = (g.n_samples + 3) / 4, b0 = i0 / 4, b1 = (i1 + 3) / 4;
  static const uint8_t zeros[64] = {};
  for (int64_t gg = 0; gg < groups; ++gg) {
    const uint8_t* rows[4];
    bool real[4];
    for (int t = 0; t < 4; ++t) {
      const int64_t j = 4 * (g0 + gg) + t;
      real[t] = j < g.n_variants;
      rows[t] = real[t] ? g.row(j) : zeros;
    }
    uint8_t* out = codes + gg * stride;
    int64_t b = b0;
#if defined(PMX_GEMM_AVX512) || defined(PMX_GEMM_AVX2)
    for (; b < b1; b += v_bytes, out += 4 * v_bytes) {
      const int64_t avail = used_bytes - b;
      vbytes r[4];
      for (int t = 0; t < 4; ++t) r[t] = real[t] ? v_load(rows[t] + b, avail) : v_load(zeros, 0);
      transpose_vec(r, out);
    }
#endif
    for (; b < b1; b += 8, out += 32) {
      const int64_t avail = used_bytes - b;
      uint64_t r[4], o[4];
      for (int t = 0; t < 4; ++t) r[t] = real[t] ? load_word(rows[t] + b, avail) : 0;
      transpose_32(r, o);
      std::memcpy(out, o, 32);
    }
  }
}

template <int E>
void zl_tables(const zl_problem& p, int64_t g0, int64_t groups, int64_t c0, double* tables) {
  for (int64_t gg = 0; gg < groups; ++gg) {
    vec<E> v[4][4];
    for (int t = 0; t < 4; ++t) {
      const int64_t j = 4 * (g0 + gg) + t;
      const vec<E> lam = j < p.g.n_variants ? load_u<E>(p.lambda + j * p.ld_lambda + c0) : vec<E>{};
      for (int code = 0; code < 4; ++code)
        v[t][code] =
            code == pmx::code_missing || j >= p.g.n_variants ? vec<E>{} : p.zv[4 * j + code] * lam;
    }
    // The products are rounded before they are summed (no fused multiply-add), on every ISA.
    asm volatile("" : : "r"(&v) : "memory");
    fill_table<E>(v, tables + gg * 256 * E);
  }
}

/// Rows looked up together: that many independent accumulators keep enough loads in flight.
constexpr int tile = 16;

/// acc rows += Σ_gg T_gg[code byte], `tile` samples at a time (16 bytes of codes per group).
template <int E>
void zl_lookup(const zl_problem& p, int64_t rows, int64_t groups, int64_t c0, const uint8_t* codes,
               int64_t stride, const double* tables, double* acc) {
  for (int64_t s0 = 0; s0 < rows; s0 += tile) {
    vec<E> a[tile];
    for (auto& x : a) x = vec<E>{};
    for (int64_t gg = 0; gg < groups; ++gg) {
      uint64_t w[tile / 8];
      std::memcpy(w, codes + gg * stride + s0, tile);
      const double* T = tables + gg * 256 * E;
      for (int q = 0; q < tile; ++q)
        a[q] += entry<E>(T, static_cast<unsigned>(w[q / 8] >> (8 * (q % 8))) & 255u);
    }
    const int64_t nq = std::min<int64_t>(tile, rows - s0);
    for (int64_t q = 0; q < nq; ++q) {
      double* o = acc + (s0 + q) * p.l + c0;
      store_u<E>(o, load_u<E>(o) + a[q]);
    }
  }
}

template <int E>
void zl_chunk(const zl_problem& p, int64_t rows, int64_t g0, int64_t groups, int64_t c0,
              const zl_scratch& w, int64_t stride, double* acc, stage_clock& clock) {
  zl_tables<E>(p, g0, groups, c0, w.tables);
  clock.lap(&stage_times::tables);
  zl_lookup<E>(p, rows, groups, c0, w.codes, stride, w.tables, acc);
  clock.lap(&stage_times::lookups);
}

void zl_block(const zl_problem& p, int64_t i0, int64_t i1, const zl_scratch& w, double* acc) {
  const int64_t rows = i1 - i0, n_groups = (p.g.n_variants + 3) / 4, stride = zl_stride(rows);
  stage_clock clock(w.times);
  std::fill(acc, acc + rows * p.l, 0.0);
  for (int64_t g0 = 0; g0 < n_groups; g0 += p.groups) {
    const int64_t groups = std::min(p.groups, n_groups - g0);
    zl_repack(p.g, i0, i1, g0, groups, w.codes, stride);
    clock.lap(&stage_times::repack);
    for_chunks(p.l, [&](int64_t c0, int e) {
      switch (e) {
        case 8:
          return zl_chunk<8>(p, rows, g0, groups, c0, w, stride, acc, clock);
        case 4:
          return zl_chunk<4>(p, rows, g0, groups, c0, w, stride, acc, clock);
        case 2:
          return zl_chunk<2>(p, rows, g0, groups, c0, w, stride, acc, clock);
        default:
          return zl_chunk<1>(p, rows, g0, groups, c0, w, stride, acc, clock);
      }
    });
  }
}

// ---- Zᵀ·Λ̃ --------------------------------------------------------------------------------------
//
// Missing calls: for l < 8 each entry carries, after its E pivot-sum columns, E more with the sum
// of Λ̃ over the entry's missing calls (a 2E-wide entry, still at most one zmm, so the lookups
// cost the same); for l ≥ 8 the repack adds the Λ̃ rows of the missing calls it meets.

/// Entry width of a chunk of E columns.
template <int E, bool Dual>
constexpr int entry_width = Dual ? 2 * E : E;

template <int E, bool Dual>
void zlt_tables(const zlt_problem& p, int r, int64_t g0, int64_t groups, int64_t c0,
                double* tables) {
  constexpr int W = entry_width<E, Dual>;
  for (int64_t gg = 0; gg < groups; ++gg) {
    vec<W> v[4][4];
    for (int t = 0; t < 4; ++t) {
      const int64_t i = 4 * (g0 + gg) + t;
      double lam[E] = {};
      if (i < p.g.n_samples) std::memcpy(lam, p.lambda + i * p.ld_lambda + c0, sizeof lam);
      for (int code = 0; code < 4; ++code) {
        const int x = pmx::dosage_of_code(static_cast<uint8_t>(code));
        double e[W] = {};
        for (int c = 0; c < E; ++c) {
          if (x >= 0) e[c] = static_cast<double>(x - r) * lam[c];  // exact: x − r ∈ {−2..2}
          if constexpr (Dual) {
            if (x < 0) e[E + c] = lam[c];
          }
        }
        std::memcpy(&v[t][code], e, sizeof e);
      }
    }
    asm volatile("" : : "r"(&v) : "memory");  // no fused multiply-add, as in zl_tables
    fill_table<W>(v, tables + gg * 256 * W);
  }
}

/// Flags (bit 2q) of the missing calls (code 0b01) among the 32 calls of a word.
inline uint64_t missing_flags(uint64_t w) { return w & ~(w >> 1) & 0x5555555555555555ull; }

/// sum[0..l) += Λ̃[i][0..l) for the calls flagged in m (a word of 32 calls from sample i_first).
inline void add_missing_rows(uint64_t m, int64_t i_first, const zlt_problem& p, double* sum) {
  while (m) {
    const double* li = p.lambda + (i_first + __builtin_ctzll(m) / 2) * p.ld_lambda;
    m &= m - 1;
    int64_t c = 0;
    for (; c + 8 <= p.l; c += 8) store_u<8>(sum + c, load_u<8>(sum + c) + load_u<8>(li + c));
    for (; c < p.l; ++c) sum[c] += li[c];
  }
}

/// segs[q * zlt_span + gg] = byte g0 + gg (gg < groups ≤ zlt_span) of the row of the q-th variant
/// in `order`; counts the missing calls of each variant and, when `add`, adds their Λ̃ rows to
/// the variant's missing_sum (in increasing i). Rows are visited zlt_span bytes at a time:
/// shorter visits of strided rows leave most of the memory bandwidth unused.
inline void zlt_repack(const zlt_problem& p, int64_t j0, const int32_t* order, int64_t rows,
                       int64_t g0, int64_t groups, uint8_t* segs, bool add, double* missing_sum,
                       int64_t* count) {
  const int64_t n = p.g.n_samples, n_groups = (n + 3) / 4;
  // Padding calls of the last byte of a row (samples ≥ n) must not count as missing.
  const int64_t last =
      n_groups - 1 - g0;  // index of the row's last byte in this segment, if < groups
  const uint64_t pad_byte_mask = n % 4 == 0 ? 0xFFull : (1ull << (2 * (n % 4))) - 1;
  constexpr int64_t ahead = 16;
  for (int64_t q = 0; q < rows; ++q) {
    if (q + ahead < rows)
      for (int64_t b = 0; b < groups; b += 64)
        __builtin_prefetch(p.g.row(j0 + order[q + ahead]) + g0 + b);
    const uint8_t* src = p.g.row(j0 + order[q]) + g0;
    uint8_t* dst = segs + q * zlt_span;
    double* sum = missing_sum + order[q] * p.l;
    int64_t found = 0;
    for (int64_t b = 0; b < groups; b += 8) {
      uint64_t w;
      if (b + 8 <= groups)
        std::memcpy(&w, src + b, 8);
      else
        w = load_word(src + b, groups - b);
      std::memcpy(dst + b, &w, 8);
      uint64_t m = missing_flags(w);
      if (last >= b && last < b + 8) m &= ~((0xFFull & ~pad_byte_mask) << (8 * (last - b)));
      found += __builtin_popcountll(m);
      if (add && m) add_missing_rows(m, (g0 + b) * 4, p, sum);
    }
    count[order[q]] += found;
  }
}

/// acc rows += Σ_gg P_gg[segment byte] (segments at segs + q * p.groups), `tile` variants at a time
/// (one 8-byte load per variant and 8 groups); with Dual, the missing-call lanes go to missing_sum.
template <int E, bool Dual>
void zlt_lookup(const zlt_problem& p, const int32_t* order, int64_t q0, int64_t q1, int64_t groups,
                int64_t c0, const uint8_t* segs, const double* tables, double* acc,
                double* missing_sum) {
  constexpr int W = entry_width<E, Dual>;
  for (int64_t qa = q0; qa < q1; qa += tile) {
    vec<W> a[tile];
    for (auto& x : a) x = vec<W>{};
    const uint8_t* base = segs + qa * p.groups;
    for (int64_t gg = 0; gg < groups; gg += 8) {
      uint64_t w[tile];
      for (int v = 0; v < tile; ++v) std::memcpy(&w[v], base + v * p.groups + gg, 8);
      const int64_t nt = std::min<int64_t>(8, groups - gg);
      for (int64_t t = 0; t < nt; ++t) {
        const double* T = tables + (gg + t) * 256 * W;
        for (int v = 0; v < tile; ++v)
          a[v] += entry<W>(T, static_cast<unsigned>(w[v] >> (8 * t)) & 255u);
      }
    }
    const int64_t nv = std::min<int64_t>(tile, q1 - qa);
    for (int64_t v = 0; v < nv; ++v) {
      double lanes[W];
      std::memcpy(lanes, &a[v], sizeof lanes);
      double* o = acc + order[qa + v] * p.l + c0;
      for (int c = 0; c < E; ++c) o[c] += lanes[c];
      if constexpr (Dual) {
        double* ms = missing_sum + order[qa + v] * p.l + c0;
        for (int c = 0; c < E; ++c) ms[c] += lanes[E + c];
      }
    }
  }
}

template <int E, bool Dual>
void zlt_chunk(const zlt_problem& p, const int32_t* order, const int64_t (&start)[4], int64_t g0,
               int64_t groups, int64_t c0, const uint8_t* segs, const zlt_scratch& w, double* acc,
               stage_clock& clock) {
  for (int r = 0; r < 3; ++r) {
    if (start[r + 1] == start[r]) continue;
    zlt_tables<E, Dual>(p, r, g0, groups, c0, w.tables);
    clock.lap(&stage_times::tables);
    zlt_lookup<E, Dual>(p, order, start[r], start[r + 1], groups, c0, segs, w.tables, acc,
                        w.missing_sum);
    clock.lap(&stage_times::lookups);
  }
}

void zlt_block(const zlt_problem& p, int64_t j0, int64_t j1, const zlt_scratch& w, double* acc) {
  const int64_t rows = j1 - j0, n_groups = (p.g.n_samples + 3) / 4;
  const bool dual = p.l < 8;
  stage_clock clock(w.times);
  std::fill(acc, acc + rows * p.l, 0.0);
  std::fill(w.missing_sum, w.missing_sum + rows * p.l, 0.0);
  std::fill(w.missing_count, w.missing_count + rows, int64_t{0});
  // Variants grouped by pivot (in increasing j within a pivot), so each pivot's tables are built
  // once.
  int64_t start[4] = {0, 0, 0, 0};
  for (int64_t jl = 0; jl < rows; ++jl) ++start[p.pivot[j0 + jl] + 1];
  for (int r = 1; r < 4; ++r) start[r] += start[r - 1];
  int64_t next[3] = {start[0], start[1], start[2]};
  for (int64_t jl = 0; jl < rows; ++jl)
    w.order[next[p.pivot[j0 + jl]]++] = static_cast<int32_t>(jl);
  for (int64_t s0 = 0; s0 < n_groups; s0 += zlt_span) {
    const int64_t span = std::min(zlt_span, n_groups - s0);
    zlt_repack(p, j0, w.order, rows, s0, span, w.segs, !dual, w.missing_sum, w.missing_count);
    clock.lap(&stage_times::repack);
    for (int64_t g0 = s0; g0 < s0 + span; g0 += p.groups) {
      const int64_t groups = std::min(p.groups, s0 + span - g0);
      // This block's bytes of each row, packed (q * G + gg): 16 rows of a tile then share a few
      // cache lines, and the lookups' working set stays small.
      for (int64_t q = 0; q < rows; ++q)
        for (int64_t b = 0; b < p.groups; b += 8)
          std::memcpy(w.block_segs + q * p.groups + b, w.segs + q * zlt_span + (g0 - s0) + b, 8);
      const uint8_t* segs = w.block_segs;
      clock.lap(&stage_times::repack);
      for_chunks(p.l, [&](int64_t c0, int e) {
        if (dual) switch (e) {
            case 4:
              return zlt_chunk<4, true>(p, w.order, start, g0, groups, c0, segs, w, acc, clock);
            case 2:
              return zlt_chunk<2, true>(p, w.order, start, g0, groups, c0, segs, w, acc, clock);
            default:
              return zlt_chunk<1, true>(p, w.order, start, g0, groups, c0, segs, w, acc, clock);
          }
        switch (e) {
          case 8:
            return zlt_chunk<8, false>(p, w.order, start, g0, groups, c0, segs, w, acc, clock);
          case 4:
            return zlt_chunk<4, false>(p, w.order, start, g0, groups, c0, segs, w, acc, clock);
          case 2:
            return zlt_chunk<2, false>(p, w.order, start, g0, groups, c0, segs, w, acc, clock);
          default:
            return zlt_chunk<1, false>(p, w.order, start, g0, groups, c0, segs, w, acc, clock);
        }
      });
    }
  }
}

// ---- Zᵀ·Λ̃ for l = 1: z-value tables over 4 variants ------------------------------------------
//
// With one column a table over samples saves little, and gathering row segments is much of the
// cost. Instead the rows are transposed to sample-major bytes as for Z·Λ (streaming reads of 4
// rows at a time) and
//   ZT_g[b] = (zv[4g][c0], zv[4g+1][c1], zv[4g+2][c2], zv[4g+3][c3])     (exact Z values, 0 if
//   missing)
// gives the 4 Z values of a sample at variants 4g..4g+3 in one 4-wide load, multiplied by Λ̃[i]
// and added to the 4 variants' sums: a plain dot product per variant, each term rounded once
// (no fused multiply-add, on any ISA), partial sums per zts_samples samples.

/// Samples per partial sum (fixed: it sets the order of the sums).
constexpr int64_t zts_samples = 1024;

void zts_block(const zl_problem& p, int64_t j0, int64_t j1, const zl_scratch& w, double* acc) {
  const int64_t n = p.g.n_samples, g_first = j0 / 4, g_end = (j1 + 3) / 4, stride = zts_samples;
  constexpr int64_t G = 32;  // groups per table block: 32 × 8 KiB
  stage_clock clock(w.times);
  for (int64_t g0 = g_first; g0 < g_end; g0 += G) {
    const int64_t groups = std::min(G, g_end - g0), groups8 = (groups + 7) / 8 * 8;
    for (int64_t gg = 0; gg < groups8; ++gg) {  // groups past the block's: all-zero tables
      double* T = w.tables + gg * 256 * 4;
      if (gg >= groups) {
        std::fill(T, T + 256 * 4, 0.0);
        continue;
      }
      const double* z = p.zv + 16 * (g0 + gg);
      for (int b = 0; b < 256; ++b)
        for (int t = 0; t < 4; ++t) T[b * 4 + t] = z[4 * t + ((b >> (2 * t)) & 3)];
    }
    clock.lap(&stage_times::tables);
    vec<4> total[G];
    for (auto& x : total) x = vec<4>{};
    for (int64_t i0 = 0; i0 < n; i0 += zts_samples) {
      const int64_t i1 = std::min(n, i0 + zts_samples), rows = i1 - i0;
      zl_repack(p.g, i0, i1, g0, groups, w.codes, stride);
      clock.lap(&stage_times::repack);
      for (int64_t gb = 0; gb < groups8; gb += 8) {
        const double* T = w.tables + gb * 256 * 4;
        vec<4> part[8];
        for (auto& x : part) x = vec<4>{};
        // One sample's 8 products (fixed trip counts, so the sums stay in registers).
        auto add_sample = [&](const uint64_t(&cw)[8], int s, double lam) {
          for (int gg = 0; gg < 8; ++gg) {
            vec<4> prod =
                entry<4>(T + gg * 256 * 4, static_cast<unsigned>(cw[gg] >> (8 * s)) & 255u) * lam;
#if defined(PMX_GEMM_AVX512) || defined(PMX_GEMM_AVX2)
            asm("" : "+x"(prod));  // a rounded product: no fused multiply-add
#endif
            part[gg] += prod;
          }
        };
        for (int64_t s0 = 0; s0 < rows; s0 += 8) {
          uint64_t cw[8];
          for (int gg = 0; gg < 8; ++gg) std::memcpy(&cw[gg], w.codes + (gb + gg) * stride + s0, 8);
          const double* lam = p.lambda + (i0 + s0) * p.ld_lambda;
          if (s0 + 8 <= rows) {
            for (int s = 0; s < 8; ++s) add_sample(cw, s, lam[s * p.ld_lambda]);
          } else {
            for (int s = 0; s < rows - s0; ++s) add_sample(cw, s, lam[s * p.ld_lambda]);
          }
        }
        for (int64_t gg = 0; gg < 8 && gb + gg < groups; ++gg) total[gb + gg] += part[gg];
      }
      clock.lap(&stage_times::lookups);
    }
    for (int64_t gg = 0; gg < groups; ++gg) {
      double lanes[4];
      std::memcpy(lanes, &total[gg], sizeof lanes);
      for (int t = 0; t < 4; ++t) {
        const int64_t j = 4 * (g0 + gg) + t;
        if (j >= j0 && j < j1) acc[j - j0] = lanes[t];
      }
    }
  }
}

}  // namespace
