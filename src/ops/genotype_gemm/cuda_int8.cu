// INT8 tensor-core route of the CUDA genotype products (the why and the error bound: cuda_int8.hpp).
//
// One pass per group of ≤ 4 columns:
//   1. colmax: per column, the largest |value| (SΛ and D together for Z·Λ, Λ̃ for Zᵀ·Λ̃), as the
//      bits of a non-negative double (integer atomicMax orders them);
//   2. slice: the 8 base-128 digits of every value, written in the B-fragment order of the
//      product kernel, and their exact column sums T (int64) for the centring;
//   3. the product kernel: 2-bit codes → A fragments of counts (and missing-call indicators where a
//      warp's tile has any) → mma.m16n8k32.s8 with int32 accumulators, added across the splits of
//      the reduction by integer atomics (exact, so the result does not depend on their order);
//   4. finish: digits' sums → double, centring, scales, β.
//
// Fragments of mma.m16n8k32 (s8; g = lane / 4, t = lane % 4; each register 4 bytes = 4 K slots):
//   A 16×32: a0 = row g, K 4t..4t+3;  a1 = row g+8, K 4t..;  a2 = row g, K 16+4t..;  a3 = row g+8, K 16+4t..
//   B 32×8:  b0 = K 4t..4t+3, column g;  b1 = K 16+4t.., column g
//   C 16×8:  c0, c1 = row g, columns 2t, 2t+1;  c2, c3 = row g+8, same columns
// Column g of an n-tile is digit g of the tile's column of Λ. K slots may map to any reduction
// items as long as A and B agree; the maps below let each thread decode whole words of .bed rows.
//
// Z·Λ (zl_kernel; rows = samples, K = variants): a warp owns 128 samples, thread g the 16 samples
// of 32-bit word g of each row; a k-step is 32 variants, thread t reading variants 4t..4t+3 and
// 16+4t..16+4t+3. Four counts words (one per variant) are transposed with byte permutes so that
// each register holds one sample's 4 variants: sample 16g + q is row g + 8(q >> 3) of m-tile q & 7.
// Zᵀ·Λ̃ (ztl_kernel; rows = variants, K = samples): a warp owns 4 m-tiles (64 variants); a k-step is
// 128 samples, thread t holding the 64-bit word t (32 samples) of its rows g and g+8; K slot
// 4t + b of MMA h (h < 4) is sample 32t + 16(h >> 1) + 4b + 2(h & 1), slot 16 + 4t + b the next one.
// Both stage the k-step's genotype words and B fragments in shared memory by cp.async, 4 deep.
#include "ops/genotype_gemm/cuda_int8.hpp"

#include <algorithm>

#include "core/base128_digits.hpp"
#include "core/cuda_context.hpp"
#include "core/cuda_cp_async.cuh"
#include "ops/genotype_gemm/cuda_splits.hpp"

