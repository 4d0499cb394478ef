// Device kernels of the CUDA genotype × dense products: 2-bit codes decoded in registers through a
// per-variant table of z values, multiplied on the FP64 tensor cores (DMMA), accumulated in double.
//
// Why this route (issue #5; numbers for 3.1 M samples × 50,241 variants × l = 10, H200):
//   * n·k·l = 1.56e12 FMAs. FP64 tensor cores: 67 TFLOP/s quoted, ~56 measured by cuBLAS DGEMM;
//     l = 10 pads to 16 (the MMA's N is 8), so 2.5e12 FMAs ≈ 75–90 ms. FP64 CUDA cores
//     (34 TFLOP/s) would need 2× that even without padding, and a hybrid (8 columns on the tensor
//     cores, 2 on DFMA) saves little: 2 DFMA columns cost as much as 4 tensor columns.
//   * INT8 slices of Λ (Ozaki): ~8 slices × 16 columns × 1.56e11 = 2e13+ MACs plus a second
//     product for the missing calls; and slices with one exponent per column are not
//     componentwise accurate (a small Λ_jc next to a large one loses its low bits), which the
//     op's contract (|error| ≤ c·u·Σ|terms|) forbids. Rejected.
//   * Shared-memory lookup tables (thesis §4.2.2, 5codes): bound by shared-memory bandwidth at
//     ~75–95 ms for this shape, no better, and the table build does not amortise for l = 10.
//   * Genotype bytes (38.9 GB, ≈ 9 ms at 4.3 TB/s) are far below the tensor time: the kernels are
//     compute bound, so M is read once per product, variant-major as uploaded (no transposed
//     copy: both products read the same rows, with different fragment mappings).
// The decode costs ~3 instructions per z value (shift/and, address, LDS of the 4-entry table
// {s(2−2p), 0, s(1−2p), −2ps} of the variant, in shared memory), well inside the issue slots a
// DMMA leaves.
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
// Z·Λ (kernel zl_*): a warp owns 128 consecutive samples; thread g owns the 16 samples of 32-bit
// word g of each row, sample 16g + q (q < 16) being row (q) of m-tile q (m8: 16 m-tiles) or row
// g + 8(q >> 3) of m-tile q & 7 (m16: 8 m-tiles). A block (8 warps, 1024 samples) walks its
// split of the variants in chunks of 64, with Λ and the z table of the chunk in shared memory
// (double buffered) and the next chunk's words prefetched in registers.
// Zᵀ·Λ̃ (kernel ztl_*): a warp owns 64 variants (8 m-tiles of 8 / 4 m-tiles of 16), a block 512;
// the block walks its split of the samples in steps of 128, Λ̃ of the step in shared memory;
// thread t owns 64-bit word t (samples 32t .. 32t + 31) of each of its rows.
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

// Shared-memory column of (row, col) in a 16-column tile: halves swapped on odd `sel` so that
// the 4 rows a warp reads at once fall on two bank sets (two wavefronts per 256-byte read).
__device__ __forceinline__ int swz(int col, int sel) { return col ^ ((sel & 1) << 3); }

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

