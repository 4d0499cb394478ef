// Device kernels of the CUDA genotype × dense products: 2-bit codes decoded in registers through a
// per-variant table of z values, multiplied on the FP64 tensor cores (DMMA), accumulated in double.
//
// Why this route (issue #5; numbers for 3.1 M samples × 50,241 variants × l = 10, H200):
//   * n·k·l = 1.56e12 FMAs. The FP64 MMA is 8 columns wide, so l = 10 runs as 16 columns:
//     1.2e9 m16n8k16 DMMAs of 64 cycles each per SM sub-partition, 74.5 ms at 1.98 GHz (the
//     tensor-pipe floor; cuBLAS DGEMM reaches ~87 % of that pipe).
//   * Columns 9–10 on DFMA instead of a second n-tile (tried, measured): slower. On sm_90 DFMA and
//     DMMA issue to one shared FP64 pipe (ncu: "Shared pipeline … 64-bit floating point and tensor
//     operations"), a DFMA warp instruction holding it 2 cycles: 2 columns cost 32 cycles per A
//     fragment against 64 for 8 columns on the tensor core (751 k samples: 28.2 ms vs 24.6 ms).
//   * INT8 slices of Λ (Ozaki): ~6 slices stacked as columns (10 × 6 → 64) and a second product for
//     the missing calls is ~2e13 int8 MACs (~40–60 ms on mma.sync), and slices with one exponent per
//     column are not componentwise accurate (a small Λ_jc next to a large one loses its low bits),
//     which the componentwise contract forbids. Rejected here; for normwise operands with l ≤ 4
//     (PCG) it is the route taken (cuda_int8.hpp): there the FP64 kernels waste the MMA's 8 columns
//     and the 8 digits of a column fill them.
//   * Shared-memory lookup tables (thesis §4.2.2, 5codes): bound by shared-memory bandwidth at
//     ~75–95 ms for this shape, no better, and the table build does not amortise for l = 10.
//   * Genotype bytes (38.9 GB, ≈ 9 ms at 4.3 TB/s) are far below the tensor time: the kernels are
//     compute bound, so M is read once per product, variant-major as uploaded (no transposed
//     copy: both products read the same rows, with different fragment mappings).
// What bounds the kernels is keeping the tensor pipe fed with two warps per sub-partition (255
// registers: the accumulators alone take 128): the decode must leave the issue slots free. On
// sm_90 each z costs one shift, one LOP3 and one LDS (z_addr: the code·8 OR-ed into the 32-byte
// aligned shared address of the variant's 4-entry table {s(2−2p), 0, s(1−2p), −2ps}, the
// variant's offset in the load's immediate), and the next chunk's genotype words, Λ rows and
// tables arrive by cp.async (no registers held for prefetch). The first version (table index
// arithmetic, register prefetch) issued ~40 instructions per DMMA and ran at 66–73 % of the pipe;
// this one issues ~17 (Z·Λ: 80 % of the pipe at 751 k samples, ncu).
//
// MMA shapes. sm_90: mma.sync.m16n8k16.f64 (Hopper's DMMA shape); sm_80: mma.sync.m8n8k4.f64.
// Fragments (g = lane / 4, t = lane % 4; PTX ISA "matrix fragments for mma.m8n8k4 / m16n8k16 .f64"):
//   m8n8k4:   A 8×4: a0 = A[g][t];  B 4×8: b0 = B[t][g];  C 8×8: c_j = C[g][2t + j], j < 2.
//   m16n8k16: A 16×16: a_i = A[g + 8(i&1)][t + 4(i>>1)], i < 8;  B 16×8: b_i = B[t + 4i][g], i < 4;
//             C 16×8: c_j = C[g + 8(j>>1)][2t + (j&1)], j < 4.
// The reduction index (K) may be mapped to variants (Z·Λ) or samples (Zᵀ·Λ̃) in any order, as long
// as A and B agree; the maps below are chosen so that each thread decodes whole 32- or 64-bit
// words of one .bed row (full 32-byte sectors per warp load). A run-time self-test checks the
// m16n8k16 layout once per process and falls back to m8n8k4 if it ever disagrees.
//
// Z·Λ (kernels zl_*): a warp owns 128 consecutive samples; thread g owns the 16 samples of 32-bit
// word g of each row, sample 16g + q (q < 16) being row (q) of m-tile q (m8: 16 m-tiles) or row
// g + 8(q >> 3) of m-tile q & 7 (m16: 8 m-tiles). A block (8 warps, 1024 samples) walks its
// split of the variants in chunks of 64, with Λ and the z table of the chunk in shared memory
// (double buffered; m8: the next chunk's words prefetched in registers; m16: everything by
// cp.async into shared memory).
// Zᵀ·Λ̃ (kernels ztl_*): m8: a warp owns 64 variants (8 m-tiles of 8), a block 512; the block
// walks its split of the samples in steps of 128, Λ̃ of the step in shared memory; thread t owns
// 64-bit word t (samples 32t .. 32t + 31) of each of its rows. m16: ztl_m16w_kernel (default,
// 128 variants per warp) and ztl_m16_kernel (64), described there.
// Both write partial sums per split, [split][row][16] doubles; reduce_partials adds the splits in
// a fixed order (deterministic results) and applies β. Columns go in groups of 16 (NT = 2 n-tiles
// of 8) or 8 (NT = 1).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace pmx::kernels::cuda_detail::gemm_dev {