namespace pmx::kernels::cuda_detail::int8_route {
namespace {

using detail::cp_async;
using detail::cp_async_commit;
using detail::cp_async_wait;

constexpr int threads = 256;
constexpr int digits = detail::base128_digits;  // per value: 2^-55 of the column's scale
constexpr int stages = 4;
constexpr uint32_t low_bits = 0x55555555u;
constexpr uint32_t byte_fields = 0x03030303u;

// Z·Λ geometry
constexpr int zl_samples = 1024;  // per block (128 per warp)
constexpr int zl_kstep = 32;      // variants per k-step
constexpr int zl_words = zl_kstep * zl_samples / 4;  // bytes of genotype words per stage
// Zᵀ·Λ̃ geometry
constexpr int ztl_mtiles = 4;                         // per warp
constexpr int ztl_variants = 8 * ztl_mtiles * 16;     // per block
constexpr int ztl_kstep = 128;                        // samples per k-step
constexpr int ztl_words = ztl_variants * ztl_kstep / 4;

template <int NT>
constexpr int zl_stage_bytes = zl_words + 2 * NT * 256;  // words, B of X, B of Miss
template <int NT>
constexpr int ztl_stage_bytes = ztl_words + 4 * NT * 256;

// A1 counts of the 16 codes of w (.bed: 00 → 2, 10 → 1, 11 → 0, 01 missing → 0), 2 bits each.
__device__ __forceinline__ uint32_t counts(uint32_t w) {
  const uint32_t h = w >> 1;
  return (h & ~w & low_bits) | ((~(h | w) & low_bits) << 1);
}
// 1 in the low bit of each missing code (01).
__device__ __forceinline__ uint32_t missing(uint32_t w) { return w & ~(w >> 1) & low_bits; }

// w[b] byte i = byte b of c[i] (a 4×4 byte transpose).
__device__ __forceinline__ void transpose(const uint32_t (&c)[4], uint32_t (&w)[4]) {
  const uint32_t lo01 = __byte_perm(c[0], c[1], 0x5140), hi01 = __byte_perm(c[0], c[1], 0x7362);
  const uint32_t lo23 = __byte_perm(c[2], c[3], 0x5140), hi23 = __byte_perm(c[2], c[3], 0x7362);
  w[0] = __byte_perm(lo01, lo23, 0x5410);
  w[1] = __byte_perm(lo01, lo23, 0x7632);
  w[2] = __byte_perm(hi01, hi23, 0x5410);
  w[3] = __byte_perm(hi01, hi23, 0x7632);
}

__device__ __forceinline__ void mma(int (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint2 b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b.x), "r"(b.y));
#else
  (void)c, (void)a0, (void)a1, (void)a2, (void)a3, (void)b;
  __trap();
#endif
}

// Scale exponent of a column from its largest |value| (bits of a non-negative double).
__device__ __forceinline__ int exponent_of(unsigned long long bits) {
  return detail::column_exponent(__longlong_as_double(static_cast<long long>(bits)));
}
__device__ __forceinline__ int digit(double v, int e, int s) { return detail::base128_digit(v, e, s); }
__device__ __forceinline__ uint32_t byte_of(int d, int b) { return (static_cast<uint32_t>(d) & 0xFFu) << (8 * b); }

// Values of column c at reduction item r: Z·Λ (s_r Λ_rc and 2p_r s_r Λ_rc), Zᵀ·Λ̃ (Λ̃_rc).
struct values {
  const double* in;
  int64_t ld;
  const double* p;      // null for Zᵀ·Λ̃
  const double* scale;  // null: 1
  __device__ __forceinline__ double lam(int64_t r, int c) const {
    const double x = in[r * ld + c];
    return scale ? scale[r] * x : x;
  }
  __device__ __forceinline__ double centring(int64_t r, double lam_rc) const { return (2.0 * p[r]) * lam_rc; }
};

__global__ void colmax_kernel(values v, int64_t rows, int lc, unsigned long long* maxbits) {
  double m[max_columns] = {0, 0, 0, 0};
  for (int64_t r = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; r < rows; r += int64_t{gridDim.x} * blockDim.x)
#pragma unroll
    for (int c = 0; c < max_columns; ++c)
      if (c < lc) {
        const double x = v.lam(r, c);
        m[c] = fmax(m[c], fabs(x));
        if (v.p) m[c] = fmax(m[c], fabs(v.centring(r, x)));
      }
#pragma unroll
  for (int c = 0; c < max_columns; ++c) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) m[c] = fmax(m[c], __shfl_xor_sync(0xFFFFFFFFu, m[c], off));
    if ((threadIdx.x & 31) == 0 && c < lc)
      atomicMax(maxbits + c, static_cast<unsigned long long>(__double_as_longlong(m[c])));
  }
}

// Adds this thread's digit sum of (column nt, digit g) to T through a block-level total.
__device__ __forceinline__ void add_sums(long long* block_sums, int nt, int g, long long mine) {
  if (mine != 0) atomicAdd(reinterpret_cast<unsigned long long*>(block_sums + nt * digits + g),
                           static_cast<unsigned long long>(mine));
}
__device__ __forceinline__ void flush_sums(long long* block_sums, int nt_count, long long* T) {
  __syncthreads();
  if (threadIdx.x < nt_count * digits && block_sums[threadIdx.x] != 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(T + threadIdx.x),
              static_cast<unsigned long long>(block_sums[threadIdx.x]));
}

