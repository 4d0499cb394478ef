// AMX-INT8 route of the cpu genotype products (cpu_amx.hpp). Tiles are 16 rows × 64 int8 (A, B)
// and 16 × 16 int32 (C); one TDPB*D adds 16 × 16 × 64 products.
//
// Z·Λ is computed transposed, Cᵀ[digit column][sample] = Σ_variants digits · Xᵀ:
//   A = digit tiles (s8, row-major: A[m][q] = digit m of variant 64·step + q),
//   B = dosage tiles (u8, VNNI order: B[r][4c + t] = x of sample c at variant 4r + t), built per
//       block of 256 samples and chunk of 1,024 variants from the .bed rows: 4 rows' words are
//       transposed (dword unpacks) and each 16-byte group spread to 64 bytes (VBMI permute +
//       multishift, then a 4-entry shuffle table for the dosage; the missing calls as a mask).
//       A thread takes up to 4 blocks at a time, chunk by chunk (gemm_amx).
//   The missing calls' term: below ~2 % of a chunk's calls, the D row of each missing call added
//   to its sample's sums (missing rows, below); else the Miss·D tile product (tiles made from the
//   masks), into the same accumulators: SΛ and D share each column's exponent, as on cuda.
// Zᵀ·Λ̃: C[variant][digit column] = Σ_samples X · digits:
//   A = dosage tiles (u8, row-major: a .bed row's 16 bytes spread to 64 samples),
//   B = digit tiles (s8, VNNI: B[r][4c + t] = digit c of sample 4r + t), once per call;
//   the missing calls' term goes to its own accumulators (it is weighted by 2p_j per row): the
//   missing rows of each variant's missing samples summed in registers, or (above ~2 %) the
//   Miss·Λ̃ tile product.
// Missing rows: the sparse sums read each value's 8 digits as four int16 pairs 128 d_2k + d_2k+1
// (|pair| ≤ 8,256), summed into int32 and then into digit sums 1, 3, 5, 7 (the same integer sums
// as one add per digit): half the conversions and adds of one int32 sum per digit, and 8 bytes a
// value, which is what a call costs, as its row is read from L2 (Zᵀ·Λ̃ at l = 32: the int64 halves
// of digits 0-3 and 4-7 this replaced read 16 bytes a value and took ~1.4× as long). Z·Λ adds
// them to each sample's sums per chunk, Zᵀ·Λ̃ sums each variant's in registers.
// Register use (8 tiles): 2 × 2 accumulators, 2 A, 2 B; every chunk's A and B tiles are read
// from L2 by all accumulator pairs. The digits and their exact column sums are those of
// core/base128_digits.hpp, so the error bound is the CUDA route's.
#include "ops/genotype_gemm/cpu_amx.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "core/base128_digits.hpp"
#include "core/cpu_dispatch.hpp"
#include "ops/genotype_gemm/stage_clock.hpp"

// GCC 12 flags the _mm512_undefined_*() inside some AVX-512 intrinsics (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// The AMX build: everything up to pop_options runs only where gemm_amx_applies() said yes.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi,amx-tile,amx-int8")
#include "core/amx_tiles.hpp"
#include "ops/genotype_gemm/amx_tile_products.hpp"