constexpr int threads = 256;          // 8 warps per block
constexpr int zl_samples = 1024;      // samples per Z·Λ block (128 per warp)
constexpr int zl_chunk = 64;          // variants per Z·Λ chunk
constexpr int ztl_variants = 512;     // variants per Zᵀ·Λ̃ block (64 per warp)
constexpr int ztl_step = 128;         // samples per Zᵀ·Λ̃ step
constexpr int cols = 16;              // columns per group (partials are [.][.][16])
constexpr uint32_t missing32 = 0x55555555u;
constexpr uint64_t missing64 = 0x5555555555555555ull;

struct zl_args {
  const uint8_t* geno;  // rows of this call's variant range (row r at geno + r * pitch)
  int64_t pitch;        // bytes, multiple of 64
  int64_t n;            // samples
  int64_t rows;         // variants in this range
  int64_t split_rows;   // variants per split (multiple of zl_chunk)
  const double* table;  // 4 z values per variant of the range
  const double* lambda; // row r of the range at lambda + r * ld (column c0 first)
  int64_t ld;
  int lc;               // columns of this group (<= 16)
  double* part;         // [split][n][16]
};

struct ztl_args {
  const uint8_t* geno;
  int64_t pitch;
  int64_t n;
  int64_t rows;          // variants in this range
  int64_t split_samples; // samples per split (multiple of ztl_step)
  const double* table;
  const double* lambda;  // sample i at lambda + i * ld (column c0 first)
  int64_t ld;
  int lc;
  double* part;          // [split][rows][16]
};

// Shared-memory column of (row, col) in a 16-column tile: XOR-ed with 4·(sel mod 4), where sel is
// the lane's t (lane % 4) of every reader. The rows read at once sit a multiple of 128 bytes
// apart (same banks), so without the XOR lanes t and t + 2 collide; with it the 16 lanes of a
// half-warp (g < 4 or g ≥ 4, any t) read 16 different columns: one wavefront per half-warp.
__device__ __forceinline__ int swz(int col, int sel) { return col ^ ((sel & 3) << 2); }

__device__ __forceinline__ void mma_m8(double& c0, double& c1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(c0), "+d"(c1)
               : "d"(a), "d"(b));
}

__device__ __forceinline__ void mma_m16(double* c, const double* a, const double* b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
      "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
        "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
  (void)c, (void)a, (void)b;
  __trap();
#endif
}

// ---------------------------------------------------------------------------------------------
// Z·Λ

// Λ rows [v0, v0 + 64) of the group (zero beyond `rows` or `lc`) and their z tables, as registers
// of this thread: 4 Λ values (row tid / 4, columns 4 (tid % 4) ..) and one table entry.
struct zl_stage {
  double lam[4];
  double tab;
};

__device__ __forceinline__ void zl_load_stage(const zl_args& a, int64_t v0, int64_t v_end, zl_stage& s) {
  const int tid = threadIdx.x, r = tid >> 2, c = (tid & 3) * 4;
  const int64_t v = v0 + r;
#pragma unroll
  for (int e = 0; e < 4; ++e) s.lam[e] = (v < v_end && c + e < a.lc) ? __ldg(a.lambda + v * a.ld + c + e) : 0.0;
  const int64_t tv = v0 + (tid >> 2);
  s.tab = tv < v_end ? __ldg(a.table + tv * 4 + (tid & 3)) : 0.0;
}

__device__ __forceinline__ void zl_store_stage(const zl_stage& s, double* lam_s, double* tab_s) {
  const int tid = threadIdx.x, r = tid >> 2, c = (tid & 3) * 4;
#pragma unroll
  for (int e = 0; e < 4; ++e) lam_s[r * cols + swz(c + e, r)] = s.lam[e];
  tab_s[tid] = s.tab;
}

// Word of row v (chunk-relative variant index v_rel of chunk at v0) for this thread's 16 samples.
__device__ __forceinline__ uint32_t zl_word(const zl_args& a, int64_t v, int64_t v_end, int64_t s16) {
  if (v >= v_end || s16 >= a.n) return missing32;
  return __ldg(reinterpret_cast<const uint32_t*>(a.geno + v * a.pitch + (s16 >> 2)));
}

