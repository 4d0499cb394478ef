// AMX-INT8 route of the cpu genotype products (cpu_amx.hpp). Tiles are 16 rows × 64 int8 (A, B)
// and 16 × 16 int32 (C); one TDPB*D adds 16 × 16 × 64 products.
//
// Z·Λ is computed transposed, Cᵀ[digit column][sample] = Σ_variants digits · Xᵀ:
//   A = digit tiles (s8, row-major: A[m][q] = digit m of variant 64·step + q),
//   B = dosage tiles (u8, VNNI order: B[r][4c + t] = x of sample c at variant 4r + t), built per
//       block of 512 samples and chunk of 1,024 variants from the .bed rows: 4 rows' words are
//       transposed (dword unpacks) and each 16-byte group spread to 64 bytes (VBMI permute +
//       multishift, then a 4-entry shuffle table for the dosage and one for the missing flag).
//   The Miss·D product (only for chunks with a missing call) adds into the same accumulators:
//   SΛ and D share each column's exponent, as on cuda.
// Zᵀ·Λ̃: C[variant][digit column] = Σ_samples X · digits:
//   A = dosage tiles (u8, row-major: a .bed row's 16 bytes spread to 64 samples),
//   B = digit tiles (s8, VNNI: B[r][4c + t] = digit c of sample 4r + t), once per call;
//   the missing calls' product goes to its own accumulators (it is weighted by 2p_j per row).
// Register use (8 tiles): 2 × 2 accumulators, 2 A, 2 B; every chunk's A and B tiles are read
// from L2 by all accumulator pairs. The digits and their exact column sums are those of
// core/base128_digits.hpp, so the error bound is the CUDA route's.
#include "ops/genotype_gemm/cpu_amx.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "core/amx_tiles.hpp"
#include "core/base128_digits.hpp"
#include "core/cpu_dispatch.hpp"