namespace pmx::kernels::cpu {
namespace {

constexpr int D = detail::base128_digits;
constexpr int64_t tile = amx_tile_bytes;
constexpr int64_t step = 64;    // reduction items per tile product
// Z·Λ blocks of 256 samples and chunks of 16 steps, with the next chunk's digit tiles prefetched
// into L2: against 512 samples and 8 steps unprefetched, 20 % faster at l = 10 on the device host
// (median of three interleaved rounds; the accumulators were reloaded every 8 steps, and the
// digit tiles came from memory on their first use in a block).
constexpr int64_t zl_block = 256, zl_tiles = zl_block / 16, zl_chunk = 16;  // samples, tiles, steps
static_assert(zl_block % 256 == 0, "zl_dosage_tiles reads 256 samples (64 bytes of a row) at a time");
constexpr int64_t zt_block = 128, zt_tiles = zt_block / 16, zt_chunk = 32;  // variants, tiles, steps

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
std::unique_ptr<T[], free_deleter> aligned_zeros(int64_t count) {
  const size_t bytes = static_cast<size_t>(std::max<int64_t>(count * static_cast<int64_t>(sizeof(T)), 64) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return std::unique_ptr<T[], free_deleter>(static_cast<T*>(p));
}

// Grow-only 64-byte aligned scratch per thread and slot, reused across calls: PCG calls the
// products hundreds of times, and fresh pages (faults, zeroing) cost as much as a small product.
// Zeroed unless the caller writes every byte it reads (`zeroed` false).
enum scratch_slot { slot_digits, slot_digits_m, slot_rows, slot_x, slot_miss, slot_masks, slot_acc, slot_acc_m, slot_acc_r, slot_acc_w, slot_lists, slot_count };
template <class T>
T* scratch(scratch_slot slot, int64_t count, bool zeroed = true) {
  struct buffer {
    std::unique_ptr<uint8_t[], free_deleter> p;
    int64_t size = 0;
  };
  static thread_local buffer slots[slot_count];
  buffer& b = slots[slot];
  const int64_t bytes = std::max<int64_t>(count * static_cast<int64_t>(sizeof(T)), 64);
  if (b.size < bytes) b.p = aligned_zeros<uint8_t>(bytes), b.size = bytes;
  if (zeroed) std::memset(b.p.get(), 0, static_cast<size_t>(bytes));
  return reinterpret_cast<T*>(b.p.get());
}

// Byte maps of the spread: output byte i = the 2-bit field at bit offset ctl[i] % 8 of source
// byte idx[i] (multishift reads 8 bits at offset ctl[i] of the qword holding byte i after the
// permute, which put source byte idx[i] at position i).
struct spread_map {
  alignas(64) uint8_t idx[64];
  alignas(64) uint8_t ctl[64];
};
// .bed bytes in sample order: byte i = field i % 4 of source byte i / 4.
constexpr spread_map row_spread() {
  spread_map m{};
  for (int i = 0; i < 64; ++i) m.idx[i] = static_cast<uint8_t>(i >> 2), m.ctl[i] = static_cast<uint8_t>(8 * (i % 8) + 2 * (i % 4));
  return m;
}
// Four dwords (variants 4r + t, 16 samples each): byte 4c + t = field c % 4 of byte c / 4 of dword t.
constexpr spread_map dword_spread() {
  spread_map m{};
  for (int i = 0; i < 64; ++i) {
    const int c = i >> 2, t = i & 3;
    m.idx[i] = static_cast<uint8_t>(4 * t + (c >> 2)), m.ctl[i] = static_cast<uint8_t>(8 * (i % 8) + 2 * (c & 3));
  }
  return m;
}
constexpr spread_map row_map = row_spread(), dword_map = dword_spread();


// Spreads 16 source bytes (as placed by `idx`) into 64 dosage bytes; returns the mask of the
// missing calls. Codes: 0 → 2, 2 → 1, 3 → 0, 1 (missing) → 0. The missing-call tiles, when a chunk
// needs them, are made from the masks (missing_tiles): storing them here as well doubled the
// stores, and most chunks take the sparse route.
inline uint64_t spread(__m512i src, __m512i idx, __m512i ctl, uint8_t* dosage) {
  const __m512i dosage_of = _mm512_broadcast_i32x4(_mm_setr_epi8(2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  const __m512i code =
      _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, _mm512_permutexvar_epi8(idx, src)), _mm512_set1_epi8(3));
  _mm512_store_si512(dosage, _mm512_shuffle_epi8(dosage_of, code));
  return _mm512_cmpeq_epi8_mask(code, _mm512_set1_epi8(1));
}

// The missing-call tiles of a chunk from its masks: byte i of tile row q is bit i of masks[q].
void missing_tiles(const uint64_t* masks, int64_t rows, uint8_t* miss) {
  const __m512i one = _mm512_set1_epi8(1);
  for (int64_t q = 0; q < rows; ++q) _mm512_store_si512(miss + 64 * q, _mm512_maskz_mov_epi8(masks[q], one));
}

inline __m512i load_bytes(const uint8_t* p, int64_t avail, int64_t want) {
  const int64_t n = std::clamp<int64_t>(avail, 0, want);
  const __mmask64 mask = n >= 64 ? ~__mmask64{0} : ((__mmask64{1} << n) - 1);
  return _mm512_maskz_loadu_epi8(mask, p);
}

// Z·Λ dosage tiles of samples [i0, i0 + zl_block) × steps [st0, st0 + nst): x[(s · zl_tiles + xt) · 1 KiB],
// and the missing-call mask of every tile row (masks[tile row], bit 4c + t: sample c of the tile,
// variant t of the row's four); returns the number of missing calls.
int64_t zl_dosage_tiles(const variant_major_view& g, int64_t i0, int64_t st0, int64_t nst, uint8_t* x,
                                 uint64_t* masks) {
  static const uint8_t zeros[64] = {};
  const int64_t used = (g.n_samples + 3) / 4;
  const __m512i ctl = _mm512_load_si512(dword_map.ctl);
  __m512i idx[4];
  for (int L = 0; L < 4; ++L) idx[L] = _mm512_add_epi8(_mm512_load_si512(dword_map.idx), _mm512_set1_epi8(char(16 * L)));
  int64_t missing = 0;
  for (int64_t s = 0; s < nst; ++s)
    for (int r = 0; r < 16; ++r) {
      const uint8_t* rows[4];
      for (int t = 0; t < 4; ++t) {
        const int64_t v = (st0 + s) * step + 4 * r + t;
        rows[t] = v < g.n_variants ? g.row(v) : nullptr;
        // The next step's rows: a block reads one line (64 bytes) per row, too little for the
        // hardware prefetchers to follow across 64 rows. The line after it is the next block's
        // (mostly the other thread's, at about the same step): without it the decode took 1.5×
        // as long (dev VM, l = 10, three interleaved rounds).
        if (v + step < g.n_variants && i0 / 4 < used) {
          const char* next = reinterpret_cast<const char*>(g.row(v + step)) + i0 / 4;
          _mm_prefetch(next, _MM_HINT_T0);
          _mm_prefetch(next + 64, _MM_HINT_T0);
        }
      }
      for (int h = 0; h < zl_block / 256; ++h) {  // 256 samples = 64 bytes per row
        const int64_t off = i0 / 4 + 64 * h;
        __m512i w[4];
        for (int t = 0; t < 4; ++t) w[t] = rows[t] ? load_bytes(rows[t] + off, used - off, 64) : load_bytes(zeros, 0, 0);
        const __m512i a0 = _mm512_unpacklo_epi32(w[0], w[1]), a1 = _mm512_unpackhi_epi32(w[0], w[1]);
        const __m512i a2 = _mm512_unpacklo_epi32(w[2], w[3]), a3 = _mm512_unpackhi_epi32(w[2], w[3]);
        // u[j], lane L: dword 4L + j of the four rows (samples 16 (4L + j) .. of this half)
        const __m512i u[4] = {_mm512_unpacklo_epi64(a0, a2), _mm512_unpackhi_epi64(a0, a2),
                              _mm512_unpacklo_epi64(a1, a3), _mm512_unpackhi_epi64(a1, a3)};
        for (int L = 0; L < 4; ++L)
          for (int j = 0; j < 4; ++j) {
            const int64_t row = (s * zl_tiles + 16 * h + 4 * L + j) * 16 + r;
            const uint64_t m = spread(u[j], idx[L], ctl, x + row * 64);
            masks[row] = m;
            missing += __builtin_popcountll(m);
          }
      }
    }
  return missing;
}

// Zᵀ·Λ̃ dosage tiles of variants [j0, j0 + 128) × steps [st0, st0 + nst): x[(s · 8 + vt) · 1 KiB],
// and the missing-call mask of every tile row (bit b: sample 64 s + b of the chunk); returns the
// number of missing calls. Step by step, so that the tile stores are sequential (variant by
// variant they were 8 KiB apart and fought over a few L1 sets).
int64_t zt_dosage_tiles(const variant_major_view& g, int64_t j0, int64_t st0, int64_t nst, uint8_t* x,
                                 uint64_t* masks) {
  static const uint8_t zeros[64] = {};
  const int64_t used = (g.n_samples + 3) / 4;
  const __m512i ctl = _mm512_load_si512(row_map.ctl), idx = _mm512_load_si512(row_map.idx);
  const int64_t rows = std::clamp<int64_t>(g.n_variants - j0, 0, zt_block);
  int64_t missing = 0;
  for (int64_t s = 0; s < nst; ++s) {
    const int64_t off = (st0 + s) * 16;
    for (int64_t q = 0; q < zt_block; ++q) {  // q = 16 vt + r: tile row (s · 8 + vt) · 16 + r
      const bool real = q < rows;
      // The same place of the next chunk into L2: 128 rows read 16 bytes at a time are too many
      // streams for the hardware prefetchers, and the decode waited on memory. And the row's next
      // line into L1 for the next four steps (median decode of three interleaved rounds, l = 10
      // on the dev VM: 54 against 65 thread-ms).
      if (real && s % 4 == 0) {
        _mm_prefetch(reinterpret_cast<const char*>(g.row(j0 + q) + off + zt_chunk * 16), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(g.row(j0 + q) + off + 64), _MM_HINT_T0);
      }
      // (spread reads the low 16 bytes only: a plain 16-byte load where the row has them)
      const __m512i src = real && used - off >= 16
                              ? _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(g.row(j0 + q) + off)))
                              : load_bytes(real ? g.row(j0 + q) + off : zeros, real ? used - off : 0, 16);
      const uint64_t m = spread(src, idx, ctl, x + (s * zt_block + q) * 64);
      masks[s * zt_block + q] = m;
      missing += __builtin_popcountll(m);
    }
  }
  return missing;
}

// Digit tiles of a product: 8 digits per column, digit column dc = 8c + s, 16 per tile.
struct digit_tiles {
  int64_t steps = 0;
  int tiles = 0;
  int64_t width = 0;     // digit columns with the padding of the last tile (16 · tiles)
  uint8_t* x = nullptr;  // thread scratch of the calling thread
  uint8_t* m = nullptr;  // Z·Λ's D digits (null for Zᵀ·Λ̃)
  // Missing rows of the last set (above: Λ̃ of each sample, D of each variant), for the sparse
  // missing-call terms, row_width entries per reduction item, pair k of column c at k · l + c
  // (zero padding to a multiple of 16).
  int16_t* pairs = nullptr;
  int64_t row_width = 0;
  std::vector<int> exponent;                        // per column
  std::vector<detail::base128_weights> weights;     // per column
  std::vector<long long> sums;                      // per digit column (D for Z·Λ, Λ̃ for Zᵀ·Λ̃)
};

int digit_tile_count(int64_t l) { return static_cast<int>((l * D + 15) / 16); }
static_assert(D == 8, "missing rows pair the digits 2 + 2 + 2 + 2");

// base128_split of 8 values at once: the same operations lane by lane, so the same digits.
inline void split8(__m512d v, __m512d scale, __m512d (&d)[D]) {
  const __m512d big = _mm512_set1_pd(0x1.8p52), radix = _mm512_set1_pd(128.0);
  __m512d r = _mm512_mul_pd(v, scale);
  for (int s = 0; s < D; ++s) {
    d[s] = _mm512_sub_pd(_mm512_add_pd(r, big), big);
    r = _mm512_mul_pd(_mm512_sub_pd(r, d[s]), radix);
  }
}

// Digit tiles of `items` reduction items × l columns, 8 items at a time (AVX-512 lanes), with Sets
// values per (item, column) that share the column's exponent: values(i0, c, v) gives v[Sets] for
// items i0 .. i0 + 7 (0 past the last item); store(tiles, i0, dc, bytes) puts the low 8 bytes of
// `bytes` (digit dc of those items) into the tiles of set 0 (x) or 1 (m). The last set's digits also
// go to its exact column sums and to the missing rows. Every tile byte is written (padding digits as 0), so
// the scratch needs no clearing; vectorised, this is ~10× the former one-value-at-a-time loop,
// which cost Z·Λ (50,000 variants, l = 32) a quarter of its time.
template <int Sets, class Values, class Store>
digit_tiles make_digits(int64_t items, int64_t l, int threads, Values values, Store store) {
  digit_tiles d;
  d.steps = (items + step - 1) / step;
  d.tiles = digit_tile_count(l);
  d.width = int64_t{d.tiles} * 16;
  d.x = scratch<uint8_t>(slot_digits, d.steps * d.tiles * tile, false);
  if (Sets == 2) d.m = scratch<uint8_t>(slot_digits_m, d.steps * d.tiles * tile, false);
  d.row_width = (4 * l + 15) / 16 * 16;
  d.pairs = scratch<int16_t>(slot_rows, d.steps * step * d.row_width, false);
  const int64_t groups = d.steps * step / 8;
  std::vector<double> mx(static_cast<size_t>(l), 0.0);
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> local(static_cast<size_t>(8 * l), 0.0);  // lane maxima per column
#pragma omp for schedule(static)
    for (int64_t gi = 0; gi < groups; ++gi)
      for (int64_t c = 0; c < l; ++c) {
        __m512d v[Sets];
        values(8 * gi, c, v);
        __m512d a = _mm512_loadu_pd(&local[8 * c]);
        for (const __m512d x : v) a = _mm512_max_pd(a, _mm512_abs_pd(x));
        _mm512_storeu_pd(&local[8 * c], a);
      }
#pragma omp critical
    for (int64_t c = 0; c < l; ++c) mx[c] = std::max(mx[c], _mm512_reduce_max_pd(_mm512_loadu_pd(&local[8 * c])));
  }
  std::vector<double> unit;
  for (double m : mx) {
    d.exponent.push_back(detail::column_exponent(m));
    d.weights.emplace_back(d.exponent.back());
    unit.push_back(detail::base128_scale(d.exponent.back()));
  }
  d.sums.assign(static_cast<size_t>(d.width), 0);
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> sums(static_cast<size_t>(8 * D * l), 0.0);  // lane sums per digit column
    const __m128i zero = _mm_setzero_si128();
#pragma omp for schedule(static)
    for (int64_t gi = 0; gi < groups; ++gi) {
      const int64_t i0 = 8 * gi;
      int16_t* pairs = d.pairs + i0 * d.row_width;
      for (int j = 0; j < 8; ++j)  // padding
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(pairs + (j + 1) * d.row_width - 16), _mm256_setzero_si256());
      for (int64_t c = 0; c < l; ++c) {
        __m512d v[Sets];
        values(i0, c, v);
        for (int set = 0; set < Sets; ++set) {
          __m512d dg[D];
          split8(v[set], _mm512_set1_pd(unit[c]), dg);
          for (int s = 0; s < D; ++s) {
            const __m128i b = _mm512_cvtepi64_epi8(_mm512_cvtpd_epi64(dg[s]));
            store(set == 0 ? d.x : d.m, i0, D * c + s, b);
            if (set == Sets - 1) {
              double* sum = &sums[8 * (D * c + s)];
              _mm512_storeu_pd(sum, _mm512_add_pd(_mm512_loadu_pd(sum), dg[s]));
            }
          }
          // The missing rows (exact: small integers in double).
          const __m512d radix = _mm512_set1_pd(128.0);
          if (set == Sets - 1) {
            for (int k = 0; k < 4; ++k) {
              alignas(16) int16_t p[8];
              _mm_store_si128(reinterpret_cast<__m128i*>(p),
                              _mm512_cvtepi64_epi16(_mm512_cvtpd_epi64(_mm512_fmadd_pd(dg[2 * k], radix, dg[2 * k + 1]))));
              for (int j = 0; j < 8; ++j) pairs[j * d.row_width + k * l + c] = p[j];
            }
          }
        }
      }
      for (int64_t dc = D * l; dc < d.width; ++dc) {
        store(d.x, i0, dc, zero);
        if constexpr (Sets == 2) store(d.m, i0, dc, zero);
      }
    }