// Z·Λ digits: item ((ks · NT + nt) · 32 + lane) holds b0 (variants 32ks + 4t + i) and b1 (32ks + 16 +
// 4t + i), digit g of column nt, for X (bx) and Miss (bm); T sums the D digits.
__global__ void zl_slice_kernel(values v, int64_t k, int nt_count, int64_t ksteps, const unsigned long long* maxbits,
                                uint2* bx, uint2* bm, long long* T) {
  __shared__ long long sums[max_columns * digits];
  if (threadIdx.x < max_columns * digits) sums[threadIdx.x] = 0;
  __syncthreads();
  const int64_t items = ksteps * nt_count * 32;
  for (int64_t it = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; it < items; it += int64_t{gridDim.x} * blockDim.x) {
    const int lane = static_cast<int>(it & 31), g = lane >> 2, t = lane & 3;
    const int nt = static_cast<int>((it >> 5) % nt_count);
    const int64_t ks = (it >> 5) / nt_count;
    const int e = exponent_of(maxbits[nt]);
    uint32_t x[2] = {0, 0}, m[2] = {0, 0};
    long long sum = 0;
#pragma unroll
    for (int half = 0; half < 2; ++half)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int64_t j = ks * zl_kstep + 16 * half + 4 * t + i;
        if (j >= k) continue;
        const double lam = v.lam(j, nt);
        const int dx = digit(lam, e, g), dm = digit(v.centring(j, lam), e, g);
        x[half] |= byte_of(dx, i);
        m[half] |= byte_of(dm, i);
        sum += dm;
      }
    bx[it] = make_uint2(x[0], x[1]);
    bm[it] = make_uint2(m[0], m[1]);
    add_sums(sums, nt, g, sum);
  }
  flush_sums(sums, nt_count, T);
}

// Zᵀ·Λ̃ digits: item (((ks · 4 + h) · NT + nt) · 32 + lane): b0 byte b = digit g of Λ̃ at sample
// 128ks + 32t + 16(h >> 1) + 4b + 2(h & 1), b1 byte b = the next sample; T sums all digits.
__global__ void ztl_slice_kernel(values v, int64_t n, int nt_count, int64_t ksteps, const unsigned long long* maxbits,
                                 uint2* b, long long* T) {
  __shared__ long long sums[max_columns * digits];
  if (threadIdx.x < max_columns * digits) sums[threadIdx.x] = 0;
  __syncthreads();
  const int64_t items = ksteps * 4 * nt_count * 32;
  for (int64_t it = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; it < items; it += int64_t{gridDim.x} * blockDim.x) {
    const int lane = static_cast<int>(it & 31), g = lane >> 2, t = lane & 3;
    const int64_t q = it >> 5;
    const int nt = static_cast<int>(q % nt_count);
    const int h = static_cast<int>((q / nt_count) & 3);
    const int64_t ks = q / nt_count / 4;
    const int e = exponent_of(maxbits[nt]);
    uint32_t w[2] = {0, 0};
    long long sum = 0;
#pragma unroll
    for (int bb = 0; bb < 4; ++bb)
#pragma unroll
      for (int nx = 0; nx < 2; ++nx) {
        const int64_t i = ks * ztl_kstep + 32 * t + 16 * (h >> 1) + 4 * bb + 2 * (h & 1) + nx;
        if (i >= n) continue;
        const int d = digit(v.lam(i, nt), e, g);
        w[nx] |= byte_of(d, bb);
        sum += d;
      }
    b[it] = make_uint2(w[0], w[1]);
    add_sums(sums, nt, g, sum);
  }
  flush_sums(sums, nt_count, T);
}

