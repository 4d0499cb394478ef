// Device kernels of the CUDA genotype × dense products for one column (the matrix–vector
// products of single-trait single-step PCG), on the FP64 CUDA cores instead of the tensor cores.
//
// Why (issue #7; 500,000 samples × 45,000 variants, H200): the MMA kernels (cuda_mma.cuh) pad the
// columns to a full 8-column n-tile, so one column costs as much as eight (8.7 ms per product,
// where reading the 5.6 GB of 2-bit codes takes ~1.3 ms). What bounds both the MMA kernels and a
// plain per-genotype lookup is shared memory: every genotype needs one double from a table, and
// a warp's 64-bit shared load takes two wavefronts of 128 bytes whatever the broadcast, so
// 22.5e9 lookups cost ≥ 5.6 ms (measured: 6.4 ms for a per-genotype lookup kernel with L = 1).
//
// Z·Λ (zl_narrow_kernel<L>): lookups of variant pairs. A thread owns 16 samples (one 32-bit word
// of every row); a block of 256 threads 4,096 samples. Per chunk of variants the block builds in
// shared memory, per pair (v, v + 1), a 16-entry table indexed by c_v + 4 c_{v+1} holding the L
// sums z_v(c_v)·Λ_vc + z_{v+1}(c_{v+1})·Λ_{v+1,c}; two words are interleaved into those 4-bit
// indices with two LOP3s per 8 samples, and each sample then costs a shift, a LOP3 (the index
// OR-ed into the table's shared address), one table load and L adds per pair of genotypes: half
// the shared-memory traffic (the 16 entries of a pair span 128·E bytes, read conflict-free).
// The next chunk's words are loaded into registers while this chunk is summed.
// Zᵀ·Λ̃ (ztl_narrow_kernel<L>): a block owns 128 variants (their z tables in
// shared memory) and a split of the samples, walked in tiles of 4,096 (a thread: 16 samples,
// their Λ̃ values held in registers for the whole tile). Per batch of 8 rows each lane sums its 16
// terms z·Λ̃ per row, and a transposing butterfly over the warp (8 rows → one per group of 4
// lanes) gives the warp's total, added into the warp's own shared accumulator; the 8 warps'
// accumulators are added in a fixed order at the end. (Pairing does not help here: the terms of
// two samples go to one output but need two Λ̃ values, so a pair table cannot be shared across
// lanes.)
// Every sum is in a fixed order: the same bits run after run. Accuracy as the MMA kernels (a dot
// product of rounded terms; a pair entry is one more rounding). Partial sums per split of the
// reduction: [split][row][L] doubles, added by reduce_partials.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "ops/genotype_gemm/cuda_mma.cuh"

namespace pmx::kernels::cuda_detail::gemm_dev {

// Columns handled by the narrow kernels. Measured at 500,000 × 45,000 (H200), ms per product,
// narrow vs MMA: Z·Λ l = 1: 4.45 vs 8.72, l = 2: 13.6 vs 8.7, l = 3: 27.7 vs 8.8 (one block per SM
// and 16- or 32-byte entries); Zᵀ·Λ̃ l = 1: 7.4 vs 8.3, l = 2: 9.4 vs 8.5. The kernels take L ≤ 3
// (kept for such measurements); the dispatch sends only l = 1 to them.
constexpr int zl_narrow_max = 1;
constexpr int ztl_narrow_max = 1;
constexpr int narrow_samples = 4096;  // samples per block (and per Zᵀ·Λ̃ tile): 256 threads × 16
constexpr int ztn_variants = 128;     // variants per Zᵀ·Λ̃ block
constexpr int ztn_batch = 8;          // rows reduced together over a warp

// Table entries per code: L values padded to 1, 2 or 4 doubles (8, 16 or 32 bytes: one aligned
// vector load).
template <int L>
struct narrow_layout {
  static constexpr int E = L == 1 ? 1 : L == 2 ? 2 : 4;
  static constexpr int shift = E == 1 ? 3 : E == 2 ? 4 : 5;  // log2 of an entry's bytes
  static constexpr int chunk = 16;                           // Z·Λ variants per chunk
  static constexpr int min_blocks = L == 1 ? 2 : 1;          // Z·Λ blocks per SM (2: ≤ 128 registers)
};

template <int L>
__device__ __forceinline__ void lds_entry(uint32_t addr, double (&v)[L]) {
  if constexpr (L == 1) {
    asm volatile("ld.shared.f64 %0, [%1];\n" : "=d"(v[0]) : "r"(addr));
  } else {
    asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];\n" : "=d"(v[0]), "=d"(v[1]) : "r"(addr));
    if constexpr (L == 3) asm volatile("ld.shared.f64 %0, [%1+16];\n" : "=d"(v[2]) : "r"(addr));
  }
}