#pragma omp critical
    for (int64_t dc = 0; dc < D * l; ++dc) d.sums[dc] += static_cast<long long>(_mm512_reduce_add_pd(_mm512_loadu_pd(&sums[8 * dc])));
  }
  return d;
}

// Column c of items i0 .. i0 + 7 of a row-major matrix with `ld` (0 past item `items`).
inline __m512d column8(const double* a, int64_t ld, int64_t items, int64_t i0, int64_t c, __mmask8& live) {
  const int64_t left = items - i0;
  live = left >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << std::max<int64_t>(left, 0)) - 1);
  const __m512i at = _mm512_add_epi64(_mm512_set1_epi64(i0 * ld + c),
                                      _mm512_mullo_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(ld)));
  return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), live, at, a, 8);
}

// Z·Λ: A tiles (row-major: A[m][q] = digit m of variant 64·step + q) of SΛ and D = diag(2p)SΛ.
struct zl_values {
  const gemm_centring& ce;
  const double* lambda;
  int64_t ld, k;
  void operator()(int64_t j0, int64_t c, __m512d (&v)[2]) const {
    __mmask8 live;
    const __m512d lam = column8(lambda, ld, k, j0, c, live);
    const __m512d s = ce.scale.empty() ? _mm512_set1_pd(1.0) : _mm512_maskz_loadu_pd(live, ce.scale.data() + j0);
    v[0] = _mm512_mul_pd(s, lam);
    v[1] = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(2.0), _mm512_maskz_loadu_pd(live, ce.p.data() + j0)), v[0]);
  }
};
struct zl_store {
  int tiles;
  void operator()(uint8_t* t, int64_t j0, int64_t dc, __m128i bytes) const {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(t + (j0 / step * tiles + dc / 16) * tile + (dc % 16) * 64 + j0 % step),
                     bytes);
  }
};
digit_tiles zl_digits(const variant_major_view& g, const gemm_centring& ce, int64_t l, const double* lambda,
                               int64_t ld, int threads) {
  return make_digits<2>(g.n_variants, l, threads, zl_values{ce, lambda, ld, g.n_variants},
                        zl_store{digit_tile_count(l)});
}