// GCC 12 flags the _mm512_undefined_*() inside some AVX-512 intrinsics (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace pmx::kernels::cpu {
namespace {

constexpr int D = detail::base128_digits;
constexpr int64_t tile = 1024;  // bytes of an int8 tile (16 × 64) or an int32 tile (16 × 16)
constexpr int64_t step = 64;    // reduction items per tile product
constexpr int64_t zl_block = 512, zl_tiles = zl_block / 16, zl_chunk = 8;  // samples, tiles, steps
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

// Grow-only 64-byte aligned scratch per thread and slot, zeroed, reused across calls: PCG calls the
// products hundreds of times, and fresh pages (faults, zeroing) cost as much as a small product.
enum scratch_slot { slot_digits, slot_digits_m, slot_rows, slot_x, slot_miss, slot_acc, slot_acc_m, slot_count };
template <class T>
T* scratch(scratch_slot slot, int64_t count) {
  struct buffer {
    std::unique_ptr<uint8_t[], free_deleter> p;
    int64_t size = 0;
  };
  static thread_local buffer slots[slot_count];
  buffer& b = slots[slot];
  const int64_t bytes = std::max<int64_t>(count * static_cast<int64_t>(sizeof(T)), 64);
  if (b.size < bytes) b.p = aligned_zeros<uint8_t>(bytes), b.size = bytes;
  std::memset(b.p.get(), 0, static_cast<size_t>(bytes));
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

#define PMX_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// Spreads 16 source bytes (as placed by `idx`) into 64 dosage bytes and 64 missing flags; returns
// the mask of the missing calls. Codes: 0 → 2, 2 → 1, 3 → 0, 1 (missing) → 0.
PMX_VBMI inline uint64_t spread(__m512i src, __m512i idx, __m512i ctl, uint8_t* dosage, uint8_t* missing) {
  const __m512i dosage_of = _mm512_broadcast_i32x4(_mm_setr_epi8(2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  const __m512i missing_of = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  const __m512i code =
      _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, _mm512_permutexvar_epi8(idx, src)), _mm512_set1_epi8(3));
  const __m512i m = _mm512_shuffle_epi8(missing_of, code);
  _mm512_store_si512(dosage, _mm512_shuffle_epi8(dosage_of, code));
  _mm512_store_si512(missing, m);
  return _mm512_test_epi8_mask(m, m);
}

// Missing calls met while building a chunk's dosage tiles: (row of the block << 16) | reduction
// item of the chunk.
using missing_list = std::vector<uint32_t>;
inline void note_missing(uint64_t mask, uint32_t row_of_bit0, int row_shift_per4, uint32_t item_of_bit0,
                         missing_list& out) {
  // bit b: Z·Λ (row_shift_per4 = 1): sample c = b / 4 (row), variant t = b % 4 (item);
  //        Zᵀ·Λ̃ (row_shift_per4 = 0): sample b (item).
  while (mask) {
    const int b = __builtin_ctzll(mask);
    mask &= mask - 1;
    const uint32_t row = row_of_bit0 + (row_shift_per4 ? static_cast<uint32_t>(b >> 2) : 0u);
    const uint32_t item = item_of_bit0 + (row_shift_per4 ? static_cast<uint32_t>(b & 3) : static_cast<uint32_t>(b));
    out.push_back(row << 16 | item);
  }
}

PMX_VBMI inline __m512i load_bytes(const uint8_t* p, int64_t avail, int64_t want) {
  const int64_t n = std::clamp<int64_t>(avail, 0, want);
  const __mmask64 mask = n >= 64 ? ~__mmask64{0} : ((__mmask64{1} << n) - 1);
  return _mm512_maskz_loadu_epi8(mask, p);
}

// Z·Λ dosage tiles of samples [i0, i0 + 512) × steps [st0, st0 + nst): x[(s · 32 + xt) · 1 KiB],
// the missing-call tiles likewise, and the list of the missing calls (sample of the block, variant
// of the chunk).
PMX_VBMI void zl_dosage_tiles(const variant_major_view& g, int64_t i0, int64_t st0, int64_t nst, uint8_t* x,
                              uint8_t* miss, missing_list& missing) {
  static const uint8_t zeros[64] = {};
  const int64_t used = (g.n_samples + 3) / 4;
  const __m512i ctl = _mm512_load_si512(dword_map.ctl);
  __m512i idx[4];
  for (int L = 0; L < 4; ++L) idx[L] = _mm512_add_epi8(_mm512_load_si512(dword_map.idx), _mm512_set1_epi8(char(16 * L)));
  missing.clear();
  for (int64_t s = 0; s < nst; ++s)
    for (int r = 0; r < 16; ++r) {
      const uint8_t* rows[4];
      for (int t = 0; t < 4; ++t) {
        const int64_t v = (st0 + s) * step + 4 * r + t;
        rows[t] = v < g.n_variants ? g.row(v) : nullptr;
        // The next step's rows: a block reads 128 bytes per row, too little for the hardware
        // prefetchers to follow across 64 rows.
        if (v + step < g.n_variants && i0 / 4 < used) {
          const char* next = reinterpret_cast<const char*>(g.row(v + step)) + i0 / 4;
          _mm_prefetch(next, _MM_HINT_T0);
          _mm_prefetch(next + 64, _MM_HINT_T0);
        }
      }
      for (int h = 0; h < 2; ++h) {  // 256 samples = 64 bytes per row
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
            const int64_t xt = 16 * h + 4 * L + j, at = (s * zl_tiles + xt) * tile + r * 64;
            if (const uint64_t m = spread(u[j], idx[L], ctl, x + at, miss + at))
              note_missing(m, static_cast<uint32_t>(16 * xt), 1, static_cast<uint32_t>(s * step + 4 * r), missing);
          }
      }
    }
}

// Zᵀ·Λ̃ dosage tiles of variants [j0, j0 + 128) × steps [st0, st0 + nst): x[(s · 8 + vt) · 1 KiB],
// the missing-call tiles likewise, and the list of the missing calls (variant of the block, sample
// of the chunk).
PMX_VBMI void zt_dosage_tiles(const variant_major_view& g, int64_t j0, int64_t st0, int64_t nst, uint8_t* x,
                              uint8_t* miss, missing_list& missing) {
  static const uint8_t zeros[64] = {};
  const int64_t used = (g.n_samples + 3) / 4;
  const __m512i ctl = _mm512_load_si512(row_map.ctl), idx = _mm512_load_si512(row_map.idx);
  missing.clear();
  for (int64_t vt = 0; vt < zt_tiles; ++vt)
    for (int r = 0; r < 16; ++r) {
      const int64_t v = j0 + 16 * vt + r;
      const uint8_t* row = v < g.n_variants ? g.row(v) : zeros;
      const int64_t avail = v < g.n_variants ? used : 0;
      for (int64_t s = 0; s < nst; ++s) {
        const int64_t off = (st0 + s) * 16, at = (s * zt_tiles + vt) * tile + r * 64;
        if (const uint64_t m = spread(load_bytes(row + (avail ? off : 0), avail - off, 16), idx, ctl, x + at, miss + at))
          note_missing(m, static_cast<uint32_t>(16 * vt + r), 0, static_cast<uint32_t>(s * step), missing);
      }
    }
}

// Accumulator tiles C[a][b] (row-major over na × nb tiles) += Σ_{s < steps} A[s · as + a KiB] ·
// B[s · bs + b KiB] for a in [a0, a0 + MA), b in [b0, b0 + MB) (MA, MB ∈ {1, 2}): up to 2 × 2
// accumulators (tiles 0-3), A in tiles 4-5, B in tiles 6-7. A signed (digits) and B unsigned
// (dosages), or the other way round.
template <bool a_signed, int MA, int MB>
__attribute__((target("amx-tile,amx-int8"))) inline void tile_block(const uint8_t* A, int64_t as, const uint8_t* B,
                                                                   int64_t bs, int64_t steps, int32_t* C, int nb,
                                                                   int a0, int b0) {
  int32_t* c0 = C + (int64_t{a0} * nb + b0) * 256;
  int32_t* c1 = c0 + int64_t{nb} * 256;
  _tile_loadd(0, c0, 64);
  if constexpr (MB == 2) _tile_loadd(1, c0 + 256, 64);
  if constexpr (MA == 2) _tile_loadd(2, c1, 64);
  if constexpr (MA == 2 && MB == 2) _tile_loadd(3, c1 + 256, 64);
  for (int64_t s = 0; s < steps; ++s) {
    const uint8_t* ap = A + s * as + a0 * tile;
    const uint8_t* bp = B + s * bs + b0 * tile;
    _tile_loadd(4, ap, 64);
    _tile_loadd(6, bp, 64);
    if constexpr (MB == 2) _tile_loadd(7, bp + tile, 64);
    if constexpr (MA == 2) _tile_loadd(5, ap + tile, 64);
    if constexpr (a_signed) {
      _tile_dpbsud(0, 4, 6);
      if constexpr (MB == 2) _tile_dpbsud(1, 4, 7);
      if constexpr (MA == 2) _tile_dpbsud(2, 5, 6);
      if constexpr (MA == 2 && MB == 2) _tile_dpbsud(3, 5, 7);
    } else {
      _tile_dpbusd(0, 4, 6);
      if constexpr (MB == 2) _tile_dpbusd(1, 4, 7);
      if constexpr (MA == 2) _tile_dpbusd(2, 5, 6);
      if constexpr (MA == 2 && MB == 2) _tile_dpbusd(3, 5, 7);
    }
  }
  _tile_stored(0, c0, 64);
  if constexpr (MB == 2) _tile_stored(1, c0 + 256, 64);
  if constexpr (MA == 2) _tile_stored(2, c1, 64);
  if constexpr (MA == 2 && MB == 2) _tile_stored(3, c1 + 256, 64);
}

// C (na × nb tiles) += Σ_s A[s] · B[s] over all tile pairs, 2 × 2 blocks and the odd row / column.
template <bool a_signed>
__attribute__((target("amx-tile,amx-int8"))) void tile_products(const uint8_t* A, int64_t as, int na, const uint8_t* B,
                                                                int64_t bs, int nb, int64_t steps, int32_t* C) {
  detail::amx_memory_barrier();
  for (int a = 0; a < na; a += 2)
    for (int b = 0; b < nb; b += 2) {
      const bool two_a = a + 1 < na, two_b = b + 1 < nb;
      if (two_a && two_b) tile_block<a_signed, 2, 2>(A, as, B, bs, steps, C, nb, a, b);
      else if (two_a) tile_block<a_signed, 2, 1>(A, as, B, bs, steps, C, nb, a, b);
      else if (two_b) tile_block<a_signed, 1, 2>(A, as, B, bs, steps, C, nb, a, b);
      else tile_block<a_signed, 1, 1>(A, as, B, bs, steps, C, nb, a, b);
    }
  detail::amx_memory_barrier();
}

// Digit tiles of a product: 8 digits per column, digit column dc = 8c + s, 16 per tile.
struct digit_tiles {
  int64_t steps = 0;
  int tiles = 0;
  uint8_t* x = nullptr;  // thread scratch of the calling thread
  uint8_t* m = nullptr;  // Z·Λ's D digits (null for Zᵀ·Λ̃)
  // The digits that missing calls pick, one row of tiles · 16 per reduction item (Z·Λ: D of each
  // variant; Zᵀ·Λ̃: Λ̃ of each sample), for the sparse route of the missing-call terms.
  int8_t* rows = nullptr;
  std::vector<int> exponent;                        // per column
  std::vector<detail::base128_weights> weights;     // per column
  std::vector<long long> sums;                      // per digit column (D for Z·Λ, Λ̃ for Zᵀ·Λ̃)
};

int digit_tile_count(int64_t l) { return static_cast<int>((l * D + 15) / 16); }

// Digit tiles of `items` reduction items × l columns, with Sets values per (item, column) that
// share each column's exponent: values(i, c, v) fills v[Sets]; set 0 goes to the x tiles at
// offset(i, dc), set 1 (if any) to the m tiles there; the last set is the one missing calls pick
// (rows, and its exact column sums).
template <int Sets, class Values, class Offset>
digit_tiles make_digits(int64_t items, int64_t l, int threads, Values values, Offset offset) {
  digit_tiles d;
  d.steps = (items + step - 1) / step;
  d.tiles = digit_tile_count(l);
  d.x = scratch<uint8_t>(slot_digits, d.steps * d.tiles * tile);
  if (Sets == 2) d.m = scratch<uint8_t>(slot_digits_m, d.steps * d.tiles * tile);
  d.rows = scratch<int8_t>(slot_rows, items * d.tiles * 16);
  d.sums.assign(static_cast<size_t>(d.tiles * 16), 0);
  std::vector<double> mx(static_cast<size_t>(l), 0.0);
  for (int64_t i = 0; i < items; ++i)
    for (int64_t c = 0; c < l; ++c) {
      double v[Sets];
      values(i, c, v);
      for (double x : v) mx[c] = std::max(mx[c], std::fabs(x));
    }
  std::vector<double> unit;
  for (double m : mx) {
    d.exponent.push_back(detail::column_exponent(m));
    d.weights.emplace_back(d.exponent.back());
    unit.push_back(detail::base128_scale(d.exponent.back()));
  }
#pragma omp parallel num_threads(threads)
  {
    std::vector<long long> sums(d.sums.size(), 0);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < items; ++i)
      for (int64_t c = 0; c < l; ++c) {
        double v[Sets];
        values(i, c, v);
        int dg[Sets][D];
        for (int q = 0; q < Sets; ++q) detail::base128_split(v[q], unit[c], dg[q]);
        for (int s = 0; s < D; ++s) {
          const int64_t dc = D * c + s, at = offset(i, dc);
          d.x[at] = static_cast<uint8_t>(dg[0][s]);
          if constexpr (Sets == 2) d.m[at] = static_cast<uint8_t>(dg[1][s]);
          d.rows[i * d.tiles * 16 + dc] = static_cast<int8_t>(dg[Sets - 1][s]);
          sums[dc] += dg[Sets - 1][s];
        }
      }
#pragma omp critical
    for (size_t q = 0; q < sums.size(); ++q) d.sums[q] += sums[q];
  }
  return d;
}