struct kernel_args {
  const uint8_t* geno;
  int64_t pitch;
  int64_t n, k;
  int64_t ks_per_split;
  const uint2* b;   // digits for X (and for Miss in Zᵀ·Λ̃)
  const uint2* bm;  // digits for Miss (Z·Λ)
  int* acc;         // [out rows][NT * 8]
  int* acc_miss;    // Zᵀ·Λ̃: [variants][NT * 8]
};

// The k-steps of this block's split (blockIdx.y) of `total` k-steps: the first in ks0, the count
// returned.
__device__ __forceinline__ int split_ksteps(int64_t total, int64_t per_split, int64_t& ks0) {
  ks0 = int64_t{blockIdx.y} * per_split;
  return static_cast<int>(min(per_split, total - ks0));
}

// The cp.async pipeline over a block's nks k-steps, `stages` deep: load(slot, kk) stages k-step kk
// in shared-memory slot `slot`; compute(kk % stages) runs once k-step kk has arrived, while the
// next stages − 1 are in flight.
template <class Load, class Compute>
__device__ __forceinline__ void pipelined(int nks, Load load, Compute compute) {
#pragma unroll
  for (int s = 0; s < stages - 1; ++s) {
    if (s < nks) load(s, s);
    cp_async_commit();
  }
  for (int kk = 0; kk < nks; ++kk) {
    cp_async_wait<stages - 2>();
    __syncthreads();
    if (kk + stages - 1 < nks) load((kk + stages - 1) % stages, kk + stages - 1);
    cp_async_commit();
    compute(kk % stages);
  }
  cp_async_wait<0>();
}

template <int NT>
__global__ void __launch_bounds__(threads, 1) zl_kernel(kernel_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int S = zl_stage_bytes<NT>;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  const int64_t byte0 = int64_t{blockIdx.x} * (zl_samples / 4);
  int64_t ks0;
  const int nks = split_ksteps((a.k + zl_kstep - 1) / zl_kstep, a.ks_per_split, ks0);

  // Row r of a stage: 16 chunks of 16 bytes, chunk c stored at c ^ 2((r >> 2) & 3) so that the
  // four rows a warp reads at once (4t + i, t < 4) fall in different banks.
  auto load = [&](int slot, int kk) {
    unsigned char* st = smem + slot * S;
    const int64_t ks = ks0 + kk;
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int c = tid + threads * e, r = c >> 4, ch = c & 15;
      const int64_t v = ks * zl_kstep + r, off = byte0 + 16 * ch;
      const bool ok = v < a.k && off + 16 <= a.pitch;
      cp_async<16>(st + r * 256 + ((ch ^ (((r >> 2) & 3) << 1)) << 4), ok ? a.geno + v * a.pitch + off : a.geno, ok);
    }
    if (tid < 2 * NT * 16) {
      const int set = tid / (NT * 16), q = tid % (NT * 16);
      const unsigned char* src = reinterpret_cast<const unsigned char*>((set ? a.bm : a.b) + ks * NT * 32) + 16 * q;
      cp_async<16>(st + zl_words + set * NT * 256 + 16 * q, src, true);
    }
  };

  int acc[8][NT][4] = {};
  const int xo = (((2 * warp + (g >> 2)) ^ (t << 1)) << 2) + (g & 3);  // thread's word in a stage row
  pipelined(nks, load, [&](int slot) {
    const unsigned char* st = smem + slot * S;
    const uint32_t* W = reinterpret_cast<const uint32_t*>(st);
    uint32_t c1[4], c2[4], m1[4], m2[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t w1 = W[(4 * t + i) * 64 + xo], w2 = W[(16 + 4 * t + i) * 64 + xo];
      c1[i] = counts(w1), c2[i] = counts(w2);
      m1[i] = missing(w1), m2[i] = missing(w2);
    }
    const uint2* B = reinterpret_cast<const uint2*>(st + zl_words);
    auto multiply = [&](const uint32_t (&x1)[4], const uint32_t (&x2)[4], const uint2* Bset) {
      uint32_t T1[4], T2[4];
      transpose(x1, T1);
      transpose(x2, T2);
      uint2 b[NT];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) b[nt] = Bset[nt * 32 + lane];
#pragma unroll
      for (int m = 0; m < 8; ++m) {
        const int sh = 2 * (m & 3), lo = m >> 2, hi = lo + 2;  // q = m (row g) and q = m + 8 (row g + 8)
        const uint32_t a0 = (T1[lo] >> sh) & byte_fields, a1 = (T1[hi] >> sh) & byte_fields;
        const uint32_t a2 = (T2[lo] >> sh) & byte_fields, a3 = (T2[hi] >> sh) & byte_fields;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma(acc[m][nt], a0, a1, a2, a3, b[nt]);
      }
    };
    multiply(c1, c2, B);
    const bool any_missing = (m1[0] | m1[1] | m1[2] | m1[3] | m2[0] | m2[1] | m2[2] | m2[3]) != 0;
    if (__any_sync(0xFFFFFFFFu, any_missing)) multiply(m1, m2, B + NT * 32);
  });

  const int64_t s0 = int64_t{blockIdx.x} * zl_samples + warp * 128 + 16 * g;