// Zᵀ·Λ̃: B tiles (VNNI: B[r][4c + t] = digit c of sample 64·step + 4r + t) of Λ̃.
struct zt_values {
  const double* lambda;
  int64_t ld, n;
  void operator()(int64_t i0, int64_t c, __m512d (&v)[1]) const {
    __mmask8 live;
    v[0] = column8(lambda, ld, n, i0, c, live);
  }
};
struct zt_store {  // samples i0 .. i0 + 7: 4 bytes in each of two tile rows
  int tiles;
  void operator()(uint8_t* t, int64_t i0, int64_t dc, __m128i bytes) const {
    uint8_t* at = t + (i0 / step * tiles + dc / 16) * tile + (i0 % step) / 4 * 64 + 4 * (dc % 16);
    const uint64_t both = static_cast<uint64_t>(_mm_cvtsi128_si64(bytes));
    std::memcpy(at, &both, 4);
    std::memcpy(at + 64, reinterpret_cast<const uint8_t*>(&both) + 4, 4);
  }
};
digit_tiles zt_digits(const variant_major_view& g, int64_t l, const double* lambda, int64_t ld, int threads) {
  return make_digits<1>(g.n_samples, l, threads, zt_values{lambda, ld, g.n_samples}, zt_store{digit_tile_count(l)});
}