// ---------------------------------------------------------------------------------------------
// Z·Λ, L ≤ 3 columns. a.split_rows: variants per split (multiple of the chunk); partials
// [split][n][L].

// Shared address of the entry of the 4-bit index at bits [bit, bit + 4) of x in the 16-entry
// table at tb (aligned to 16 entries of 2^shift bytes).
template <int shift>
__device__ __forceinline__ uint32_t nibble_addr(uint32_t x, uint32_t tb, int bit) {
  const uint32_t y = bit >= shift ? (x >> (bit - shift)) : (x << (shift - bit));
  return (y & (15u << shift)) | tb;
}

template <int L>
__global__ void __launch_bounds__(threads, narrow_layout<L>::min_blocks) zl_narrow_kernel(zl_args a) {
  using lay = narrow_layout<L>;
  constexpr int E = lay::E, CH = lay::chunk, P = CH / 2;
  // Per pair of variants (v, v + 1): 16 entries, index c_v + 4 c_{v+1}, of L values
  // z_v(c_v)·Λ_vc + z_{v+1}(c_{v+1})·Λ_{v+1,c}: one table load per sample and pair.
  __shared__ __align__(512) double tab_s[2][P * 16 * E];
  const int tid = threadIdx.x;
  const int64_t words = (a.n + 15) / 16;
  const int64_t word = int64_t{blockIdx.x} * threads + tid;
  const bool active = word < words;
  const int64_t v_begin = int64_t{blockIdx.y} * a.split_rows;
  const int64_t v_end = v_begin + a.split_rows < a.rows ? v_begin + a.split_rows : a.rows;
  const int nch = static_cast<int>((v_end - v_begin + CH - 1) / CH);
  const uint8_t* col = a.geno + 4 * (active ? word : 0);

  auto load_words = [&](int64_t v0, uint32_t (&w)[CH]) {
#pragma unroll
    for (int v = 0; v < CH; ++v)
      w[v] = active && v0 + v < v_end ? __ldg(reinterpret_cast<const uint32_t*>(col + (v0 + v) * a.pitch))
                                      : missing32;
  };
  // The pair tables of the chunk at v0 into buffer b (variants past the split and columns past
  // lc contribute zeros).
  auto build = [&](int64_t v0, int b) {
    for (int e = tid; e < P * 16 * E; e += threads) {
      const int pr = e / (16 * E), idx = (e / E) & 15, c = e % E;
      const int64_t j = v0 + 2 * pr;
      double x = 0.0;
      if (c < a.lc) {
        if (j < v_end) x = __ldg(a.table + 4 * j + (idx & 3)) * __ldg(a.lambda + j * a.ld + c);
        if (j + 1 < v_end) x = fma(__ldg(a.table + 4 * (j + 1) + (idx >> 2)), __ldg(a.lambda + (j + 1) * a.ld + c), x);
      }
      tab_s[b][e] = x;
    }
  };

  double acc[16][L];
#pragma unroll
  for (int q = 0; q < 16; ++q)
#pragma unroll
    for (int c = 0; c < L; ++c) acc[q][c] = 0.0;

  uint32_t wc[CH], wn[CH];
  if (nch > 0) load_words(v_begin, wc);
  for (int ch = 0; ch < nch; ++ch) {
    const int64_t v0 = v_begin + int64_t{ch} * CH;
    const int b = ch & 1;
    build(v0, b);
    __syncthreads();  // buffer b complete; every thread is done with chunk ch − 2's use of it
    if (ch + 1 < nch) load_words(v0 + CH, wn);
    const uint32_t tb0 = smem_addr(tab_s[b]);
#pragma unroll
    for (int pr = 0; pr < P; ++pr) {
      // Nibble m of `even` is c_v + 4 c_{v+1} of sample 2m, of `odd` of sample 2m + 1.
      const uint32_t wa = wc[2 * pr], wb = wc[2 * pr + 1];
      const uint32_t even = (wa & 0x33333333u) | ((wb << 2) & 0xCCCCCCCCu);
      const uint32_t odd = ((wa >> 2) & 0x33333333u) | (wb & 0xCCCCCCCCu);
      const uint32_t tb = tb0 + static_cast<uint32_t>(pr * 16 * E * 8);
#pragma unroll
      for (int m = 0; m < 8; ++m) {
        double z[L];
        lds_entry<L>(nibble_addr<lay::shift>(even, tb, 4 * m), z);
#pragma unroll
        for (int c = 0; c < L; ++c) acc[2 * m][c] += z[c];
        lds_entry<L>(nibble_addr<lay::shift>(odd, tb, 4 * m), z);
#pragma unroll
        for (int c = 0; c < L; ++c) acc[2 * m + 1][c] += z[c];
      }
    }
#pragma unroll
    for (int v = 0; v < CH; ++v) wc[v] = wn[v];
  }

  if (!active) return;
  double* part = a.part + int64_t{blockIdx.y} * a.n * L;
#pragma unroll
  for (int q = 0; q < 16; ++q) {
    const int64_t s = 16 * word + q;
    if (s < a.n)
#pragma unroll
      for (int c = 0; c < L; ++c) part[s * L + c] = acc[q][c];
  }
}