// Z·Λ: A tiles (row-major: A[m][q] = digit m of variant 64·step + q) of SΛ and D = diag(2p)SΛ.
digit_tiles zl_digits(const variant_major_view& g, const gemm_centring& ce, int64_t l, const double* lambda,
                      int64_t ld, int threads) {
  const int tiles = digit_tile_count(l);
  return make_digits<2>(
      g.n_variants, l, threads,
      [&](int64_t j, int64_t c, double (&v)[2]) {
        v[0] = (ce.scale.empty() ? 1.0 : ce.scale[j]) * lambda[j * ld + c];
        v[1] = (2.0 * ce.p[j]) * v[0];
      },
      [&](int64_t j, int64_t dc) { return (j / step * tiles + dc / 16) * tile + (dc % 16) * 64 + j % step; });
}

// Zᵀ·Λ̃: B tiles (VNNI: B[r][4c + t] = digit c of sample 64·step + 4r + t) of Λ̃.
digit_tiles zt_digits(const variant_major_view& g, int64_t l, const double* lambda, int64_t ld, int threads) {
  const int tiles = digit_tile_count(l);
  return make_digits<1>(
      g.n_samples, l, threads, [&](int64_t i, int64_t c, double (&v)[1]) { v[0] = lambda[i * ld + c]; },
      [&](int64_t i, int64_t dc) {
        return (i / step * tiles + dc / 16) * tile + (i % step) / 4 * 64 + 4 * (dc % 16) + i % 4;
      });
}