// The missing calls' pair rows summed in registers, 16G entries of each row: add(at) adds the row
// starting at pairs + at.
template <int G>
struct pair_row_sum {
  const int16_t* pairs;
  __m512i a[G];
  void operator()(int64_t at) {
    for (int g = 0; g < G; ++g)
      a[g] = _mm512_add_epi32(
          a[g], _mm512_cvtepi16_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(pairs + at + 16 * g))));
  }
};

// The rows of one sample's listed missing calls in a chunk (Z·Λ: variants `vars`).
struct listed_rows {
  const int32_t* vars;
  int n;
  int64_t width;
  template <class Add>
  void operator()(Add& add) const {
    for (int q = 0; q < n; ++q) add(int64_t{vars[q]} * width);
  }
};

// The rows of one variant's missing samples in a chunk (Zᵀ·Λ̃): bit b of masks[s · stride] is
// sample 64 s + b of the chunk; only the steps with calls are visited (bit s of steps_with_calls;
// see zl_sparse_missing for why).
struct masked_rows {
  const uint64_t* masks;
  int64_t stride;
  uint64_t steps_with_calls;
  int64_t width;
  template <class Add>
  void operator()(Add& add) const {
    for (uint64_t st = steps_with_calls; st; st &= st - 1) {
      const int64_t s = __builtin_ctzll(st);
      uint64_t m = masks[s * stride];
      do add((64 * s + __builtin_ctzll(m)) * width);
      while (m &= m - 1);
    }
  }
};

// acc[0 .. 16G) (int32) += the sum of the pair rows `rows` gives, entries [0, 16G) of each.
template <int G, class Rows>
inline void pair_row_sums(const int16_t* pairs, const Rows& rows, int32_t* acc) {
  pair_row_sum<G> sum{pairs, {}};
  for (int g = 0; g < G; ++g) sum.a[g] = _mm512_setzero_si512();
  rows(sum);
  for (int g = 0; g < G; ++g) _mm512_store_si512(acc + 16 * g, _mm512_add_epi32(_mm512_load_si512(acc + 16 * g), sum.a[g]));
}

// acc[0 .. width) += the sum of the pair rows `rows` gives, up to 128 entries at a time.
template <class Rows>
void pair_row_sums(const int16_t* pairs, int64_t width, const Rows& rows, int32_t* acc) {
  for (int64_t e = 0; e < width; e += 128) {
    switch (std::min<int64_t>(128, width - e) / 16) {
      case 1: pair_row_sums<1>(pairs + e, rows, acc + e); break;
      case 2: pair_row_sums<2>(pairs + e, rows, acc + e); break;
      case 3: pair_row_sums<3>(pairs + e, rows, acc + e); break;
      case 4: pair_row_sums<4>(pairs + e, rows, acc + e); break;
      case 5: pair_row_sums<5>(pairs + e, rows, acc + e); break;
      case 6: pair_row_sums<6>(pairs + e, rows, acc + e); break;
      case 7: pair_row_sums<7>(pairs + e, rows, acc + e); break;
      default: pair_row_sums<8>(pairs + e, rows, acc + e); break;
    }
  }
}

// Zᵀ·Λ̃'s sparse missing-call term of a chunk of one block (masks [step][variant], zt_block per step).
void zt_sparse_missing(const uint64_t* masks, int64_t nst, const digit_tiles& d, int64_t st0, int32_t* Cr) {
  static_assert(zt_block % 8 == 0 && zt_chunk <= 64, "steps_with_calls: 8 variants per vector, a bit per step");
  alignas(64) uint64_t steps_with_calls[zt_block];
  for (int64_t q0 = 0; q0 < zt_block; q0 += 8) {
    __m512i bits = _mm512_setzero_si512();
    for (int64_t s = 0; s < nst; ++s) {
      const __m512i w = _mm512_load_si512(masks + s * zt_block + q0);
      bits = _mm512_mask_or_epi64(bits, _mm512_test_epi64_mask(w, w), bits, _mm512_set1_epi64(int64_t{1} << s));
    }
    _mm512_store_si512(steps_with_calls + q0, bits);
  }
  for (int64_t q = 0; q < zt_block; ++q)  // variant j0 + q
    if (steps_with_calls[q])
      pair_row_sums(d.pairs + st0 * step * d.row_width, d.row_width,
                    masked_rows{masks + q, zt_block, steps_with_calls[q], d.row_width}, Cr + q * d.row_width);
}

// Z·Λ's sparse missing-call term of a chunk of one block: the calls listed by sample (a full list
// is summed at once), then each sample's pair rows summed in registers into its int32 sums Cr: one
// read-modify-write of a sample's sums per chunk instead of one per call. A tile row's mask holds
// 16 samples × 4 variants (bit 4c + t). Only the words with calls are visited, found 64 at a time
// from a bitmap of the nonzero words: at 1 % missing half of the words are zero, and testing each
// in turn mispredicted on most of them (about 20 thread-ms of a call, whatever l).
void zl_sparse_missing(const uint64_t* masks, int64_t rows, int64_t st0, const digit_tiles& d, int32_t* lists,
                                int list_length, int* listed, int32_t* Cr) {
  std::fill_n(listed, zl_block, 0);
  for (int64_t w0 = 0; w0 < rows; w0 += 64) {  // rows: a multiple of 256
    uint64_t nonzero = 0;
    for (int q = 0; q < 8; ++q) {
      const __m512i w = _mm512_load_si512(masks + w0 + 8 * q);
      nonzero |= uint64_t{_mm512_test_epi64_mask(w, w)} << (8 * q);
    }
    for (; nonzero; nonzero &= nonzero - 1) {
      const int64_t row = w0 + __builtin_ctzll(nonzero);  // row = (s · zl_tiles + xt) · 16 + r
      const int64_t v0 = (st0 + row / (zl_tiles * 16)) * step + 4 * (row % 16), first = row / 16 % zl_tiles * 16;
      uint64_t m = masks[row];
      do {
        const int bit = __builtin_ctzll(m);
        const int64_t i = first + bit / 4;
        int32_t* list = lists + i * list_length;
        list[listed[i]++] = static_cast<int32_t>(v0 + bit % 4);
        if (listed[i] == list_length) {
          pair_row_sums(d.pairs, d.row_width, listed_rows{list, listed[i], d.row_width}, Cr + i * d.row_width);
          listed[i] = 0;
        }
      } while (m &= m - 1);
    }
  }
  for (int64_t i = 0; i < zl_block; ++i)
    if (listed[i] > 0)
      pair_row_sums(d.pairs, d.row_width, listed_rows{lists + i * list_length, listed[i], d.row_width}, Cr + i * d.row_width);
}