#pragma unroll
  for (int m = 0; m < 8; ++m)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int64_t s = s0 + m + 8 * (e >> 1);
      if (s >= a.n) continue;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
        if (acc[m][nt][e] != 0) atomicAdd(a.acc + s * (NT * 8) + nt * 8 + 2 * t + (e & 1), acc[m][nt][e]);
    }
}

template <int NT>
__global__ void __launch_bounds__(threads, 1) ztl_kernel(kernel_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int S = ztl_stage_bytes<NT>;
  constexpr int MT = ztl_mtiles;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  const int64_t v0 = int64_t{blockIdx.x} * ztl_variants;
  int64_t ks0;
  const int nks = split_ksteps((a.n + ztl_kstep - 1) / ztl_kstep, a.ks_per_split, ks0);

  // Row r of a stage: the k-step's 32 bytes of variant v0 + r (a warp's 8 rows g of an m-tile are
  // 256 contiguous bytes: one conflict-free 64-bit load).
  auto load = [&](int slot, int kk) {
    unsigned char* st = smem + slot * S;
    const int64_t ks = ks0 + kk;
#pragma unroll
    for (int e = 0; e < ztl_words / 16 / threads; ++e) {
      const int c = tid + threads * e, r = c >> 1, h = c & 1;
      const int64_t v = v0 + r, off = ks * 32 + 16 * h;
      const bool ok = v < a.k && off + 16 <= a.pitch;
      cp_async<16>(st + r * 32 + 16 * h, ok ? a.geno + v * a.pitch + off : a.geno, ok);
    }
    if (tid < NT * 64)
      cp_async<16>(st + ztl_words + 16 * tid,
                   reinterpret_cast<const unsigned char*>(a.b + ks * 4 * NT * 32) + 16 * tid, true);
  };

  int acc[MT][NT][4] = {}, accm[MT][NT][4] = {};
  pipelined(nks, load, [&](int slot) {
    const unsigned char* st = smem + slot * S;
    const uint2* B = reinterpret_cast<const uint2*>(st + ztl_words);
    uint2 b[4][NT];
#pragma unroll
    for (int h = 0; h < 4; ++h)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) b[h][nt] = B[(h * NT + nt) * 32 + lane];
#pragma unroll
    for (int m = 0; m < MT; ++m) {
      const int row = warp * 16 * MT + 16 * m + g;
      const uint2 xg = reinterpret_cast<const uint2*>(st + row * 32)[t];
      const uint2 xh = reinterpret_cast<const uint2*>(st + (row + 8) * 32)[t];
      auto multiply = [&](int (&c)[NT][4], bool miss) {
        const auto decode = [miss](uint32_t w) { return miss ? missing(w) : counts(w); };
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const uint32_t cg = decode(half ? xg.y : xg.x), ch = decode(half ? xh.y : xh.x);
#pragma unroll
          for (int jp = 0; jp < 2; ++jp) {
            const int h = 2 * half + jp;
            const uint32_t a0 = (cg >> (4 * jp)) & byte_fields, a2 = (cg >> (4 * jp + 2)) & byte_fields;
            const uint32_t a1 = (ch >> (4 * jp)) & byte_fields, a3 = (ch >> (4 * jp + 2)) & byte_fields;
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) mma(c[nt], a0, a1, a2, a3, b[h][nt]);
          }
        }
      };
      multiply(acc[m], false);
      const bool any_missing = (missing(xg.x) | missing(xg.y) | missing(xh.x) | missing(xh.y)) != 0;
      if (__any_sync(0xFFFFFFFFu, any_missing)) multiply(accm[m], true);
    }
  });

