// Device half of the CUDA crossprod: plane building and the AND+POPC product kernels (mma.sync
// for sm_80+, wgmma for sm_90a). The interface, the plane layout and the sums are described in
// cuda_planes.cuh; cuda.cu plans the calls and moves the data.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/cuda_context.hpp"
#include "ops/crossprod/cuda_planes.cuh"
#include "ops/crossprod/cuda_wgmma.cuh"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda_detail {
namespace {

constexpr int block_threads = 256;
constexpr int stages = 4;
constexpr int group_m = 8;  // raster: 8 row tiles sweep the column tiles together (L2 reuse)
// What `automatic` means where the device runs both (compute capability 9.0): wgmma measured
// 1.5-1.8x faster than mma.sync on an H200 (bench/bench_cuda_crossprod.cu).
constexpr mma_kind default_kind = mma_kind::wgmma;

__device__ __forceinline__ void cp_async16(uint32_t smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
// D += popc(A & B) over 256 columns: A 16 rows (row-major fragment), B 8 rows (col-major).
__device__ __forceinline__ void mma_and_popc(int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Even bits of a 64-bit word gathered into 32 bits (bit 2j -> bit j).
__device__ __forceinline__ uint32_t even_bits(uint64_t x) {
  x &= 0x5555555555555555ull;
  x = (x | (x >> 1)) & 0x3333333333333333ull;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
  return static_cast<uint32_t>(x);
}

__global__ void build_planes_kernel(const uint64_t* __restrict__ raw, int64_t raw_words, int64_t rows,
                                    int64_t columns, int64_t out_words, uint32_t* h, uint32_t* d, uint32_t* c,
                                    int64_t pitch_words) {
  const int64_t total = rows * out_words;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = t / out_words, w = t - r * out_words;
    uint32_t hv = 0, dv = 0, cv = 0;
    const int64_t left = columns - 32 * w;
    if (left > 0) {
      // Codes: 00 -> 2, 01 -> missing, 10 -> 1, 11 -> 0 (lo = bit 0, hi = bit 1 of each lane).
      const uint64_t x = raw[r * raw_words + w];
      const uint32_t lo = even_bits(x), hi = even_bits(x >> 1);
      const uint32_t valid = left >= 32 ? 0xFFFFFFFFu : ((1u << left) - 1u);
      hv = ~lo & valid;
      dv = ~(lo | hi) & valid;
      cv = (~lo | hi) & valid;
    }
    const int64_t o = r * pitch_words + w;
    if (h) h[o] = hv;
    if (d) d[o] = dv;
    if (c) c[o] = cv;
  }
}

struct gemm_args {
  const uint8_t* a[2];
  const uint8_t* b[2];
  int64_t pitch;  // bytes per plane row (A and B)
  int k_steps;    // 512-column steps
  int grid_m, grid_n;
  int64_t a_global, b_global;
  int skip_upper;
  int n_targets;
  int32_t* out[2];
  int mult[2];
  int64_t ldo;
};

// Shared memory of one stage: NPA planes x TA rows of A, then NPB planes x TB rows of B, 64 bytes
// (512 columns) per row. The four 16-byte chunks of a row are stored at chunk ^ ((row >> 1) & 3):
// the 8 rows one ldmatrix phase reads fall on 8 distinct bank groups, and the layout is exactly
// the K-major 64-byte-swizzle layout wgmma reads (Swizzle<2,4,3>: address bits 4-5 ^= bits 7-8).
template <int TA, int TB, int NPA, int NPB>
__device__ __forceinline__ void load_stage(const gemm_args& g, uint32_t st, int kt, int64_t m0, int64_t n0) {
  constexpr int a_bytes = NPA * TA * 64;
  const int tid = threadIdx.x;
  const int64_t kb = int64_t{kt} * 64;
#pragma unroll
  for (int p = 0; p < NPA; ++p)
#pragma unroll
    for (int i = 0; i < TA * 4 / block_threads; ++i) {
      const int idx = tid + i * block_threads, r = idx >> 2, q = idx & 3;
      cp_async16(st + p * TA * 64 + r * 64 + ((q ^ ((r >> 1) & 3)) << 4), g.a[p] + (m0 + r) * g.pitch + kb + q * 16);
    }
#pragma unroll
  for (int p = 0; p < NPB; ++p)
#pragma unroll
    for (int i = 0; i < TB * 4 / block_threads; ++i) {
      const int idx = tid + i * block_threads, r = idx >> 2, q = idx & 3;
      cp_async16(st + a_bytes + p * TB * 64 + r * 64 + ((q ^ ((r >> 1) & 3)) << 4),
                 g.b[p] + (n0 + r) * g.pitch + kb + q * 16);
    }
}

// Block -> output tile, grouped raster (group_m row tiles sweep the column tiles together); false
// when a symmetric call needs nothing from the tile (every pair above the diagonal).
template <int TA, int TB>
__device__ __forceinline__ bool tile_of_block(const gemm_args& g, int64_t& m0, int64_t& n0) {
  const int per_group = group_m * g.grid_n;
  const int group = blockIdx.x / per_group, first_m = group * group_m;
  const int group_rows = min(g.grid_m - first_m, group_m);
  const int local = blockIdx.x - group * per_group;
  m0 = int64_t{first_m + local % group_rows} * TA;
  n0 = int64_t{local / group_rows} * TB;
  return !(g.skip_upper && g.b_global + n0 > g.a_global + m0 + TA - 1);
}

__device__ __forceinline__ void add_pair(const gemm_args& g, int64_t r, int64_t c, int v0, int v1) {
#pragma unroll
  for (int t = 0; t < 2; ++t) {
    if (t >= g.n_targets) break;
    int2* p = reinterpret_cast<int2*>(g.out[t] + r * g.ldo + c);
    int2 v = *p;
    v.x += g.mult[t] * v0;
    v.y += g.mult[t] * v1;
    *p = v;
  }
}

// ---- mma.sync path (sm_80+): 256 x 128 tiles, 8 warps of 64 x 64, fragments by ldmatrix -------
template <int NPA, int NPB, int PAIRS>
__global__ void __launch_bounds__(block_threads, 1) and_popc_mma_sync(const gemm_args g) {
  constexpr int TA = 256, TB = 128;
  constexpr int a_bytes = NPA * TA * 64;
  constexpr int stage_bytes = a_bytes + NPB * TB * 64;
  extern __shared__ __align__(1024) uint8_t smem[];
  int64_t m0, n0;
  if (!tile_of_block<TA, TB>(g, m0, n0)) return;

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 1, wn = warp & 1;
  const uint32_t sbase = static_cast<uint32_t>(__cvta_generic_to_shared(smem));

  // ldmatrix lane addresses. A (x4): matrices (rows 0-7, chunk k), (rows 8-15, k), (0-7, k+1),
  // (8-15, k+1) = a0..a3 of m16n8k256. B (x4): (rows 0-7, k), (0-7, k+1), (8-15, k), (8-15, k+1)
  // = b0, b1 of two adjacent n8 blocks.
  const int a_row = (lane & 7) + (((lane >> 3) & 1) << 3), a_sw = (a_row >> 1) & 3;
  const int b_row = (lane & 7) + ((lane >> 4) << 3), b_sw = (b_row >> 1) & 3;
  uint32_t a_off[2], b_off[2];
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
    a_off[ks] = (wm * 64 + a_row) * 64 + (((2 * ks + (lane >> 4)) ^ a_sw) << 4);
    b_off[ks] = a_bytes + (wn * 64 + b_row) * 64 + (((2 * ks + ((lane >> 3) & 1)) ^ b_sw) << 4);
  }

  int acc[4][8][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0;

  const int kt_end = g.k_steps;
#pragma unroll
  for (int s = 0; s < stages - 1; ++s) {
    if (s < kt_end) load_stage<TA, TB, NPA, NPB>(g, sbase + s * stage_bytes, s, m0, n0);
    cp_async_commit();
  }
  for (int kt = 0; kt < kt_end; ++kt) {
    cp_async_wait<stages - 2>();
    __syncthreads();
    {
      const int next = kt + stages - 1;
      if (next < kt_end) load_stage<TA, TB, NPA, NPB>(g, sbase + (next % stages) * stage_bytes, next, m0, n0);
      cp_async_commit();
    }
    const uint32_t st = sbase + (kt % stages) * stage_bytes;
#pragma unroll
    for (int ks = 0; ks < 2; ++ks) {
      uint32_t bf[NPB][8][2];
#pragma unroll
      for (int pb = 0; pb < NPB; ++pb)
#pragma unroll
        for (int jj = 0; jj < 4; ++jj)
          ldmatrix_x4(bf[pb][2 * jj][0], bf[pb][2 * jj][1], bf[pb][2 * jj + 1][0], bf[pb][2 * jj + 1][1],
                      st + b_off[ks] + pb * TB * 64 + jj * 16 * 64);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        uint32_t af[NPA][4];
#pragma unroll
        for (int pa = 0; pa < NPA; ++pa)
          ldmatrix_x4(af[pa][0], af[pa][1], af[pa][2], af[pa][3], st + a_off[ks] + pa * TA * 64 + i * 16 * 64);
        // Pairs outer, n8 blocks inner: consecutive MMAs feed different accumulators.
#pragma unroll
        for (int pa = 0; pa < NPA; ++pa)
#pragma unroll
          for (int pb = 0; pb < NPB; ++pb)
            if (PAIRS & (1 << (pa * 2 + pb)))
#pragma unroll
              for (int j = 0; j < 8; ++j) mma_and_popc(acc[i][j], af[pa], bf[pb][j][0], bf[pb][j][1]);
      }
    }
  }
  cp_async_wait<0>();

  // Accumulator (m16n8): e = 0,1 -> row lane/4, columns 2*(lane%4) + {0,1}; e = 2,3 -> row + 8.
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        add_pair(g, m0 + wm * 64 + i * 16 + (lane >> 2) + 8 * h, n0 + wn * 64 + j * 8 + (lane & 3) * 2,
                 acc[i][j][2 * h], acc[i][j][2 * h + 1]);
}

// ---- wgmma path (sm_90a): 128 x 256 tiles, 2 warpgroups of m64 x n256, operands read by the
// tensor cores straight from shared memory through matrix descriptors -------------------------
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PMX_HAVE_WGMMA 1
#endif

#ifdef PMX_HAVE_WGMMA
// K-major, 64-byte swizzle: 8-row groups 512 bytes apart (SBO); LBO unused for swizzled K-major.
__device__ __forceinline__ uint64_t sw64_desc(uint32_t smem_addr) {
  return (uint64_t{(smem_addr & 0x3FFFFu) >> 4}) | (uint64_t{1} << 16) | (uint64_t{512 >> 4} << 32) |
         (uint64_t{2} << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void keep_in_registers(int (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 128; ++i) asm volatile("" : "+r"(d[i])::"memory");
}
#endif

template <int NPA, int NPB, int PAIRS>
__global__ void __launch_bounds__(block_threads, 1) and_popc_wgmma(const gemm_args g) {
#ifdef PMX_HAVE_WGMMA
  constexpr int TA = 128, TB = 256;
  constexpr int a_bytes = NPA * TA * 64;
  constexpr int stage_bytes = a_bytes + NPB * TB * 64;
  extern __shared__ __align__(1024) uint8_t smem[];
  int64_t m0, n0;
  if (!tile_of_block<TA, TB>(g, m0, n0)) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wg = warp >> 2;
  // The swizzle is a function of the address: stages start on 1 KiB boundaries (1 KiB extra asked).
  const uint32_t sbase = (static_cast<uint32_t>(__cvta_generic_to_shared(smem)) + 1023u) & ~1023u;

  int acc[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0;

  // Stage kt + stages - 2 is loaded while stage kt computes: its buffer last fed the wgmma group
  // of iteration kt - 2, which every warpgroup has waited for before this iteration's barrier.
  const int kt_end = g.k_steps;
#pragma unroll
  for (int s = 0; s < stages - 2; ++s) {
    if (s < kt_end) load_stage<TA, TB, NPA, NPB>(g, sbase + s * stage_bytes, s, m0, n0);
    cp_async_commit();
  }
  for (int kt = 0; kt < kt_end; ++kt) {
    cp_async_wait<stages - 3>();
    fence_proxy_async();  // this thread's cp.async writes -> visible to the tensor cores' reads
    __syncthreads();
    {
      const int next = kt + stages - 2;
      if (next < kt_end) load_stage<TA, TB, NPA, NPB>(g, sbase + (next % stages) * stage_bytes, next, m0, n0);
      cp_async_commit();
    }
    const uint32_t st = sbase + (kt % stages) * stage_bytes;
    keep_in_registers(acc);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 2; ++ks)
#pragma unroll
      for (int pa = 0; pa < NPA; ++pa)
#pragma unroll
        for (int pb = 0; pb < NPB; ++pb)
          if (PAIRS & (1 << (pa * 2 + pb)))
            wgmma_and_popc(acc, sw64_desc(st + pa * TA * 64 + wg * 64 * 64 + ks * 32),
                           sw64_desc(st + a_bytes + pb * TB * 64 + ks * 32));
    wgmma_commit();
    wgmma_wait<1>();
    keep_in_registers(acc);
  }
  wgmma_wait<0>();
  keep_in_registers(acc);
  cp_async_wait<0>();

  // Accumulator (m64nN): d[4j + 2h + e] -> row 16 * (warp % 4) + lane / 4 + 8h, column 8j + 2 * (lane % 4) + e.
#pragma unroll
  for (int j = 0; j < 32; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      add_pair(g, m0 + wg * 64 + (warp & 3) * 16 + (lane >> 2) + 8 * h, n0 + j * 8 + (lane & 3) * 2,
               acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
#else
  __trap();  // launched only on compute capability 9.0, where the sm_90a code is chosen
#endif
}

enum class path { sync, wgmma };

template <int NPA, int NPB, int PAIRS>
void launch(path which, gemm_args g, cudaStream_t stream) {
  constexpr int smem_sync = stages * (NPA * 256 * 64 + NPB * 128 * 64);
  constexpr int smem_wgmma = stages * (NPA * 128 * 64 + NPB * 256 * 64) + 1024;
  // Opt in to more than 48 KiB of shared memory, once per kernel (thread-safe static init).
  static const bool configured = [] {
    PMX_CUDA_CHECK(cudaFuncSetAttribute(and_popc_mma_sync<NPA, NPB, PAIRS>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, smem_sync));
    PMX_CUDA_CHECK(cudaFuncSetAttribute(and_popc_wgmma<NPA, NPB, PAIRS>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, smem_wgmma));
    return true;
  }();
  (void)configured;
  const int64_t ta = which == path::wgmma ? 128 : 256, tb = which == path::wgmma ? 256 : 128;
  const int64_t a_rows = g.grid_m, b_rows = g.grid_n;  // row counts on entry
  g.grid_m = static_cast<int>((a_rows + ta - 1) / ta);
  g.grid_n = static_cast<int>((b_rows + tb - 1) / tb);
  const auto blocks = static_cast<unsigned>(int64_t{g.grid_m} * g.grid_n);
  if (which == path::wgmma)
    and_popc_wgmma<NPA, NPB, PAIRS><<<blocks, block_threads, smem_wgmma, stream>>>(g);
  else
    and_popc_mma_sync<NPA, NPB, PAIRS><<<blocks, block_threads, smem_sync, stream>>>(g);
  PMX_CUDA_CHECK_LAUNCH();
}

// Whether the code the runtime loads for this device holds the wgmma kernels (a build without
// sm_90a in CMAKE_CUDA_ARCHITECTURES runs sm_80 code on an H100 / H200).
__global__ void wgmma_probe(int* flag) {
#ifdef PMX_HAVE_WGMMA
  *flag = 1;
#else
  *flag = 0;
#endif
}

bool wgmma_compiled() {
  static const bool yes = [] {
    int* d = nullptr;
    int h = 0;
    PMX_CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
    wgmma_probe<<<1, 1>>>(d);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUDA_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
    PMX_CUDA_CHECK(cudaFree(d));
    return h == 1;
  }();
  return yes;
}

// wgmma on compute capability 9.0 when its sm_90a code is loaded, else mma.sync.
path choose_path(mma_kind kind) {
  if (kind == mma_kind::automatic) kind = default_kind;
  if (kind == mma_kind::sync) return path::sync;
  int dev = 0, major = 0, minor = 0;
  PMX_CUDA_CHECK(cudaGetDevice(&dev));
  PMX_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  PMX_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return major == 9 && minor == 0 && wgmma_compiled() ? path::wgmma : path::sync;
}

}  // namespace

plane_set make_plane_set(void* base, unsigned mask, int64_t rows, int64_t columns) {
  plane_set s;
  s.base = static_cast<uint8_t*>(base);
  s.rows_pad = (rows + 255) / 256 * 256;
  s.pitch = (columns + 511) / 512 * 64;
  int next = 0;
  for (int id = 0; id < 3; ++id)
    if (mask & (1u << id)) s.slot[id] = next++;
  return s;
}

void build_planes(const uint64_t* raw, int64_t raw_words, int64_t rows, int64_t dst_row, int64_t columns,
                  plane_set& planes, cudaStream_t stream) {
  if (rows <= 0) return;
  const int64_t out_words = planes.pitch / 4;
  auto at = [&](int id) {
    return planes.slot[id] >= 0 ? reinterpret_cast<uint32_t*>(planes.plane(id, dst_row)) : nullptr;
  };
  const int64_t total = rows * out_words;
  const int64_t blocks = std::min<int64_t>((total + 255) / 256, 132 * 32);
  build_planes_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(raw, raw_words, rows, columns, out_words,
                                                                          at(plane_h), at(plane_d), at(plane_c),
                                                                          out_words);
  PMX_CUDA_CHECK_LAUNCH();
}

void zero_padding_rows(plane_set& planes, int64_t rows, cudaStream_t stream) {
  if (rows >= planes.rows_pad) return;
  for (int id = 0; id < 3; ++id)
    if (planes.slot[id] >= 0)
      PMX_CUDA_CHECK(cudaMemsetAsync(planes.plane(id, rows), 0, (planes.rows_pad - rows) * planes.pitch, stream));
}

unsigned planes_of_a(product p) {
  switch (p) {
    case product::S: return 3;
    case product::N: return 4;
    case product::U: return 3;
    case product::D: return 2;
    case product::Ut: return 4;
    case product::Dt: return 4;
    case product::H: return 1;
    case product::Ht: return 4;
  }
  return 0;
}
unsigned planes_of_b(product p) {
  switch (p) {
    case product::S: return 3;
    case product::N: return 4;
    case product::U: return 4;
    case product::D: return 4;
    case product::Ut: return 3;
    case product::Dt: return 2;
    case product::H: return 4;
    case product::Ht: return 1;
  }
  return 0;
}

void run_product(product p, const plane_set& A, int64_t a_row, int64_t a_rows, const plane_set& B, int64_t b_row,
                 int64_t b_rows, bool skip_upper, int64_t a_global, int64_t b_global, const product_target* targets,
                 int n_targets, int64_t ldo, cudaStream_t stream, mma_kind kind) {
  if (a_rows <= 0 || b_rows <= 0) return;
  const path which = choose_path(kind);
  gemm_args g{};
  g.pitch = A.pitch;
  g.k_steps = static_cast<int>(A.pitch / 64);
  g.grid_m = static_cast<int>(a_rows);  // launch() turns row counts into tile counts
  g.grid_n = static_cast<int>(b_rows);
  g.a_global = a_global;
  g.b_global = b_global;
  g.skip_upper = skip_upper ? 1 : 0;
  g.n_targets = n_targets;
  g.ldo = ldo;
  for (int t = 0; t < n_targets; ++t) g.out[t] = targets[t].out, g.mult[t] = targets[t].mult;
  switch (p) {
    case product::S:
      g.a[0] = A.plane(plane_h, a_row), g.a[1] = A.plane(plane_d, a_row);
      g.b[0] = B.plane(plane_h, b_row), g.b[1] = B.plane(plane_d, b_row);
      return launch<2, 2, 0xF>(which, g, stream);
    case product::N:
      g.a[0] = A.plane(plane_c, a_row), g.b[0] = B.plane(plane_c, b_row);
      return launch<1, 1, 0x1>(which, g, stream);
    case product::U:  // (h, c) + (d, c)
      g.a[0] = A.plane(plane_h, a_row), g.a[1] = A.plane(plane_d, a_row), g.b[0] = B.plane(plane_c, b_row);
      return launch<2, 1, 0x5>(which, g, stream);
    case product::D:
      g.a[0] = A.plane(plane_d, a_row), g.b[0] = B.plane(plane_c, b_row);
      return launch<1, 1, 0x1>(which, g, stream);
    case product::Ut:  // (c, h) + (c, d)
      g.a[0] = A.plane(plane_c, a_row), g.b[0] = B.plane(plane_h, b_row), g.b[1] = B.plane(plane_d, b_row);
      return launch<1, 2, 0x3>(which, g, stream);
    case product::Dt:
      g.a[0] = A.plane(plane_c, a_row), g.b[0] = B.plane(plane_d, b_row);
      return launch<1, 1, 0x1>(which, g, stream);
    case product::H:
      g.a[0] = A.plane(plane_h, a_row), g.b[0] = B.plane(plane_c, b_row);
      return launch<1, 1, 0x1>(which, g, stream);
    case product::Ht:
      g.a[0] = A.plane(plane_c, a_row), g.b[0] = B.plane(plane_h, b_row);
      return launch<1, 1, 0x1>(which, g, stream);
  }
}

}  // namespace pmx::kernels::cuda_detail