// Z·Λ on sm_80 (mma.m8n8k4.f64; runs on sm_90 too): see the header comment.
template <int NT>
__global__ void __launch_bounds__(threads, 1) zl_m8_kernel(zl_args a) {
  __shared__ __align__(16) double lam_s[2][zl_chunk * cols];
  __shared__ __align__(16) double tab_s[2][zl_chunk * 4];
  constexpr int MT = 16;  // m-tiles per warp
  constexpr int ACC = 2;  // accumulator doubles per (m-tile, n-tile)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  const int64_t sb = int64_t{blockIdx.x} * zl_samples + warp * 128;  // warp's first sample
  const int64_t s16 = sb + 16 * g;                                  // thread's first sample
  const int64_t v_begin = int64_t{blockIdx.y} * a.split_rows;
  const int64_t v_end = v_begin + a.split_rows < a.rows ? v_begin + a.split_rows : a.rows;
  const int nch = static_cast<int>((v_end - v_begin + zl_chunk - 1) / zl_chunk);

  double acc[MT][NT][ACC];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < ACC; ++j) acc[m][nt][j] = 0.0;

  // 16 words per chunk: k-step ks (4 variants) reads word ks = row 4ks + t.
  uint32_t cur[16], nxt[16];
  auto load_words = [&](int64_t v0, uint32_t* w) {
#pragma unroll
    for (int q = 0; q < 16; ++q) w[q] = zl_word(a, v0 + 4 * q + t, v_end, s16);
  };
  if (nch > 0) {
    zl_stage st;
    zl_load_stage(a, v_begin, v_end, st);
    load_words(v_begin, cur);
    zl_store_stage(st, lam_s[0], tab_s[0]);
  }
  __syncthreads();
  for (int ch = 0; ch < nch; ++ch) {
    const int buf = ch & 1;
    const bool more = ch + 1 < nch;
    zl_stage st;
    if (more) {
      const int64_t v1 = v_begin + int64_t{ch + 1} * zl_chunk;
      zl_load_stage(a, v1, v_end, st);
      load_words(v1, nxt);
    }
    const double* L = lam_s[buf];
    const double* T = tab_s[buf];
#pragma unroll
    for (int ks = 0; ks < 16; ++ks) {
      const int v = 4 * ks + t;
      double b[NT];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) b[nt] = L[v * cols + swz(nt * 8 + g, v)];
      const uint32_t w = cur[ks];
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const double z = T[v * 4 + ((w >> (2 * m)) & 3u)];
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma_m8(acc[m][nt][0], acc[m][nt][1], z, b[nt]);
      }
    }
    if (more) {
      zl_store_stage(st, lam_s[buf ^ 1], tab_s[buf ^ 1]);
#pragma unroll
      for (int q = 0; q < 16; ++q) cur[q] = nxt[q];
    }
    __syncthreads();
  }

  double* part = a.part + int64_t{blockIdx.y} * a.n * cols;
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < ACC; ++j) {
        const int col = nt * 8 + 2 * t + (j & 1);
        const int64_t s = s16 + m;
        if (s < a.n) part[s * cols + col] = acc[m][nt][j];
      }
}


// cp.async (sm_80+): `bytes` from global to shared memory, or zeros when !valid (nothing is read
// then; `src` must still be a valid address).
template <int bytes>
__device__ __forceinline__ void cp_async(void* dst, const void* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(bytes),
               "r"(valid ? bytes : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

// 64-bit shared-memory load at a 32-bit shared address (constant offsets added to the address
// are folded into the instruction's immediate: one LDS [R+imm]).
__device__ __forceinline__ double lds_f64(uint32_t addr) {
  double v;
  asm volatile("ld.shared.f64 %0, [%1];\n" : "=d"(v) : "r"(addr));
  return v;
}
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// Shared address of the z of a 2-bit code: `tb` is the address of the variant's 4-entry table
// (32-byte aligned) and the code sits at bits [bit, bit + 2) of w. (w >> (bit − 3)) & 0x18 is code·8,
// and OR-ing it into tb adds it (tb's low 5 bits are 0): one shift and one LOP3 per z, the
// variant's offset going into the load's immediate.
__device__ __forceinline__ uint32_t z_addr(uint32_t w, uint32_t tb, int bit) {
  const uint32_t x = bit >= 3 ? (w >> (bit - 3)) : (w << (3 - bit));
  return (x & 0x18u) | tb;
}

// Words of k-step ks (4 per thread) and its B fragments (NT n-tiles) for zl_m16_kernel.
template <int NT>
__device__ __forceinline__ void zl_load_wb(const uint32_t* W, const double* L, int col0, int ks, uint32_t (&w)[4],
                                           double (&b)[NT][4]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) w[j] = W[(4 * ks + j) * threads];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) b[nt][i] = L[(16 * ks + 4 * i) * cols + (col0 ^ (8 * nt))];
}
// A fragment of (k-step ks, m-tile m) for zl_m16_kernel: a_i is row g + 8 (i & 1) = sample
// 16g + 8 (i & 1) + m, K slot i / 2 = variant 16ks + t + 4 (i / 2) (table address tb + 32·(16ks + 4j)).
__device__ __forceinline__ void zl_load_z(uint32_t tb, int ks, int m, const uint32_t (&w)[4], double (&z)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int j = i >> 1, q = 8 * (i & 1) + m;
    z[i] = lds_f64(z_addr(w[j], tb, 2 * q) + 32u * (16 * ks + 4 * j));
  }
}

// Z·Λ on sm_90 (mma.m16n8k16.f64): the same sample/variant mapping as zl_kernel (m16), with the
// next chunk's genotype words, Λ rows and z tables brought by cp.async into the other shared
// buffer while this chunk is multiplied (no registers held for the prefetch), and the decode cut
// to a shift, a LOP3 and an LDS per z (the integer work per DMMA, not the tensor pipe, bounded the
// register-prefetch version: ~40 issued instructions per DMMA, 73 % of the DMMA rate).
constexpr int zl_m16_smem = 2 * (zl_chunk * cols * 8 + zl_chunk * 4 * 8 + 16 * threads * 4);