#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int64_t v = v0 + warp * 16 * MT + 16 * m + g + 8 * (e >> 1);
      if (v >= a.k) continue;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const int64_t at = v * (NT * 8) + nt * 8 + 2 * t + (e & 1);
        if (acc[m][nt][e] != 0) atomicAdd(a.acc + at, acc[m][nt][e]);
        if (accm[m][nt][e] != 0) atomicAdd(a.acc_miss + at, accm[m][nt][e]);
      }
    }
}

__device__ __forceinline__ double combine(const long long (&x)[digits], int e) {
  return detail::base128_combine(x, detail::base128_weights(e));
}

// Y[i][c] = Σ_s w_s (acc − T) (+ β Y).
__global__ void zl_finish_kernel(const int* acc, const long long* T, const unsigned long long* maxbits, int64_t n,
                                 int lc, double beta, double* out, int64_t ld) {
  const int64_t total = n * lc;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = e / lc;
    const int c = static_cast<int>(e - i * lc);
    long long x[digits];
#pragma unroll
    for (int s = 0; s < digits; ++s) x[s] = static_cast<long long>(acc[i * lc * 8 + c * 8 + s]) - T[c * 8 + s];
    const double y = combine(x, exponent_of(maxbits[c]));
    double& o = out[i * ld + c];
    o = beta == 0 ? y : y + beta * o;
  }
}

// W[j][c] = s_j (Σ_s w_s acc − 2p_j Σ_s w_s (T − acc_miss)) (+ β W).
__global__ void ztl_finish_kernel(const int* acc, const int* acc_miss, const long long* T,
                                  const unsigned long long* maxbits, const double* p, const double* scale, int64_t k,
                                  int lc, double beta, double* out, int64_t ld) {
  const int64_t total = k * lc;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t j = e / lc;
    const int c = static_cast<int>(e - j * lc);
    const int ex = exponent_of(maxbits[c]);
    long long x[digits], called[digits];
#pragma unroll
    for (int s = 0; s < digits; ++s) {
      const int64_t at = j * lc * 8 + c * 8 + s;
      x[s] = acc[at];
      called[s] = T[c * 8 + s] - acc_miss[at];
    }
    const double sj = scale ? scale[j] : 1.0;
    const double y = sj * (combine(x, ex) - (2.0 * p[j]) * combine(called, ex));
    double& o = out[j * ld + c];
    o = beta == 0 ? y : y + beta * o;
  }
}

// One m16n8k32 with A[r][q] = (r + 3q) % 5 − 2, B[q][c] = (2q + c) % 7 − 3 through the fragment map
// above; d = A·B row-major (16 × 8).
__global__ void layout_selftest(int* d) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  uint32_t a[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i)
    for (int b = 0; b < 4; ++b) {
      const int r = g + 8 * (i & 1), q = 4 * t + 16 * (i >> 1) + b;
      a[i] |= byte_of((r + 3 * q) % 5 - 2, b);
    }
  uint2 bb = make_uint2(0, 0);
  for (int b = 0; b < 4; ++b) {
    bb.x |= byte_of((2 * (4 * t + b) + g) % 7 - 3, b);
    bb.y |= byte_of((2 * (16 + 4 * t + b) + g) % 7 - 3, b);
  }
  int c[4] = {0, 0, 0, 0};
  mma(c, a[0], a[1], a[2], a[3], bb);
  for (int e = 0; e < 4; ++e) d[(g + 8 * (e >> 1)) * 8 + 2 * t + (e & 1)] = c[e];
}