// The missing-call terms of a chunk: one tile product per pair of tiles (about 30 ns each from L2)
// against the pair-row adds of each missing call (l / 4 vectors): the adds win below ~2 % missing
// calls.
bool sparse_missing(int64_t missing, int64_t tile_products) { return static_cast<double>(missing) < 20.0 * tile_products; }

// One thread's buffers for a chunk of `rows` tile rows: dosage tiles, missing-call tiles (dense
// chunks only) and the missing-call mask of every tile row.
struct chunk_buffers {
  uint8_t* x;
  uint8_t* miss;
  uint64_t* masks;
  explicit chunk_buffers(int64_t rows)
      : x(scratch<uint8_t>(slot_x, rows * 64, false)),
        miss(scratch<uint8_t>(slot_miss, rows * 64, false)),
        masks(scratch<uint64_t>(slot_masks, rows, false)) {}
};

// The digit sums and weights of a call by digit: [s][c] for s < 8 and c < l padded to 8, so that
// the finish reads 8 columns' digit s as one vector.
struct digit_table {
  int64_t lp;  // l padded to 8
  std::vector<long long> sums;
  std::vector<double> weights;
  digit_table(const digit_tiles& d, int64_t l) : lp((l + 7) / 8 * 8) {
    sums.assign(static_cast<size_t>(D * lp), 0);
    weights.assign(static_cast<size_t>(D * lp), 0.0);
    for (int64_t c = 0; c < l; ++c)
      for (int s = 0; s < D; ++s) sums[s * lp + c] = d.sums[D * c + s], weights[s * lp + c] = d.weights[c].w[s];
  }
};

// W[c] for one variant (row r of tile row vt of the block), 8 columns at a time:
// s_j (A − 2p_j B) + β W, A and B from the digit sums as base128_combine does them (smallest digit
// first; each product is exact, so the fused multiply-adds round as its additions do):
//   A: digit s of column c at C[tile (vt, c / 2), row r, 8 (c % 2) + s];
//   B: the digit sums of Λ̃ less the missing calls' (Cm at the same place; pair k of the missing
//      rows, pr[k · l + c] in int32 plus pw[k · l + c] in int64 if pw is not null, at digit 2k + 1).
void zt_finish_row(const int32_t* C, const int32_t* Cm, int tiles, int64_t vt, int64_t r, const int32_t* pr,
                            const int64_t* pw, const digit_table& t, int64_t l, double sj, double two_p, double beta,
                            double* W) {
  const int64_t lp = t.lp;
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t c0 = 0; c0 < l; c0 += 8) {
    const __mmask8 live = l - c0 >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << (l - c0)) - 1);
    const __m256i c = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(c0)), lanes);
    // digit 0 of column c: tile (vt · tiles + c / 2), row r, offset 8 (c % 2)
    const __m256i at0 = _mm256_add_epi32(
        _mm256_set1_epi32(static_cast<int>((vt * tiles * 16 + r) * 16)),
        _mm256_add_epi32(_mm256_slli_epi32(_mm256_srli_epi32(c, 1), 8), _mm256_slli_epi32(_mm256_and_si256(c, _mm256_set1_epi32(1)), 3)));
    __m512d a = _mm512_setzero_pd(), b = _mm512_setzero_pd();
    for (int s = D - 1; s >= 0; --s) {
      const __m256i at = _mm256_add_epi32(at0, _mm256_set1_epi32(s));
      const __m256i x = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), live, at, C, 4);
      const __m256i m = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), live, at, Cm, 4);
      __m512i called = _mm512_sub_epi64(_mm512_loadu_si512(&t.sums[s * lp + c0]), _mm512_cvtepi32_epi64(m));
      if (s % 2 == 1) {
        const int64_t at = s / 2 * l + c0;
        called = _mm512_sub_epi64(called, _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(live, pr + at)));
        if (pw) called = _mm512_sub_epi64(called, _mm512_maskz_loadu_epi64(live, pw + at));
      }
      const __m512d w = _mm512_loadu_pd(&t.weights[s * lp + c0]);
      a = _mm512_fmadd_pd(_mm512_cvtepi32_pd(x), w, a);
      b = _mm512_fmadd_pd(_mm512_cvtepi64_pd(called), w, b);
    }
    __m512d y = _mm512_mul_pd(_mm512_set1_pd(sj), _mm512_sub_pd(a, _mm512_mul_pd(_mm512_set1_pd(two_p), b)));
    if (beta != 0) y = _mm512_add_pd(y, _mm512_mul_pd(_mm512_set1_pd(beta), _mm512_maskz_loadu_pd(live, W + c0)));
    _mm512_mask_storeu_pd(W + c0, live, y);
  }
}

int threads_of(const executor& exec) { return exec.threads() > 0 ? exec.threads() : omp_get_max_threads(); }