template <int NT>
__global__ void __launch_bounds__(threads, 1) zl_m16_kernel(zl_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* lam_s = reinterpret_cast<double*>(smem);                         // [2][zl_chunk * cols]
  double* tab_s = lam_s + 2 * zl_chunk * cols;                              // [2][zl_chunk * 4]
  uint32_t* wd_s = reinterpret_cast<uint32_t*>(tab_s + 2 * zl_chunk * 4);  // [2][16][threads]
  constexpr int MT = 8;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  const int64_t s16 = int64_t{blockIdx.x} * zl_samples + warp * 128 + 16 * g;  // thread's first sample
  const int64_t v_begin = int64_t{blockIdx.y} * a.split_rows;
  const int64_t v_end = v_begin + a.split_rows < a.rows ? v_begin + a.split_rows : a.rows;
  const int nch = static_cast<int>((v_end - v_begin + zl_chunk - 1) / zl_chunk);

  // Chunk at v0 into buffer b: Λ row tid / 4 (columns 4 (tid % 4) ..), table entry tid, and this
  // thread's 16 words (slot q: row 16 (q / 4) + t + 4 (q % 4), i.e. k-step q / 4, K slot q % 4).
  // Rows past the split and columns past lc are zeros (zero z tables: such rows add nothing).
  auto issue = [&](int64_t v0, int b) {
    const int r = tid >> 2, c = (tid & 3) * 4;
    const int64_t v = v0 + r;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const bool ok = v < v_end && c + e < a.lc;
      cp_async<8>(lam_s + b * zl_chunk * cols + r * cols + swz(c + e, r), ok ? a.lambda + v * a.ld + c + e : a.lambda,
                  ok);
    }
    cp_async<8>(tab_s + b * zl_chunk * 4 + tid, v < v_end ? a.table + v0 * 4 + tid : a.table, v < v_end);
#pragma unroll
    for (int q = 0; q < 16; ++q) {
      const int64_t row = v0 + 16 * (q >> 2) + t + 4 * (q & 3);
      const bool ok = row < v_end && s16 < a.n;
      cp_async<4>(wd_s + (b * 16 + q) * threads + tid, ok ? a.geno + row * a.pitch + (s16 >> 2) : a.geno, ok);
    }
    cp_async_commit();
  };

  double acc[MT][NT][4];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[m][nt][j] = 0.0;

  // Per-thread bases: the z tables of variants t (+ 16 ks + 4 j via the immediate), and the Λ
  // column (nt·8 + g) of row t (swizzled: column ^ 4t).
  const uint32_t tab0 = smem_addr(tab_s) + 32u * t;
  const int col0 = g ^ (4 * t);
  if (nch > 0) issue(v_begin, 0);
  for (int ch = 0; ch < nch; ++ch) {
    const int buf = ch & 1;
    cp_async_wait_all();
    __syncthreads();  // chunk ch visible to all; every thread is done with chunk ch − 1's buffer
    if (ch + 1 < nch) issue(v_begin + int64_t{ch + 1} * zl_chunk, buf ^ 1);
    const double* L = lam_s + buf * zl_chunk * cols + t * cols;
    const uint32_t tb = tab0 + static_cast<uint32_t>(buf * zl_chunk * 4 * 8);
    const uint32_t* W = wd_s + buf * 16 * threads + tid;
    // Software-pipelined over (k-step, m-tile): the z fragment of the next pair is loaded while
    // this pair's DMMAs issue (zc / zn), the next k-step's words and Λ fragments during this one.
    uint32_t wc[4], wn[4];
    double bc[NT][4], bn[NT][4], zc[8], zn[8];
    zl_load_wb<NT>(W, L, col0, 0, wc, bc);
    zl_load_z(tb, 0, 0, wc, zc);
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      if (ks + 1 < 4) zl_load_wb<NT>(W, L, col0, ks + 1, wn, bn);
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        if (m + 1 < MT) zl_load_z(tb, ks, m + 1, wc, zn);
        else if (ks + 1 < 4) zl_load_z(tb, ks + 1, 0, wn, zn);
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma_m16(acc[m][nt], zc, bc[nt]);
#pragma unroll
        for (int i = 0; i < 8; ++i) zc[i] = zn[i];
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) wc[j] = wn[j];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) bc[nt][i] = bn[nt][i];
    }
  }

  double* part = a.part + int64_t{blockIdx.y} * a.n * cols;
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t s = s16 + 8 * (j >> 1) + m;
        if (s < a.n) part[s * cols + nt * 8 + 2 * t + (j & 1)] = acc[m][nt][j];
      }
}

// ---------------------------------------------------------------------------------------------
// Zᵀ·Λ̃