template <int NT, bool M16>
__global__ void __launch_bounds__(threads, 1) zl_kernel(zl_args a) {
  __shared__ __align__(16) double lam_s[2][zl_chunk * cols];
  __shared__ __align__(16) double tab_s[2][zl_chunk * 4];
  constexpr int MT = M16 ? 8 : 16;          // m-tiles per warp
  constexpr int ACC = M16 ? 4 : 2;          // accumulator doubles per (m-tile, n-tile)
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

  // 16 words per chunk: m8: k-step ks (4 variants) word ks = row 4ks + t;
  //                     m16: k-step ks (16 variants), slot j: word 4ks + j = row 16ks + t + 4j.
  uint32_t cur[16], nxt[16];
  auto load_words = [&](int64_t v0, uint32_t* w) {
#pragma unroll
    for (int q = 0; q < 16; ++q) {
      const int row = M16 ? 16 * (q >> 2) + t + 4 * (q & 3) : 4 * q + t;
      w[q] = zl_word(a, v0 + row, v_end, s16);
    }
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
    if constexpr (!M16) {
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
    } else {
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        double b[NT][4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int v = 16 * ks + t + 4 * i;
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) b[nt][i] = L[v * cols + swz(nt * 8 + g, v)];
        }
#pragma unroll
        for (int m = 0; m < MT; ++m) {
          double z[8];
#pragma unroll
          for (int i = 0; i < 8; ++i) {
            const int j = i >> 1, q = 8 * (i & 1) + m;  // slot (variant 16ks + t + 4j), sample 16g + q
            const int v = 16 * ks + t + 4 * j;
            z[i] = T[v * 4 + ((cur[4 * ks + j] >> (2 * q)) & 3u)];
          }
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) mma_m16(acc[m][nt], z, b[nt]);
        }
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
        const int q = M16 ? 8 * (j >> 1) + m : m;
        const int col = nt * 8 + 2 * t + (j & 1);
        const int64_t s = s16 + q;
        if (s < a.n) part[s * cols + col] = acc[m][nt][j];
      }
}

// ---------------------------------------------------------------------------------------------
// Zᵀ·Λ̃

template <int NT, bool M16>
__global__ void __launch_bounds__(threads, 1) ztl_kernel(ztl_args a) {
  __shared__ __align__(16) double lt_s[2][ztl_step * cols];
  __shared__ __align__(16) double tab_s[ztl_variants * 4];
  constexpr int MT = M16 ? 4 : 8;  // m-tiles per warp (64 variants)
  constexpr int ACC = M16 ? 4 : 2;
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

  // Rows of this thread: m8: m-tile m, row g -> variant vw + 8m + g (word r = m);
  //                      m16: m-tile m, row g + 8h -> variant vw + 16m + g + 8h (word r = 2m + h).
  auto row_of = [&](int r) -> int64_t { return M16 ? vw + 16 * (r >> 1) + g + 8 * (r & 1) : vw + 8 * r + g; };
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
    if constexpr (!M16) {
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
    } else {
#pragma unroll
      for (int ks = 0; ks < 8; ++ks) {  // fully unrolled: constant shifts on the 64-bit words
        // K index t + 4i of k-step ks -> sample 32t + 4ks + i
        double b[NT][4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int srow = 32 * t + 4 * ks + i;
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) b[nt][i] = L[srow * cols + swz(nt * 8 + g, t)];
        }
#pragma unroll
        for (int m = 0; m < MT; ++m) {
          double z[8];
#pragma unroll
          for (int i = 0; i < 8; ++i) {
            const int h = i & 1, slot = i >> 1;  // row g + 8h, sample 32t + 4ks + slot
            const int vl = 16 * m + g + 8 * h;
            z[i] = T[vl * 4 + static_cast<int>((cur[2 * m + h] >> (2 * (4 * ks + slot))) & 3u)];
          }
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) mma_m16(acc[m][nt], z, b[nt]);
        }
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
        const int64_t v = M16 ? vw + 16 * m + g + 8 * (j >> 1) : vw + 8 * m + g;
        const int col = nt * 8 + 2 * t + (j & 1);
        if (v < a.rows) part[v * cols + col] = acc[m][nt][j];
      }
}

// ---------------------------------------------------------------------------------------------

// out[r * ld + c] = Σ_{s < splits} part[(s * rows + r) * 16 + c] (+ β out[r * ld + c] when β ≠ 0),
// r < rows, c < lc; the splits are added in order.
static __global__ void reduce_partials(const double* __restrict__ part, int splits, int64_t rows, int lc, double beta,
                                double* __restrict__ out, int64_t ld) {
  const int64_t total = rows * lc;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = e / lc;
    const int c = static_cast<int>(e - r * lc);
    double s = part[r * cols + c];
    for (int y = 1; y < splits; ++y) s += part[(y * rows + r) * cols + c];
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