// acc[0 .. 16·tiles) += digits[0 .. 16·tiles) (int8 → int32), 16 at a time; `stride` int32s
// between the 16-column groups of acc (16 when contiguous).
PMX_VBMI inline void add_digits(const int8_t* digits, int tiles, int32_t* acc, int64_t stride) {
  for (int dt = 0; dt < tiles; ++dt) {
    const __m512i v = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(digits + 16 * dt)));
    int32_t* a = acc + dt * stride;
    _mm512_storeu_si512(a, _mm512_add_epi32(_mm512_loadu_si512(a), v));
  }
}

// The missing-call terms of a chunk: one tile product per pair of tiles (about 30 ns each from L2)
// against one 16-digit add per digit tile and missing call (about 1.5 ns): the adds win below
// ~2 % missing calls.
bool sparse_missing(size_t missing, int64_t tile_products) { return static_cast<double>(missing) < 20.0 * tile_products; }

int threads_of(const executor& exec) { return exec.threads() > 0 ? exec.threads() : omp_get_max_threads(); }

}  // namespace

bool gemm_amx_applies(int64_t reduction_length) {
  if (reduction_length >= 16'000'000 || !amx_int8_usable()) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vbmi");
}

void gemm_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring, int64_t l,
              const double* lambda, int64_t ld_lambda, double beta, double* Y, int64_t ld_y) {
  const int64_t n = g.n_samples;
  if (l == 0 || n == 0) return;
  const int threads = threads_of(exec);
  const digit_tiles d = zl_digits(g, centring, l, lambda, ld_lambda, threads);
  const int64_t blocks = (n + zl_block - 1) / zl_block;
#pragma omp parallel num_threads(threads)
  {
    detail::amx_configure_full_tiles();
    uint8_t* x = scratch<uint8_t>(slot_x, zl_chunk * zl_tiles * tile);
    uint8_t* miss = scratch<uint8_t>(slot_miss, zl_chunk * zl_tiles * tile);
    int32_t* C = scratch<int32_t>(slot_acc, int64_t{d.tiles} * zl_tiles * 256);
    int32_t* Cs = scratch<int32_t>(slot_acc_m, zl_block * d.tiles * 16);  // sparse missing terms, [sample][dc]
    missing_list missing;
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t i0 = b * zl_block;
      std::memset(C, 0, static_cast<size_t>(d.tiles * zl_tiles * tile));
      std::memset(Cs, 0, static_cast<size_t>(zl_block * d.tiles * 16 * 4));
      for (int64_t st0 = 0; st0 < d.steps; st0 += zl_chunk) {
        const int64_t nst = std::min(zl_chunk, d.steps - st0);
        zl_dosage_tiles(g, i0, st0, nst, x, miss, missing);
        const int64_t as = int64_t{d.tiles} * tile;
        tile_products<true>(d.x + st0 * as, as, d.tiles, x, zl_tiles * tile, zl_tiles, nst, C);
        if (missing.empty()) continue;
        if (!sparse_missing(missing.size(), nst * d.tiles * zl_tiles)) {
          tile_products<true>(d.m + st0 * as, as, d.tiles, miss, zl_tiles * tile, zl_tiles, nst, C);
          continue;
        }
        for (const uint32_t hit : missing) {
          const int64_t sample = hit >> 16, variant = st0 * step + (hit & 0xFFFF);
          add_digits(d.rows + variant * d.tiles * 16, d.tiles, Cs + sample * d.tiles * 16, 16);
        }
      }
      for (int64_t i = i0; i < std::min(n, i0 + zl_block); ++i) {
        const int64_t xt = (i - i0) / 16, q = (i - i0) % 16;
        for (int64_t c = 0; c < l; ++c) {
          long long v[D];
          for (int s = 0; s < D; ++s) {
            const int64_t dc = D * c + s;
            v[s] = static_cast<long long>(C[((dc / 16 * zl_tiles + xt) * 16 + dc % 16) * 16 + q]) +
                   Cs[(i - i0) * d.tiles * 16 + dc] - d.sums[dc];
          }
          const double y = detail::base128_combine(v, d.weights[c]);
          double& o = Y[i * ld_y + c];
          o = beta == 0 ? y : y + beta * o;
        }
      }
    }
    detail::amx_release_tiles();
  }
}