// Zᵀ·Λ̃ on sm_80 (mma.m8n8k4.f64; runs on sm_90 too): see the header comment.
template <int NT>
__global__ void __launch_bounds__(threads, 1) ztl_m8_kernel(ztl_args a) {
  __shared__ __align__(16) double lt_s[2][ztl_step * cols];
  __shared__ __align__(16) double tab_s[ztl_variants * 4];
  constexpr int MT = 8;  // m-tiles per warp (64 variants)
  constexpr int ACC = 2;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  const int64_t vblock = int64_t{blockIdx.x} * ztl_variants;
  const int64_t vw = vblock + warp * 64;
  const int64_t s_begin = int64_t{blockIdx.y} * a.split_samples;
  const int64_t s_end = s_begin + a.split_samples < a.n ? s_begin + a.split_samples : a.n;
  const int nst = static_cast<int>((s_end - s_begin + ztl_step - 1) / ztl_step);

  for (int e = tid; e < ztl_variants * 4; e += threads) {
    const int64_t v = vblock + (e >> 2);
    tab_s[e] = v < a.rows ? __ldg(a.table + v * 4 + (e & 3)) : 0.0;
  }

  double acc[MT][NT][ACC];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < ACC; ++j) acc[m][nt][j] = 0.0;

  // Rows of this thread: m-tile m, row g -> variant vw + 8m + g (word r = m).
  auto row_of = [&](int r) -> int64_t { return vw + 8 * r + g; };
  uint64_t cur[8], nxt[8];
  auto load_words = [&](int64_t s0, uint64_t* w) {
    const int64_t s32 = s0 + 32 * t;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      const int64_t v = row_of(r);
      w[r] = (v < a.rows && s32 < a.n) ? __ldg(reinterpret_cast<const uint64_t*>(a.geno + v * a.pitch + (s32 >> 2)))
                                       : missing64;
    }
  };
  // Λ̃ of a step: thread loads sample tid / 2, columns 8 (tid % 2) .. + 8.
  double lt[8];
  auto load_lt = [&](int64_t s0) {
    const int64_t s = s0 + (tid >> 1);
    const int c = (tid & 1) * 8;
#pragma unroll
    for (int e = 0; e < 8; ++e) lt[e] = (s < s_end && c + e < a.lc) ? __ldg(a.lambda + s * a.ld + c + e) : 0.0;
  };
  auto store_lt = [&](double* dst) {
    const int r = tid >> 1, c = (tid & 1) * 8;
#pragma unroll
    for (int e = 0; e < 8; ++e) dst[r * cols + swz(c + e, r >> 5)] = lt[e];
  };
  if (nst > 0) {
    load_lt(s_begin);
    load_words(s_begin, cur);
    store_lt(lt_s[0]);
  }
  __syncthreads();
  const double* T = tab_s + (warp * 64) * 4;
  for (int st = 0; st < nst; ++st) {
    const int buf = st & 1;
    const bool more = st + 1 < nst;
    if (more) {
      const int64_t s1 = s_begin + int64_t{st + 1} * ztl_step;
      load_lt(s1);
      load_words(s1, nxt);
    }
    const double* L = lt_s[buf];
#pragma unroll 8
    for (int ks = 0; ks < 32; ++ks) {
      const int srow = 32 * t + ks;  // K index t of k-step ks -> sample 32t + ks
      double b[NT];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) b[nt] = L[srow * cols + swz(nt * 8 + g, t)];
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const double z = T[(8 * m + g) * 4 + static_cast<int>((cur[m] >> (2 * ks)) & 3u)];
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma_m8(acc[m][nt][0], acc[m][nt][1], z, b[nt]);
      }
    }
    if (more) {
      store_lt(lt_s[buf ^ 1]);
#pragma unroll
      for (int r = 0; r < 8; ++r) cur[r] = nxt[r];
    }
    __syncthreads();
  }

  double* part = a.part + int64_t{blockIdx.y} * a.rows * cols;
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < ACC; ++j) {
        const int64_t v = vw + 8 * m + g;
        const int col = nt * 8 + 2 * t + (j & 1);
        if (v < a.rows) part[v * cols + col] = acc[m][nt][j];
      }
}

// Zᵀ·Λ̃ on sm_90 (mma.m16n8k16.f64), the PMX_GEMM_ZTL=mt4 shape (ztl_m16w_kernel is the default).
// A warp owns MT m-tiles of 16 variants (MT = 4: 64 variants); thread t owns word t (Word: 32 bits
// = 16 samples, or 64 bits = 32 samples) of each of its 2·MT rows, kept in registers for the
// step; a step is 4 words (64 or 128 samples); K slot t + 4·slot of k-step ks is sample
// SPW·t + 4ks + slot. Row r of a thread is
// m-tile r / 2, fragment row g + 8 (r % 2). The next step's words and Λ̃ rows arrive by cp.async
// while this step is multiplied; decode as zl_m16_kernel (shift, LOP3, LDS per z).
template <int MT, class Word>
struct ztl_m16_geometry {
  static constexpr int SPW = static_cast<int>(sizeof(Word)) * 4;  // samples per word
  static constexpr int STEP = 4 * SPW;                             // samples per step
  static constexpr int NTH = threads;
  static constexpr int VB = 16 * MT * 8;                           // variants per block
  static constexpr int smem = 2 * STEP * cols * 8 + VB * 4 * 8 + 2 * 2 * MT * NTH * static_cast<int>(sizeof(Word));
};