bool profiling = false;
amx_stage_times profile_sum;

// One thread's stage times of a call, added to the profile when the thread is done.
struct thread_profile {
  amx_stage_times t;
  stage_clock<amx_stage_times> clock{profiling ? &t : nullptr};
  ~thread_profile() {
    if (!profiling) return;
#pragma omp critical
    {
      profile_sum.decode += t.decode, profile_sum.products += t.products;
      profile_sum.missing += t.missing, profile_sum.finish += t.finish;
    }
  }
};

// The digits of a call (built on all threads): wall time × threads.
template <class Build>
digit_tiles timed_digits(int threads, Build build) {
  const auto t0 = std::chrono::steady_clock::now();
  digit_tiles d = build();
  if (profiling) profile_sum.digits += threads * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

}  // namespace

void gemm_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring, int64_t l,
              const double* lambda, int64_t ld_lambda, double beta, double* Y, int64_t ld_y) {
  const int64_t n = g.n_samples;
  if (l == 0 || n == 0) return;
  const int threads = threads_of(exec);
  const digit_tiles d = timed_digits(threads, [&] { return zl_digits(g, centring, l, lambda, ld_lambda, threads); });
  const int64_t blocks = (n + zl_block - 1) / zl_block, chunk_rows = zl_chunk * zl_tiles * 16;
  // A thread takes zl_group blocks at a time, chunk by chunk: a row's lines of the group are read by
  // one thread within a chunk (each block's decode prefetches the next block's line with its own),
  // and a chunk's digit tiles and pair rows come from memory once for all of them. Up to 4 blocks
  // while their sums fit in ~2 MiB. l = 32 on the dev VM, medians of five interleaved rounds,
  // thread-ms, 4 blocks against 1: decode 67 / 116, tile products 211 / 318, missing 80 / 118.
  const int64_t c_size = int64_t{d.tiles} * zl_tiles * 256, r_size = zl_block * d.row_width;  // int32s per block
  const int64_t zl_group = std::clamp<int64_t>((2 << 20) / (4 * (c_size + r_size)), 1, 4);
  const int64_t groups = (blocks + zl_group - 1) / zl_group;
#pragma omp parallel num_threads(threads)
  {
    detail::amx_configure_full_tiles();
    thread_profile prof;
    const auto [x, miss, masks] = chunk_buffers(chunk_rows);
    int32_t* const C = scratch<int32_t>(slot_acc, zl_group * c_size);
    // Sparse missing terms, [sample][pair row]: int32 sums of |pair| ≤ 8,256 are safe for 260,000
    // calls, so they move to int64 (Cw, cleared on first use) before a block's missing calls could
    // pass that.
    int32_t* const Cr = scratch<int32_t>(slot_acc_r, zl_group * r_size);
    int64_t* const Cw = scratch<int64_t>(slot_acc_w, zl_group * r_size, false);
    constexpr int64_t safe_calls = 260'000;
    constexpr int list_length = 32;  // missing calls per sample listed before they are summed
    int32_t* lists = scratch<int32_t>(slot_lists, zl_block * list_length, false);
    int listed[zl_block];
    int64_t in_cr[4];  // per block: missing calls summed in Cr since it was last moved to Cw
    bool wide[4];      // per block: Cw in use
#pragma omp for schedule(dynamic, 1)
    for (int64_t gr = 0; gr < groups; ++gr) {
      const int64_t b0 = gr * zl_group, nb = std::min(zl_group, blocks - b0);
      std::memset(C, 0, static_cast<size_t>(nb * c_size * 4));
      std::memset(Cr, 0, static_cast<size_t>(nb * r_size * 4));
      std::fill_n(in_cr, 4, 0);
      std::fill_n(wide, 4, false);
      prof.clock.lap(&amx_stage_times::finish);
      for (int64_t st0 = 0; st0 < d.steps; st0 += zl_chunk) {
        const int64_t nst = std::min(zl_chunk, d.steps - st0);
        const int64_t as = int64_t{d.tiles} * tile;
        if (st0 + zl_chunk < d.steps) {  // the next chunk's digit tiles, into L2
          const char* next = reinterpret_cast<const char*>(d.x + (st0 + zl_chunk) * as);
          const int64_t lines = std::min(zl_chunk, d.steps - st0 - zl_chunk) * as / 64;
          for (int64_t q = 0; q < lines; ++q) _mm_prefetch(next + 64 * q, _MM_HINT_T1);
        }
        for (int64_t h = 0; h < nb; ++h) {
          int32_t* const Ch = C + h * c_size;
          int32_t* const Crh = Cr + h * r_size;
          const int64_t missing = zl_dosage_tiles(g, (b0 + h) * zl_block, st0, nst, x, masks);
          prof.clock.lap(&amx_stage_times::decode);
          tile_products<true>(d.x + st0 * as, as, d.tiles, x, zl_tiles * tile, zl_tiles, nst, Ch);
          prof.clock.lap(&amx_stage_times::products);
          if (missing == 0) continue;
          if (!sparse_missing(missing, nst * d.tiles * zl_tiles)) {
            missing_tiles(masks, nst * zl_tiles * 16, miss);
            tile_products<true>(d.m + st0 * as, as, d.tiles, miss, zl_tiles * tile, zl_tiles, nst, Ch);
            prof.clock.lap(&amx_stage_times::missing);
            continue;
          }
          if (in_cr[h] + missing > safe_calls) {
            int64_t* const Cwh = Cw + h * r_size;
            if (!wide[h]) std::memset(Cwh, 0, static_cast<size_t>(r_size * 8)), wide[h] = true;
            for (int64_t e = 0; e < r_size; ++e) Cwh[e] += Crh[e], Crh[e] = 0;
            in_cr[h] = 0;
          }
          in_cr[h] += missing;
          zl_sparse_missing(masks, nst * zl_tiles * 16, st0, d, lists, list_length, listed, Crh);
          prof.clock.lap(&amx_stage_times::missing);
        }
      }
      for (int64_t h = 0; h < nb; ++h) {
        const int64_t i0 = (b0 + h) * zl_block;
        const int32_t* const Ch = C + h * c_size;
        const int32_t* const Crh = Cr + h * r_size;
        const int64_t* const Cwh = Cw + h * r_size;
        for (int64_t i = i0; i < std::min(n, i0 + zl_block); ++i) {
          const int64_t xt = (i - i0) / 16, q = (i - i0) % 16;
          for (int64_t c = 0; c < l; ++c) {
            long long v[D];
            for (int s = 0; s < D; ++s) {
              const int64_t dc = D * c + s;
              v[s] = static_cast<long long>(Ch[((dc / 16 * zl_tiles + xt) * 16 + dc % 16) * 16 + q]) - d.sums[dc];
            }
            const int64_t at = (i - i0) * d.row_width;
            for (int k = 0; k < 4; ++k) v[2 * k + 1] += Crh[at + k * l + c] + (wide[h] ? Cwh[at + k * l + c] : 0);
            const double y = detail::base128_combine(v, d.weights[c]);
            double& o = Y[i * ld_y + c];
            o = beta == 0 ? y : y + beta * o;
          }
        }
      }
      prof.clock.lap(&amx_stage_times::finish);
    }
    detail::amx_release_tiles();
  }
}