bool layout_ok(cudaStream_t s) {
  static int verdict = -1;  // per process (one device model)
  if (verdict >= 0) return verdict == 1;
  int major = 0, dev = 0;
  PMX_CUDA_CHECK(cudaGetDevice(&dev));
  PMX_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major < 8) return (verdict = 0) == 1;
  int* d = nullptr;
  PMX_CUDA_CHECK(cudaMalloc(&d, 128 * sizeof(int)));
  layout_selftest<<<1, 32, 0, s>>>(d);
  PMX_CUDA_CHECK_LAUNCH();
  int h[128];
  PMX_CUDA_CHECK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  PMX_CUDA_CHECK(cudaFree(d));
  bool ok = true;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      int want = 0;
      for (int q = 0; q < 32; ++q) want += ((r + 3 * q) % 5 - 2) * ((2 * q + c) % 7 - 3);
      ok = ok && h[r * 8 + c] == want;
    }
  verdict = ok ? 1 : 0;
  return ok;
}

template <class Kernel>
int blocks_per_sm(Kernel kernel, int smem) {
  PMX_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int b = 0;
  PMX_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, threads, smem));
  return std::max(b, 1);
}

template <int NT>
void launch_product(cudaStream_t s, int sms, bool transposed, kernel_args a) {
  if (!transposed) {
    constexpr int smem = stages * zl_stage_bytes<NT>;
    static const int occ = blocks_per_sm(zl_kernel<NT>, smem);
    const int64_t bx = ceil_div(a.n, zl_samples), ks_total = ceil_div(a.k, zl_kstep);
    const int64_t splits = choose_splits(bx, int64_t{sms} * occ, ks_total, 16, 64);
    a.ks_per_split = ceil_div(ks_total, splits);
    const dim3 grid(static_cast<unsigned>(bx), static_cast<unsigned>(ceil_div(ks_total, a.ks_per_split)));
    zl_kernel<NT><<<grid, threads, smem, s>>>(a);
  } else {
    constexpr int smem = stages * ztl_stage_bytes<NT>;
    static const int occ = blocks_per_sm(ztl_kernel<NT>, smem);
    const int64_t bx = ceil_div(a.k, ztl_variants), ks_total = ceil_div(a.n, ztl_kstep);
    const int64_t splits = choose_splits(bx, int64_t{sms} * occ, ks_total, 16, 64);
    a.ks_per_split = ceil_div(ks_total, splits);
    const dim3 grid(static_cast<unsigned>(bx), static_cast<unsigned>(ceil_div(ks_total, a.ks_per_split)));
    ztl_kernel<NT><<<grid, threads, smem, s>>>(a);
  }
  PMX_CUDA_CHECK_LAUNCH();
}

// Scratch: column maxima, digit sums, digits (X, Miss), accumulators (X, Miss), 256-byte aligned.
struct scratch_layout {
  int64_t maxbits, sums, b, bm, acc, acc_miss, total;
};
int64_t align256(int64_t x) { return (x + 255) / 256 * 256; }
scratch_layout layout_for(bool transposed, int64_t n, int64_t k) {
  // Digits: 8 bytes per value and column (4 columns), the reduction padded to whole k-steps.
  const int64_t red = transposed ? ceil_div(n, ztl_kstep) * ztl_kstep : ceil_div(k, zl_kstep) * zl_kstep;
  const int64_t rows = transposed ? k : n;
  scratch_layout s{};
  s.maxbits = 0;
  s.sums = 256;
  s.b = s.sums + align256(max_columns * digits * 8);
  s.bm = s.b + align256(red * max_columns * digits);
  s.acc = s.bm + (transposed ? 0 : align256(red * max_columns * digits));
  s.acc_miss = s.acc + align256(rows * max_columns * digits * 4);
  s.total = s.acc_miss + (transposed ? align256(rows * max_columns * digits * 4) : 0);
  return s;
}


}  // namespace