void gemm_transposed_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring,
                         int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  const int64_t k = g.n_variants;
  if (l == 0 || k == 0) return;
  const int threads = threads_of(exec);
  const digit_tiles d = zt_digits(g, l, lambda, ld_lambda, threads);
  const int64_t blocks = (k + zt_block - 1) / zt_block;
#pragma omp parallel num_threads(threads)
  {
    detail::amx_configure_full_tiles();
    uint8_t* x = scratch<uint8_t>(slot_x, zt_chunk * zt_tiles * tile);
    uint8_t* miss = scratch<uint8_t>(slot_miss, zt_chunk * zt_tiles * tile);
    int32_t* C = scratch<int32_t>(slot_acc, zt_tiles * d.tiles * 256);
    int32_t* Cm = scratch<int32_t>(slot_acc_m, zt_tiles * d.tiles * 256);
    missing_list missing;
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t j0 = b * zt_block;
      std::memset(C, 0, static_cast<size_t>(zt_tiles * d.tiles * tile));
      std::memset(Cm, 0, static_cast<size_t>(zt_tiles * d.tiles * tile));
      for (int64_t st0 = 0; st0 < d.steps; st0 += zt_chunk) {
        const int64_t nst = std::min(zt_chunk, d.steps - st0);
        zt_dosage_tiles(g, j0, st0, nst, x, miss, missing);
        const int64_t bs = int64_t{d.tiles} * tile;
        tile_products<false>(x, zt_tiles * tile, zt_tiles, d.x + st0 * bs, bs, d.tiles, nst, C);
        if (missing.empty()) continue;
        if (!sparse_missing(missing.size(), nst * zt_tiles * d.tiles)) {
          tile_products<false>(miss, zt_tiles * tile, zt_tiles, d.x + st0 * bs, bs, d.tiles, nst, Cm);
          continue;
        }
        for (const uint32_t hit : missing) {  // Cm tile layout: [vt][dt][r][16]
          const int64_t vl = hit >> 16, sample = st0 * step + (hit & 0xFFFF);
          add_digits(d.rows + sample * d.tiles * 16, d.tiles, Cm + ((vl / 16) * d.tiles * 16 + vl % 16) * 16, 256);
        }
      }
      for (int64_t j = j0; j < std::min(k, j0 + zt_block); ++j) {
        const int64_t vt = (j - j0) / 16, r = (j - j0) % 16;
        const double sj = centring.scale.empty() ? 1.0 : centring.scale[j], two_p = 2.0 * centring.p[j];
        for (int64_t c = 0; c < l; ++c) {
          long long x_sum[D], called[D];
          for (int s = 0; s < D; ++s) {
            const int64_t dc = D * c + s, at = ((vt * d.tiles + dc / 16) * 16 + r) * 16 + dc % 16;
            x_sum[s] = C[at];
            called[s] = d.sums[dc] - Cm[at];
          }
          const double e = detail::base128_combine(x_sum, d.weights[c]);
          const double w = sj * (e - two_p * detail::base128_combine(called, d.weights[c]));
          double& o = W[j * ld_w + c];
          o = beta == 0 ? w : w + beta * o;
        }
      }
    }
    detail::amx_release_tiles();
  }
}

}  // namespace pmx::kernels::cpu