// B fragments of k-step ks (NT n-tiles) for ztl_m16_kernel: K slot t + 4i is this thread's
// sample row 4ks + i (L already points at row SPW·t).
template <int NT>
__device__ __forceinline__ void ztl_load_b(const double* L, int colg, int ks, double (&b)[NT][4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) b[nt][i] = L[(4 * ks + i) * cols + (colg ^ (8 * nt))];
}
// A fragment of (k-step ks, m-tile m) for ztl_m16_kernel: a_i is row g + 8h (h = i & 1: word
// 2m + h, variant 16m + g + 8h of the warp, table address tabw + 32·(16m + 8h)), K slot
// t + 4 (i / 2) = sample SPW·t + 4ks + i / 2 (bits 2·(4ks + i / 2) of the word).
template <int MT, class Word>
__device__ __forceinline__ void ztl_load_z(uint32_t tabw, int ks, int m, const Word (&cur)[2 * MT], double (&z)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int h = i & 1, bit = 2 * (4 * ks + (i >> 1));
    const Word w = cur[2 * m + h];
    const uint32_t half = bit >= 32 ? static_cast<uint32_t>(static_cast<uint64_t>(w) >> 32) : static_cast<uint32_t>(w);
    z[i] = lds_f64(z_addr(half, tabw, bit & 31) + 32u * (16 * m + 8 * h));
  }
}

template <int NT, int MT, class Word>
__global__ void __launch_bounds__(threads, 1) ztl_m16_kernel(ztl_args a) {
  using geo = ztl_m16_geometry<MT, Word>;
  constexpr int SPW = geo::SPW, STEP = geo::STEP, KS = SPW / 4, VW = 16 * MT, VB = geo::VB, NTH = geo::NTH;
  constexpr int CPT = STEP * cols / NTH;      // Λ̃ doubles copied per thread per step
  constexpr int TPS = cols / CPT;             // threads per sample row
  extern __shared__ __align__(16) unsigned char smem[];
  double* lt_s = reinterpret_cast<double*>(smem);        // [2][STEP * cols]
  double* tab_s = lt_s + 2 * STEP * cols;                // [VB * 4]
  Word* wd_s = reinterpret_cast<Word*>(tab_s + VB * 4);  // [2][2 MT][NTH]
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  const int64_t vblock = int64_t{blockIdx.x} * VB;
  const int64_t vw = vblock + warp * VW;
  const int64_t s_begin = int64_t{blockIdx.y} * a.split_samples;
  const int64_t s_end = s_begin + a.split_samples < a.n ? s_begin + a.split_samples : a.n;
  const int nst = static_cast<int>((s_end - s_begin + STEP - 1) / STEP);

  for (int e = tid; e < VB * 4; e += NTH) {
    const int64_t v = vblock + (e >> 2);
    tab_s[e] = v < a.rows ? __ldg(a.table + v * 4 + (e & 3)) : 0.0;
  }
  // Step at s0 into buffer b; Λ̃ rows past the split's end (and columns past lc) are zeros, so
  // the codes of those samples (whatever they are) add nothing.
  auto issue = [&](int64_t s0, int b) {
    const int r = tid / TPS, c = (tid % TPS) * CPT;
    const int64_t s = s0 + r;
#pragma unroll
    for (int e = 0; e < CPT; ++e) {
      const bool ok = s < s_end && c + e < a.lc;
      cp_async<8>(lt_s + b * STEP * cols + r * cols + swz(c + e, r / SPW), ok ? a.lambda + s * a.ld + c + e : a.lambda,
                  ok);
    }
    const int64_t sw = s0 + SPW * t;
#pragma unroll
    for (int rr = 0; rr < 2 * MT; ++rr) {
      const int64_t v = vw + 16 * (rr >> 1) + g + 8 * (rr & 1);
      const bool ok = v < a.rows && sw < a.n;
      cp_async<sizeof(Word)>(wd_s + (b * 2 * MT + rr) * NTH + tid, ok ? a.geno + v * a.pitch + (sw >> 2) : a.geno,
                             ok);
    }
    cp_async_commit();
  };

  double acc[MT][NT][4];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[m][nt][j] = 0.0;

  // Per-thread bases: the z table of variant g of the warp (+ 16m + 8h via the immediate), and
  // Λ̃ column (nt·8 + g) of this thread's samples (swizzled: column ^ 4t).
  const uint32_t tabw = smem_addr(tab_s) + 32u * (warp * VW + g);
  const int colg = g ^ (4 * t);
  if (nst > 0) issue(s_begin, 0);
  for (int st = 0; st < nst; ++st) {
    const int buf = st & 1;
    cp_async_wait_all();
    __syncthreads();
    if (st + 1 < nst) issue(s_begin + int64_t{st + 1} * STEP, buf ^ 1);
    const double* L = lt_s + buf * STEP * cols + SPW * t * cols;
    Word cur[2 * MT];
#pragma unroll
    for (int rr = 0; rr < 2 * MT; ++rr) cur[rr] = wd_s[(buf * 2 * MT + rr) * NTH + tid];
    // Software-pipelined over (k-step, m-tile) as zl_m16_kernel.
    double bc[NT][4], bn[NT][4], zc[8], zn[8];
    ztl_load_b<NT>(L, colg, 0, bc);
    ztl_load_z<MT>(tabw, 0, 0, cur, zc);
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks + 1 < KS) ztl_load_b<NT>(L, colg, ks + 1, bn);
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        if (m + 1 < MT) ztl_load_z<MT>(tabw, ks, m + 1, cur, zn);
        else if (ks + 1 < KS) ztl_load_z<MT>(tabw, ks + 1, 0, cur, zn);
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma_m16(acc[m][nt], zc, bc[nt]);
#pragma unroll
        for (int i = 0; i < 8; ++i) zc[i] = zn[i];
      }
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) bc[nt][i] = bn[nt][i];
    }
  }

  double* part = a.part + int64_t{blockIdx.y} * a.rows * cols;
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t v = vw + 16 * m + g + 8 * (j >> 1);
        if (v < a.rows) part[v * cols + nt * 8 + 2 * t + (j & 1)] = acc[m][nt][j];
      }
}