bool applies(cudaStream_t s, bool transposed, int64_t n, int64_t k) {
  const int64_t reduction = transposed ? n : k;
  if (reduction >= 16'000'000) return false;
  return layout_ok(s);
}

int64_t scratch_bytes(bool transposed, int64_t n, int64_t k) { return layout_for(transposed, n, k).total; }

void run(cudaStream_t s, int sms, const product& pr, void* scratch) {
  const scratch_layout L = layout_for(pr.transposed, pr.n, pr.k);
  auto* base = static_cast<unsigned char*>(scratch);
  auto* maxbits = reinterpret_cast<unsigned long long*>(base + L.maxbits);
  auto* T = reinterpret_cast<long long*>(base + L.sums);
  auto* b = reinterpret_cast<uint2*>(base + L.b);
  auto* bm = reinterpret_cast<uint2*>(base + L.bm);
  auto* acc = reinterpret_cast<int*>(base + L.acc);
  auto* acc_miss = reinterpret_cast<int*>(base + L.acc_miss);
  const int64_t red = pr.transposed ? pr.n : pr.k, rows = pr.transposed ? pr.k : pr.n;
  const int64_t ksteps = pr.transposed ? ceil_div(pr.n, ztl_kstep) : ceil_div(pr.k, zl_kstep);
  const auto grid_for = [&](int64_t items) {
    return static_cast<unsigned>(std::clamp<int64_t>(ceil_div(items, threads), 1, int64_t{sms} * 8));
  };
  for (int64_t c0 = 0; c0 < pr.l; c0 += max_columns) {
    const int lc = static_cast<int>(std::min<int64_t>(max_columns, pr.l - c0));
    const values v{pr.in + c0, pr.ld_in, pr.transposed ? nullptr : pr.p, pr.transposed ? nullptr : pr.scale};
    PMX_CUDA_CHECK(cudaMemsetAsync(base, 0, static_cast<size_t>(L.b), s));  // maxima and sums
    PMX_CUDA_CHECK(cudaMemsetAsync(acc, 0, static_cast<size_t>(rows * lc * digits * 4), s));
    if (pr.transposed) PMX_CUDA_CHECK(cudaMemsetAsync(acc_miss, 0, static_cast<size_t>(rows * lc * digits * 4), s));
    colmax_kernel<<<grid_for(red), threads, 0, s>>>(v, red, lc, maxbits);
    PMX_CUDA_CHECK_LAUNCH();
    if (pr.transposed)
      ztl_slice_kernel<<<grid_for(ksteps * 4 * lc * 32), threads, 0, s>>>(v, pr.n, lc, ksteps, maxbits, b, T);
    else
      zl_slice_kernel<<<grid_for(ksteps * lc * 32), threads, 0, s>>>(v, pr.k, lc, ksteps, maxbits, b, bm, T);
    PMX_CUDA_CHECK_LAUNCH();
    const kernel_args a{pr.geno, pr.pitch, pr.n, pr.k, 0, b, bm, acc, acc_miss};
    switch (lc) {
      case 1: launch_product<1>(s, sms, pr.transposed, a); break;
      case 2: launch_product<2>(s, sms, pr.transposed, a); break;
      case 3: launch_product<3>(s, sms, pr.transposed, a); break;
      default: launch_product<4>(s, sms, pr.transposed, a); break;
    }
    if (pr.transposed)
      ztl_finish_kernel<<<grid_for(rows * lc), threads, 0, s>>>(acc, acc_miss, T, maxbits, pr.p, pr.scale, pr.k, lc,
                                                                pr.beta, pr.out + c0, pr.ld_out);
    else
      zl_finish_kernel<<<grid_for(rows * lc), threads, 0, s>>>(acc, T, maxbits, pr.n, lc, pr.beta, pr.out + c0,
                                                               pr.ld_out);
    PMX_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace pmx::kernels::cuda_detail::int8_route