// ---------------------------------------------------------------------------------------------
// Zᵀ·Λ̃, L ≤ 3 columns. a.split_samples: samples per split (multiple of narrow_samples);
// partials [split][rows][L].

// Reduces v[8] (8 rows, one value per row in each lane) over the warp. Each halving step
// (lanes 16, 8, 4 apart) sends the half of the rows this lane gives up and keeps the other half,
// so after three steps lane λ holds one row, 4·bit4(λ) + 2·bit3(λ) + bit2(λ), summed over the 8
// lanes that differ in those bits; two more exchanges add the 4 lanes of its group. 9 shuffles
// for 8 rows instead of 40.
__device__ __forceinline__ double warp_rows_total(double (&v)[ztn_batch], int lane) {
  // Step 1 (xor 16): keep rows 4·h1 .. 4·h1 + 3, h1 = bit 4 of the lane.
  const bool h1 = (lane >> 4) & 1, h2 = (lane >> 3) & 1, h3 = (lane >> 2) & 1;
  double s4[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const double keep = h1 ? v[4 + r] : v[r], give = h1 ? v[r] : v[4 + r];
    s4[r] = keep + __shfl_xor_sync(0xffffffffu, give, 16);
  }
  double s2[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const double keep = h2 ? s4[2 + r] : s4[r], give = h2 ? s4[r] : s4[2 + r];
    s2[r] = keep + __shfl_xor_sync(0xffffffffu, give, 8);
  }
  double s1;
  {
    const double keep = h3 ? s2[1] : s2[0], give = h3 ? s2[0] : s2[1];
    s1 = keep + __shfl_xor_sync(0xffffffffu, give, 4);
  }
  s1 += __shfl_xor_sync(0xffffffffu, s1, 2);
  s1 += __shfl_xor_sync(0xffffffffu, s1, 1);
  return s1;
}