void gemm_transposed_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring,
                         int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  const int64_t k = g.n_variants;
  if (l == 0 || k == 0) return;
  const int threads = threads_of(exec);
  const digit_tiles d = timed_digits(threads, [&] { return zt_digits(g, l, lambda, ld_lambda, threads); });
  const digit_table by_digit(d, l);
  const int64_t blocks = (k + zt_block - 1) / zt_block, chunk_rows = zt_chunk * zt_block;
#pragma omp parallel num_threads(threads)
  {
    detail::amx_configure_full_tiles();
    thread_profile prof;
    const auto [x, miss, masks] = chunk_buffers(chunk_rows);
    int32_t* C = scratch<int32_t>(slot_acc, zt_tiles * d.tiles * 256);
    int32_t* Cm = scratch<int32_t>(slot_acc_m, zt_tiles * d.tiles * 256);  // dense chunks: [vt][dt][r][16]
    // Sparse chunks, [variant][pair row]: int32 sums of |pair| ≤ 8,256 are safe for 260,000 calls,
    // so they move to int64 (Cw, cleared on first use) before the samples summed could pass that.
    int32_t* Cr = scratch<int32_t>(slot_acc_r, zt_block * d.row_width);
    int64_t* Cw = scratch<int64_t>(slot_acc_w, zt_block * d.row_width, false);
    constexpr int64_t safe_calls = 260'000;
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t j0 = b * zt_block;
      std::memset(C, 0, static_cast<size_t>(zt_tiles * d.tiles * tile));
      std::memset(Cm, 0, static_cast<size_t>(zt_tiles * d.tiles * tile));
      std::memset(Cr, 0, static_cast<size_t>(zt_block * d.row_width * 4));
      int64_t in_cr = 0;  // samples whose missing calls were summed in Cr since it last moved to Cw
      bool wide = false;  // Cw in use
      prof.clock.lap(&amx_stage_times::finish);
      for (int64_t st0 = 0; st0 < d.steps; st0 += zt_chunk) {
        const int64_t nst = std::min(zt_chunk, d.steps - st0);
        const int64_t missing = zt_dosage_tiles(g, j0, st0, nst, x, masks);
        prof.clock.lap(&amx_stage_times::decode);
        const int64_t bs = int64_t{d.tiles} * tile;
        tile_products<false>(x, zt_tiles * tile, zt_tiles, d.x + st0 * bs, bs, d.tiles, nst, C);
        prof.clock.lap(&amx_stage_times::products);
        if (missing == 0) continue;
        if (!sparse_missing(missing, nst * zt_tiles * d.tiles)) {
          missing_tiles(masks, nst * zt_block, miss);
          tile_products<false>(miss, zt_tiles * tile, zt_tiles, d.x + st0 * bs, bs, d.tiles, nst, Cm);
        } else {
          if (in_cr + nst * step > safe_calls) {
            if (!wide) std::memset(Cw, 0, static_cast<size_t>(zt_block * d.row_width * 8)), wide = true;
            for (int64_t e = 0; e < zt_block * d.row_width; ++e) Cw[e] += Cr[e], Cr[e] = 0;
            in_cr = 0;
          }
          in_cr += nst * step;
          zt_sparse_missing(masks, nst, d, st0, Cr);
        }
        prof.clock.lap(&amx_stage_times::missing);
      }
      for (int64_t j = j0; j < std::min(k, j0 + zt_block); ++j) {
        const double sj = centring.scale.empty() ? 1.0 : centring.scale[j], two_p = 2.0 * centring.p[j];
        const int64_t at = (j - j0) * d.row_width;
        zt_finish_row(C, Cm, d.tiles, (j - j0) / 16, (j - j0) % 16, Cr + at, wide ? Cw + at : nullptr, by_digit, l,
                      sj, two_p, beta, W + j * ld_w);
      }
      prof.clock.lap(&amx_stage_times::finish);
    }
    detail::amx_release_tiles();
  }
}

}  // namespace pmx::kernels::cpu

#pragma GCC pop_options

// Baseline code: the run-time check and the profiling switches run on any CPU.
namespace pmx::kernels::cpu {

void set_amx_profiling(bool on) { profiling = on; }
amx_stage_times amx_profile() { return profile_sum; }
void reset_amx_profile() { profile_sum = {}; }

bool gemm_amx_applies(int64_t reduction_length) {
  if (reduction_length >= 16'000'000 || !amx_int8_usable()) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

}  // namespace pmx::kernels::cpu