// Zᵀ·Λ̃ on sm_90, default shape: the Z·Λ kernel's structure with the roles of samples and variants
// exchanged. A warp owns 8 m-tiles of 16 variants (128 variants, so each shared-memory load of Λ̃
// feeds 8·NT DMMAs), a block 1024; a step is 128 samples = 8 k-steps of 16, and k-step ks reads
// 32-bit word ks (16 samples) of each row, K slot t + 4·slot being sample 16ks + 4t + slot (bits
// 8t + 2·slot of the word: lane t uses byte t). The step's rows arrive by cp.async as 32-byte
// pieces (full sectors) into shared memory, [row][8 words] with the two 16-byte halves swapped on
// rows with bit 2 set (the 8 rows a warp reads at once then fall on 8 different banks), and are
// read there word by word as the k-steps need them (no words held in registers across the step).
constexpr int ztlw_step = 128;
constexpr int ztlw_variants = 1024;
constexpr int ztlw_smem = 2 * ztlw_step * cols * 8 + ztlw_variants * 4 * 8 + 2 * ztlw_variants * 32;

template <int NT>
__global__ void __launch_bounds__(threads, 1) ztl_m16w_kernel(ztl_args a) {
  constexpr int MT = 8, KS = ztlw_step / 16, VW = 128, VB = ztlw_variants;
  extern __shared__ __align__(16) unsigned char smem[];
  double* lt_s = reinterpret_cast<double*>(smem);                   // [2][ztlw_step * cols]
  double* tab_s = lt_s + 2 * ztlw_step * cols;                       // [VB * 4]
  uint32_t* wd_s = reinterpret_cast<uint32_t*>(tab_s + VB * 4);      // [2][VB][8]
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  const int64_t vblock = int64_t{blockIdx.x} * VB;
  const int64_t s_begin = int64_t{blockIdx.y} * a.split_samples;
  const int64_t s_end = s_begin + a.split_samples < a.n ? s_begin + a.split_samples : a.n;
  const int nst = static_cast<int>((s_end - s_begin + ztlw_step - 1) / ztlw_step);

  for (int e = tid; e < VB * 4; e += threads) {
    const int64_t v = vblock + (e >> 2);
    tab_s[e] = v < a.rows ? __ldg(a.table + v * 4 + (e & 3)) : 0.0;
  }
  // Step at s0 into buffer b: Λ̃ row tid / 2 (8 columns), zeros past the split's end or lc (so the
  // codes of those samples, whatever they are, add nothing); 8 row pieces of 16 bytes (64 samples).
  // A piece past n is zeros; bytes of a row past n inside a piece are the row's padding.
  auto issue = [&](int64_t s0, int b) {
    const int r = tid >> 1, c = (tid & 1) * 8;
    const int64_t s = s0 + r;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const bool ok = s < s_end && c + e < a.lc;
      cp_async<8>(lt_s + b * ztlw_step * cols + r * cols + swz(c + e, r >> 2), ok ? a.lambda + s * a.ld + c + e : a.lambda,
                  ok);
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int piece = tid + threads * k, row = piece >> 1, half = piece & 1;
      const int64_t v = vblock + row;
      const bool ok = v < a.rows && s0 + 64 * half < a.n;
      cp_async<16>(wd_s + (b * VB + row) * 8 + 4 * (half ^ ((row >> 2) & 1)),
                   ok ? a.geno + v * a.pitch + (s0 >> 2) + 16 * half : a.geno, ok);
    }
    cp_async_commit();
  };

  double acc[MT][NT][4];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[m][nt][j] = 0.0;

  // Per-thread bases: the z table of the warp's variant g (+ 16m + 8h in the immediate); this
  // thread's word slot of row g (words ks < 4 in the half at 4·((g >> 2) & 1), ks >= 4 in the
  // other); Λ̃ column (nt·8 + g) of row 4t (swizzled: column ^ 4t).
  const uint32_t tabw = smem_addr(tab_s) + 32u * (warp * VW + g);
  const int wlo = (warp * VW + g) * 8 + 4 * ((g >> 2) & 1), whi = (warp * VW + g) * 8 + 4 * (((g >> 2) & 1) ^ 1);
  const int colg = g ^ (4 * t);
  const unsigned tshift = 8u * t;
  if (nst > 0) issue(s_begin, 0);
  for (int st = 0; st < nst; ++st) {
    const int buf = st & 1;
    cp_async_wait_all();
    __syncthreads();
    if (st + 1 < nst) issue(s_begin + int64_t{st + 1} * ztlw_step, buf ^ 1);
    const double* L = lt_s + buf * ztlw_step * cols + 4 * t * cols;
    const uint32_t* Wb = wd_s + buf * VB * 8;
    // Word of row 16m + 8h (warp-relative, + g) for k-step ks, shifted so that lane t's byte is
    // the low one.
    auto word = [&](int ks, int m, int h) -> uint32_t {
      const int off = (16 * m + 8 * h) * 8 + (ks & 3);
      return Wb[(ks < 4 ? wlo : whi) + off] >> tshift;
    };
    auto load_z = [&](int ks, int m, double (&z)[8]) {
      const uint32_t w0 = word(ks, m, 0), w1 = word(ks, m, 1);
#pragma unroll
      for (int i = 0; i < 8; ++i)  // a_i: row g + 8 (i & 1), sample 16ks + 4t + i / 2
        z[i] = lds_f64(z_addr((i & 1) ? w1 : w0, tabw, 2 * (i >> 1)) + 32u * (16 * m + 8 * (i & 1)));
    };
    auto load_b = [&](int ks, double (&b)[NT][4]) {
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) b[nt][i] = L[(16 * ks + i) * cols + (colg ^ (8 * nt))];
    };
    double bc[NT][4], bn[NT][4], zc[8], zn[8];
    load_b(0, bc);
    load_z(0, 0, zc);
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks + 1 < KS) load_b(ks + 1, bn);
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        if (m + 1 < MT) load_z(ks, m + 1, zn);
        else if (ks + 1 < KS) load_z(ks + 1, 0, zn);
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma_m16(acc[m][nt], zc, bc[nt]);
#pragma unroll
        for (int i = 0; i < 8; ++i) zc[i] = zn[i];
      }
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) bc[nt][i] = bn[nt][i];
    }
  }

  const int64_t vw = vblock + warp * VW;
  double* part = a.part + int64_t{blockIdx.y} * a.rows * cols;
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t v = vw + 16 * m + g + 8 * (j >> 1);
        if (v < a.rows) part[v * cols + nt * 8 + 2 * t + (j & 1)] = acc[m][nt][j];
      }
}