template <int L>
__global__ void __launch_bounds__(threads) ztl_narrow_kernel(ztl_args a) {
  constexpr int RB = ztn_variants, NB = RB / ztn_batch, WARPS = threads / 32;
  __shared__ __align__(32) double tab_s[RB * 4];
  __shared__ double acc_s[WARPS][RB][L];  // per warp, per row: the warp's running totals
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int64_t vblock = int64_t{blockIdx.x} * RB;
  const int64_t s_begin = int64_t{blockIdx.y} * a.split_samples;
  const int64_t s_end = s_begin + a.split_samples < a.n ? s_begin + a.split_samples : a.n;

  for (int e = tid; e < RB * 4; e += threads) {
    const int64_t v = vblock + (e >> 2);
    tab_s[e] = v < a.rows ? __ldg(a.table + v * 4 + (e & 3)) : 0.0;
  }
  for (int e = tid; e < RB * L; e += threads)
#pragma unroll
    for (int w = 0; w < WARPS; ++w) (&acc_s[w][0][0])[e] = 0.0;
  __syncthreads();
  const uint32_t tab0 = smem_addr(tab_s);
  // Row index held by this lane after warp_rows_total.
  const int my_row = ((lane >> 4) & 1) * 4 + ((lane >> 3) & 1) * 2 + ((lane >> 2) & 1);

  for (int64_t s0 = s_begin; s0 < s_end; s0 += narrow_samples) {
    const int64_t first = s0 + 16 * tid;  // this thread's 16 samples
    double lam[16][L];
#pragma unroll
    for (int q = 0; q < 16; ++q)
#pragma unroll
      for (int c = 0; c < L; ++c) {
        const int64_t s = first + q;
        lam[q][c] = s < s_end && c < a.lc ? __ldg(a.lambda + s * a.ld + c) : 0.0;
      }
    const bool active = first < s_end;
    const uint8_t* col = a.geno + (active ? first / 4 : 0);
    auto load_words = [&](int nb, uint32_t (&w)[ztn_batch]) {
#pragma unroll
      for (int r = 0; r < ztn_batch; ++r) {
        const int64_t v = vblock + nb * ztn_batch + r;
        w[r] = active && v < a.rows ? __ldg(reinterpret_cast<const uint32_t*>(col + v * a.pitch)) : missing32;
      }
    };
    uint32_t wc[ztn_batch], wn[ztn_batch];
    load_words(0, wc);
    for (int nb = 0; nb < NB; ++nb) {
      if (vblock + nb * ztn_batch >= a.rows) break;
      if (nb + 1 < NB) load_words(nb + 1, wn);
      double part[ztn_batch][L];
#pragma unroll
      for (int r = 0; r < ztn_batch; ++r) {
        const uint32_t tb = tab0 + static_cast<uint32_t>((nb * ztn_batch + r) * 32);
#pragma unroll
        for (int c = 0; c < L; ++c) part[r][c] = 0.0;
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          const double z = lds_f64(z_addr(wc[r], tb, 2 * q));
#pragma unroll
          for (int c = 0; c < L; ++c) part[r][c] = fma(z, lam[q][c], part[r][c]);
        }
      }
#pragma unroll
      for (int c = 0; c < L; ++c) {
        double v[ztn_batch];
#pragma unroll
        for (int r = 0; r < ztn_batch; ++r) v[r] = part[r][c];
        const double total = warp_rows_total(v, lane);
        if ((lane & 3) == 0) acc_s[warp][nb * ztn_batch + my_row][c] += total;
      }
#pragma unroll
      for (int r = 0; r < ztn_batch; ++r) wc[r] = wn[r];
    }
  }
  __syncthreads();
  double* part = a.part + int64_t{blockIdx.y} * a.rows * L;
  for (int e = tid; e < RB * L; e += threads) {
    const int r = e / L, c = e % L;
    const int64_t v = vblock + r;
    if (v >= a.rows) continue;
    double s = acc_s[0][r][c];
#pragma unroll
    for (int w = 1; w < WARPS; ++w) s += acc_s[w][r][c];
    part[v * L + c] = s;
  }
}

}  // namespace pmx::kernels::cuda_detail::gemm_dev