// ---------------------------------------------------------------------------------------------

// out[r * ld + c] = Σ_{s < splits} part[(s * rows + r) * stride + c] (+ β out[r * ld + c] when β ≠ 0),
// r < rows, c < lc; the splits are added in order (stride: 16 for the MMA kernels, L for the narrow).
static __global__ void reduce_partials(const double* __restrict__ part, int stride, int splits, int64_t rows, int lc,
                                       double beta, double* __restrict__ out, int64_t ld) {
  const int64_t total = rows * lc;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = e / lc;
    const int c = static_cast<int>(e - r * lc);
    double s = part[r * stride + c];
    for (int y = 1; y < splits; ++y) s += part[(y * rows + r) * stride + c];
    double& o = out[r * ld + c];
    o = beta == 0 ? s : s + beta * o;
  }
}

// table[4j + code] = s_j (x − 2 p_j) for the dosage x of `code`, 0 for missing; j < k.
static __global__ void build_tables(const double* __restrict__ p, const double* __restrict__ scale, int64_t k,
                             double* __restrict__ table) {
  for (int64_t j = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; j < k; j += int64_t{gridDim.x} * blockDim.x) {
    const double s = scale ? scale[j] : 1.0, two_p = 2.0 * p[j];
    table[4 * j + 0] = s * (2.0 - two_p);
    table[4 * j + 1] = 0.0;
    table[4 * j + 2] = s * (1.0 - two_p);
    table[4 * j + 3] = s * (0.0 - two_p);
  }
}

// Self-test of the m16n8k16 fragment layout: A[r][c] = r + 1 + 32c, B[r][c] = 1 + r + 17c (small
// integers, exact), D = A·B written row-major to d[16 * 8].
static __global__ void m16_selftest(double* d) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  double a[8], b[4], c[4] = {0, 0, 0, 0};
  for (int i = 0; i < 8; ++i) {
    const int r = g + 8 * (i & 1), col = t + 4 * (i >> 1);
    a[i] = r + 1 + 32.0 * col;
  }
  for (int i = 0; i < 4; ++i) {
    const int r = t + 4 * i;
    b[i] = 1 + r + 17.0 * g;
  }
  mma_m16(c, a, b);
  for (int j = 0; j < 4; ++j) d[(g + 8 * (j >> 1)) * 8 + 2 * t + (j & 1)] = c[j];
}

}  // namespace pmx::kernels::cuda_detail::gemm_dev
