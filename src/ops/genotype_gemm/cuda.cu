// CUDA genotype × dense products (issue #5): host side. The kernels and the reasons for the route
// (2-bit decode in registers feeding FP64 tensor-core MMAs) are in cuda_mma.cuh; one column (PCG
// matrix–vector products) goes to the FP64 CUDA-core kernels of cuda_narrow.cuh.
//
// One call:
//   1. z tables (4 doubles per variant: s(2−2p), 0, s(1−2p), −2ps) built on the device from p, s;
//   2. Λ (or Λ̃) used in place when it is device memory, else copied to a device buffer; the output
//      likewise (downloaded at the end; uploaded first only when β ≠ 0, so β = 0 never reads it);
//   3. per group of ≤ 16 columns: the product kernel writes partial sums per split of the
//      reduction (variants for Z·Λ, samples for Zᵀ·Λ̃), reduce_partials adds the splits in a fixed
//      order and applies β. Split counts depend only on the shapes and the device's SM count, so
//      results are the same bits run after run on one device model.
// Genotypes: resident (uploaded once by upload_genotypes, pitch-aligned rows) or, when they did not
// fit the device budget, streamed per call in chunks of variants through the two pinned staging
// buffers (host fill of chunk c+1 overlaps the copy and kernels of chunk c). For Z·Λ the chunks
// accumulate into the output (β for the first, 1 after); for Zᵀ·Λ̃ each chunk owns its rows of W.
// Steady state (resident operand, device pointers): no allocation, two small copies (p, s), a few
// launches and one stream synchronisation per call. Host Λ / output: copied by DMA directly when
// contiguous and page-locked (transfer_buffer), else packed through the pinned staging buffers.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/host_transfer.hpp"
#include "ops/genotype_gemm/cuda_int8.hpp"
#include "ops/genotype_gemm/cuda_mma.cuh"
#include "ops/genotype_gemm/cuda_narrow.cuh"
#include "ops/genotype_gemm/cuda_resident.cuh"
#include "ops/genotype_gemm/cuda_splits.hpp"
#include "ops/genotype_gemm/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda_detail {
namespace {

using detail::cuda_context;
namespace dev = gemm_dev;

enum slot_id { slot_table, slot_centring, slot_in, slot_out, slot_part, slot_ring0, slot_ring1, slot_int8, slot_dense };


// Page-locked host memory (cudaHostAlloc / registered): DMA-able without staging.
bool is_pinned_host(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

bool explicit_budget(const executor& exec) { return exec.device_memory_budget() > 0; }

struct device_info {
  int sms = 0;
  int major = 0;
};
device_info info_of(const cuda_context& c) {
  device_info d;
  PMX_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, c.device));
  PMX_CUDA_CHECK(cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, c.device));
  return d;
}

// m16n8k16 (sm_90+) unless tuning().gemm_m8 asks for the sm_80 kernels, or the one-time layout
// self-test disagrees with the fragment map the kernels assume.
bool use_m16(const executor& exec, cuda_context& c, const device_info& d) {
  if (d.major < 9) return false;
  if (exec.tuning().gemm_m8) return false;
  static int verdict = -1;  // per process (one device model)
  if (verdict < 0) {
    double* dd = nullptr;
    PMX_CUDA_CHECK(cudaMalloc(&dd, 16 * 8 * sizeof(double)));
    dev::m16_selftest<<<1, 32, 0, c.stream>>>(dd);
    PMX_CUDA_CHECK_LAUNCH();
    double h[128];
    PMX_CUDA_CHECK(cudaMemcpyAsync(h, dd, sizeof h, cudaMemcpyDeviceToHost, c.stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
    PMX_CUDA_CHECK(cudaFree(dd));
    bool ok = true;
    for (int r = 0; r < 16; ++r)
      for (int col = 0; col < 8; ++col) {
        double want = 0;
        for (int q = 0; q < 16; ++q) want += (r + 1 + 32.0 * q) * (1 + q + 17.0 * col);
        ok = ok && h[r * 8 + col] == want;
      }
    verdict = ok ? 1 : 0;
  }
  return verdict == 1;
}

// Copies rows [first, first + count) of the view into the device rows at dst (pitch bytes apart)
// through the pinned buffers; `after(piece_dst, first, count)` may enqueue work reading them.
template <class After>
void upload_rows(cuda_context& c, const executor& exec, const variant_major_view& g, int64_t first_row, int64_t rows,
                 uint8_t* const* ring, int64_t ring_rows, int64_t pitch, After after) {
  const int64_t width = (g.n_samples + 3) / 4;
  const int64_t piece = std::max<int64_t>(1, std::min<int64_t>(ring_rows, static_cast<int64_t>(c.pinned_bytes) /
                                                                           std::max<int64_t>(1, g.row_bytes)));
  int64_t p = 0;
  for (int64_t first = 0; first < rows; first += piece, ++p) {
    const int s = static_cast<int>(p & 1);
    const int64_t count = std::min(piece, rows - first);
    PMX_CUDA_CHECK(cudaEventSynchronize(c.staged[s]));
    // The source rows are contiguous (stride row_bytes): one parallel copy, re-pitched by the DMA.
    const size_t bytes = static_cast<size_t>((count - 1) * g.row_bytes + width);
    detail::copy_parallel(c.pinned[s], g.row(first_row + first), bytes, exec.threads());
    uint8_t* d = ring[p & 1] + (ring[0] == ring[1] ? first * pitch : 0);
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(d, static_cast<size_t>(pitch), c.pinned[s], static_cast<size_t>(g.row_bytes),
                                     static_cast<size_t>(width), static_cast<size_t>(count), cudaMemcpyHostToDevice,
                                     c.stream));
    after(static_cast<const uint8_t*>(d), first_row + first, count);
    PMX_CUDA_CHECK(cudaEventRecord(c.staged[s], c.stream));
  }
}

struct call {
  bool transposed, m16;
  bool narrow, ztl_mt4;  // the executor's tuning: narrow kernels allowed; Zᵀ·Λ̃ with 64 variants per warp
  int64_t n, l;
  int sms;
  const double* table;  // all k variants
  const double* in;
  int64_t ld_in;
  double* out;
  int64_t ld_out;
  double beta;
  double* part;
  int64_t part_bytes;
  double* dense = nullptr;  // wide Zᵀ·Λ̃: decoded z values of wide_rows variants (else null)
};

// Zᵀ·Λ̃ for wide Λ̃ (l ≥ wide_columns: mixed-model rotations): blocks of variants decoded to their
// dense z values, then cuBLAS dgemm on the FP64 tensor cores. The panel kernels above re-read
// the genotypes for every 16 columns and reached 2.4 TFLOP/s at l = 5,000 on an H200; dgemm is
// compute-bound at that width (bench/lmm_vs_gemma.sh).
constexpr int64_t wide_columns = 256;
constexpr int64_t wide_rows = 1024;

__global__ void decode_rows(const uint8_t* __restrict__ geno, int64_t pitch, int64_t n, int64_t rows,
                            const double* __restrict__ table, double* __restrict__ dense) {
  const int64_t total = rows * n;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = e / n, i = e - r * n;
    const unsigned code = (geno[r * pitch + (i >> 2)] >> (2 * (i & 3))) & 3u;
    dense[e] = table[4 * r + code];
  }
}

int64_t zl_split_rows(const call& k, int64_t rows) {
  const int64_t bx = ceil_div(k.n, dev::zl_samples);
  const int64_t max_splits = std::max<int64_t>(1, k.part_bytes / (k.n * dev::cols * 8));
  const int64_t splits = choose_splits(bx, k.sms, rows, 512, max_splits);
  return std::max<int64_t>(dev::zl_chunk, ceil_div(ceil_div(rows, splits), dev::zl_chunk) * dev::zl_chunk);
}
// Zᵀ·Λ̃ kernel geometry: variants per block and samples per step.
struct ztl_shape {
  int64_t variants, step;
};
int64_t ztl_split_samples(const call& k, int64_t rows, ztl_shape sh) {
  const int64_t bx = ceil_div(rows, sh.variants);
  const int64_t max_splits = std::max<int64_t>(1, k.part_bytes / (rows * dev::cols * 8));
  const int64_t splits = choose_splits(bx, k.sms, k.n, 4096, max_splits);
  return std::max<int64_t>(sh.step, ceil_div(ceil_div(k.n, splits), sh.step) * sh.step);
}

// Zᵀ·Λ̃ kernel on sm_90: default ztl_m16w_kernel (128 variants per warp, words read from shared
// memory per k-step); tuning().gemm_ztl_mt4: ztl_m16_kernel with 64 variants per warp (64-bit
// words held in registers for a step).
ztl_shape ztl_shape_for(const call& k) {
  if (!k.m16) return {dev::ztl_variants, dev::ztl_step};
  if (k.ztl_mt4) return {dev::ztl_m16_geometry<4, uint64_t>::VB, dev::ztl_m16_geometry<4, uint64_t>::STEP};
  return {dev::ztlw_variants, dev::ztlw_step};
}

template <int NT>
void launch_zl_m8(const dev::zl_args& a, dim3 grid, cudaStream_t s) {
  dev::zl_m8_kernel<NT><<<grid, dev::threads, 0, s>>>(a);
}
template <int NT>
void launch_ztl_m8(const dev::ztl_args& a, dim3 grid, cudaStream_t s) {
  dev::ztl_m8_kernel<NT><<<grid, dev::threads, 0, s>>>(a);
}
// The sm_90 kernels take more than 48 KB of dynamic shared memory: the limit is raised once per
// kernel and process.
template <class Kernel>
void allow_smem(Kernel kernel, int bytes) {
  PMX_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}
template <int NT>
void launch_zl_m16(const dev::zl_args& a, dim3 grid, cudaStream_t s) {
  static const bool once = (allow_smem(dev::zl_m16_kernel<NT>, dev::zl_m16_smem), true);
  (void)once;
  dev::zl_m16_kernel<NT><<<grid, dev::threads, dev::zl_m16_smem, s>>>(a);
}
template <int NT>
void launch_ztl_m16(const dev::ztl_args& a, dim3 grid, cudaStream_t s, bool mt4) {
  if (mt4) {
    using geo = dev::ztl_m16_geometry<4, uint64_t>;
    static const bool once = (allow_smem(dev::ztl_m16_kernel<NT, 4, uint64_t>, geo::smem), true);
    (void)once;
    dev::ztl_m16_kernel<NT, 4, uint64_t><<<grid, dev::threads, geo::smem, s>>>(a);
  } else {
    static const bool once = (allow_smem(dev::ztl_m16w_kernel<NT>, dev::ztlw_smem), true);
    (void)once;
    dev::ztl_m16w_kernel<NT><<<grid, dev::threads, dev::ztlw_smem, s>>>(a);
  }
}

void reduce(cudaStream_t s, int sms, const double* part, int stride, int64_t splits, int64_t rows, int lc, double beta,
            double* out, int64_t ld) {
  const int64_t total = rows * lc;
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(ceil_div(total, 256), int64_t{sms} * 16));
  dev::reduce_partials<<<static_cast<unsigned>(blocks), 256, 0, s>>>(part, stride, static_cast<int>(splits), rows,
                                                                     lc, beta, out, ld);
  PMX_CUDA_CHECK_LAUNCH();
}

// Narrow kernels (cuda_narrow.cuh) for l <= zl_narrow_max (Z·Λ) or ztl_narrow_max (Zᵀ·Λ̃) unless
// the tuning turns them off (which keeps the MMA kernels, for comparison).
bool narrow_enabled(const call& k) {
  return k.narrow && k.l <= (k.transposed ? dev::ztl_narrow_max : dev::zl_narrow_max);
}
// Resident blocks per SM of a kernel (its register and shared-memory use), once per kernel.
template <class Kernel>
int blocks_per_sm(Kernel kernel) {
  int b = 0;
  PMX_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, dev::threads, 0));
  return std::max(b, 1);
}
template <int L>
void launch_zl_narrow(const call& k, const uint8_t* geno, int64_t pitch, int64_t j0, int64_t rows, bool first_chunk,
                      cudaStream_t s) {
  static const int occ = blocks_per_sm(dev::zl_narrow_kernel<L>);
  const int64_t bx = ceil_div(k.n, dev::narrow_samples);
  const int64_t ch = dev::narrow_layout<L>::chunk;
  const int64_t max_splits = std::max<int64_t>(1, k.part_bytes / (k.n * L * 8));
  const int64_t splits = choose_splits(bx, k.sms * occ, rows, 512, max_splits);
  dev::zl_args a{geno, pitch, k.n, rows, std::max(ch, ceil_div(ceil_div(rows, splits), ch) * ch),
                 k.table + j0 * 4, k.in + j0 * k.ld_in, k.ld_in, L, k.part};
  const int64_t used = ceil_div(rows, a.split_rows);
  dev::zl_narrow_kernel<L><<<dim3(static_cast<unsigned>(bx), static_cast<unsigned>(used)), dev::threads, 0, s>>>(a);
  PMX_CUDA_CHECK_LAUNCH();
  reduce(s, k.sms, k.part, L, used, k.n, L, first_chunk ? k.beta : 1.0, k.out, k.ld_out);
}
void launch_ztl_narrow(const call& k, const uint8_t* geno, int64_t pitch, int64_t j0, int64_t rows, cudaStream_t s) {
  static const int occ = blocks_per_sm(dev::ztl_narrow_kernel<1>);
  const int64_t bx = ceil_div(rows, dev::ztn_variants);
  const int64_t max_splits = std::max<int64_t>(1, k.part_bytes / (rows * 8));
  const int64_t tiles = ceil_div(k.n, dev::narrow_samples);
  const int64_t splits = choose_splits(bx, k.sms * occ, tiles, 4, max_splits);
  dev::ztl_args a{geno, pitch, k.n, rows, ceil_div(tiles, splits) * dev::narrow_samples, k.table + j0 * 4, k.in,
                  k.ld_in, 1, k.part};
  const int64_t used = ceil_div(k.n, a.split_samples);
  dev::ztl_narrow_kernel<1><<<dim3(static_cast<unsigned>(bx), static_cast<unsigned>(used)), dev::threads, 0, s>>>(a);
  PMX_CUDA_CHECK_LAUNCH();
  reduce(s, k.sms, k.part, 1, used, rows, 1, k.beta, k.out + j0 * k.ld_out, k.ld_out);
}

// The product over variant rows [j0, j0 + rows) held at geno (pitch bytes apart). For Z·Λ it adds
// into the whole output (β on the first chunk, 1 after); for Zᵀ·Λ̃ it writes rows j0.. of W.
void chunk_product(cuda_context& c, const call& k, const uint8_t* geno, int64_t pitch, int64_t j0, int64_t rows,
                   bool first_chunk) {
  if (k.dense) {  // wide Zᵀ·Λ̃: row-major W rows = D Λ̃, i.e. column-major Wᵀ = Λ̃ᵀ Dᵀ
    const double one = 1.0;
    for (int64_t s0 = 0; s0 < rows; s0 += wide_rows) {
      const int64_t sub = std::min(wide_rows, rows - s0);
      decode_rows<<<static_cast<unsigned>(std::min<int64_t>(ceil_div(sub * k.n, 256), 65535)), 256, 0, c.stream>>>(
          geno + s0 * pitch, pitch, k.n, sub, k.table + (j0 + s0) * 4, k.dense);
      PMX_CUDA_CHECK_LAUNCH();
      PMX_CUBLAS_CHECK(cublasDgemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(k.l), static_cast<int>(sub),
                                   static_cast<int>(k.n), &one, k.in, static_cast<int>(k.ld_in), k.dense,
                                   static_cast<int>(k.n), &k.beta, k.out + (j0 + s0) * k.ld_out,
                                   static_cast<int>(k.ld_out)));
    }
    return;
  }
  if (narrow_enabled(k)) {
    if (k.transposed) launch_ztl_narrow(k, geno, pitch, j0, rows, c.stream);
    else launch_zl_narrow<1>(k, geno, pitch, j0, rows, first_chunk, c.stream);
    return;
  }
  for (int64_t c0 = 0; c0 < k.l; c0 += dev::cols) {
    const int lc = static_cast<int>(std::min<int64_t>(dev::cols, k.l - c0));
    const bool two = lc > 8;
    if (!k.transposed) {
      dev::zl_args a{geno, pitch, k.n, rows, zl_split_rows(k, rows), k.table + j0 * 4,
                     k.in + j0 * k.ld_in + c0, k.ld_in, lc, k.part};
      const int64_t splits = ceil_div(rows, a.split_rows);
      const dim3 grid(static_cast<unsigned>(ceil_div(k.n, dev::zl_samples)), static_cast<unsigned>(splits));
      if (k.m16) two ? launch_zl_m16<2>(a, grid, c.stream) : launch_zl_m16<1>(a, grid, c.stream);
      else two ? launch_zl_m8<2>(a, grid, c.stream) : launch_zl_m8<1>(a, grid, c.stream);
      PMX_CUDA_CHECK_LAUNCH();
      reduce(c.stream, k.sms, k.part, dev::cols, splits, k.n, lc, first_chunk ? k.beta : 1.0, k.out + c0, k.ld_out);
    } else {
      const ztl_shape sh = ztl_shape_for(k);
      dev::ztl_args a{geno, pitch, k.n, rows, ztl_split_samples(k, rows, sh), k.table + j0 * 4, k.in + c0, k.ld_in,
                      lc, k.part};
      const int64_t splits = ceil_div(k.n, a.split_samples);
      const dim3 grid(static_cast<unsigned>(ceil_div(rows, sh.variants)), static_cast<unsigned>(splits));
      if (k.m16) two ? launch_ztl_m16<2>(a, grid, c.stream, k.ztl_mt4) : launch_ztl_m16<1>(a, grid, c.stream, k.ztl_mt4);
      else two ? launch_ztl_m8<2>(a, grid, c.stream) : launch_ztl_m8<1>(a, grid, c.stream);
      PMX_CUDA_CHECK_LAUNCH();
      reduce(c.stream, k.sms, k.part, dev::cols, splits, rows, lc, k.beta, k.out + j0 * k.ld_out + c0, k.ld_out);
    }
  }
}

__global__ void scale_output(double* out, int64_t rows, int64_t l, int64_t ld, double beta) {
  const int64_t total = rows * l;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = e / l, col = e - r * l;
    double& o = out[r * ld + col];
    o = beta == 0 ? 0.0 : beta * o;
  }
}

}  // namespace

void upload_genotypes(const executor& exec, const variant_major_view& g, resident_genotypes* r) {
  r->n_samples = g.n_samples;
  r->n_variants = g.n_variants;
  r->pitch = resident_pitch(g.n_samples);
  if (g.n_samples == 0 || g.n_variants == 0) return;
  try {
    detail::cuda_scope scope(exec);
    cuda_context& c = scope.ctx;
    // Room left for the products' own buffers (partials, Λ and output copies of 16 columns).
    const int64_t headroom = (std::max(g.n_samples, g.n_variants) * dev::cols * 8) * 4 + (int64_t{64} << 20);
    const int64_t budget = detail::device_budget(exec, c);
    if (r->bytes() + headroom > budget) return;  // stays on the host: streamed per call
    void* d = nullptr;
    if (cudaMalloc(&d, static_cast<size_t>(r->bytes())) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    r->data = static_cast<uint8_t*>(d);
    PMX_CUDA_CHECK(cudaMemsetAsync(d, 0x55, static_cast<size_t>(r->bytes()), c.stream));
    c.ensure_pinned(detail::cuda_context::default_staging_bytes);
    uint8_t* ring[2] = {r->data, r->data};
    upload_rows(c, exec, g, 0, g.n_variants, ring, g.n_variants, r->pitch, [](const uint8_t*, int64_t, int64_t) {});
    PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
  } catch (...) {
    free_genotypes(r);
    throw;
  }
}

void free_genotypes(resident_genotypes* r) noexcept {
  if (r->data && r->owned) cudaFree(r->data);
  r->data = nullptr;
}

void genotype_gemm(const executor& exec, const resident_genotypes* r, const variant_major_view& g, bool transposed,
                   const double* p, const double* scale, int64_t l, const double* in, int64_t ld_in, double beta,
                   double* out, int64_t ld_out, bool normwise) {
  const int64_t n = g.n_samples, k = g.n_variants;
  const int64_t out_rows = transposed ? k : n, in_rows = transposed ? n : k;
  if (l == 0 || out_rows == 0) return;
  const bool out_dev = detail::is_device_pointer(out);
  if (in_rows == 0) {  // Z has no columns (rows): the product is 0
    if (out_dev) {
      detail::cuda_scope scope(exec);
      scale_output<<<128, 256, 0, scope.ctx.stream>>>(out, out_rows, l, ld_out, beta);
      PMX_CUDA_CHECK_LAUNCH();
      PMX_CUDA_CHECK(cudaStreamSynchronize(scope.ctx.stream));
    } else {
      for (int64_t i = 0; i < out_rows; ++i)
        for (int64_t col = 0; col < l; ++col) out[i * ld_out + col] = beta == 0 ? 0.0 : beta * out[i * ld_out + col];
    }
    return;
  }
  const bool in_dev = detail::is_device_pointer(in);
  const bool resident = r && r->data;

  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const device_info di = info_of(c);
  int64_t budget = detail::device_budget(exec, c);
  if (resident && r->owned && explicit_budget(exec)) budget -= r->bytes();

  const int64_t pitch = resident ? r->pitch : resident_pitch(n);
  // INT8 tensor-core route (cuda_int8.hpp) for normwise operands held on the device, up to 4
  // columns (PCG vectors; wider products, e.g. ssGTABLUP's set-up panels, keep the FP64 route).
  const tuning::int8 setting = normwise ? exec.tuning().gemm_int8 : tuning::int8::off;
  const bool int8 = setting != tuning::int8::off && resident && l <= int8_route::max_columns &&
                    int8_route::applies(c.stream, transposed, n, k);
  if (setting == tuning::int8::require && !int8)
    throw unsupported_error("gemm (cuda): PMX_GEMM_INT8=require, but the INT8 route does not apply here");
  const bool wide = transposed && !int8 && l >= wide_columns;
  std::vector<size_t> sizes(slot_dense + 1, 0);
  sizes[slot_dense] = wide ? static_cast<size_t>(std::min(k, wide_rows) * n * 8) : 0;
  sizes[slot_table] = int8 ? 0 : static_cast<size_t>(k * 4 * 8);
  sizes[slot_int8] = int8 ? static_cast<size_t>(int8_route::scratch_bytes(transposed, n, k)) : 0;
  sizes[slot_centring] = static_cast<size_t>(2 * k * 8);
  sizes[slot_in] = in_dev ? 0 : static_cast<size_t>(in_rows * l * 8);
  sizes[slot_out] = out_dev ? 0 : static_cast<size_t>(out_rows * l * 8);
  int64_t fixed = 0;
  for (size_t s : sizes) fixed += static_cast<int64_t>(s);
  // Streaming: chunks of variants, two ring slots.
  int64_t chunk_rows = k;
  if (!resident) {
    chunk_rows = std::max<int64_t>(64, std::min<int64_t>(k, (int64_t{256} << 20) / pitch));
    const int64_t left = budget - fixed - out_rows * dev::cols * 8;
    if (left > 0) chunk_rows = std::min(chunk_rows, std::max<int64_t>(64, left / 4 / pitch));
    chunk_rows = std::min(chunk_rows, k);
    sizes[slot_ring0] = sizes[slot_ring1] = static_cast<size_t>(chunk_rows * pitch);
    fixed += 2 * chunk_rows * pitch;
  }
  // Partial sums: at least one split; up to what the planner wants, within the budget.
  const int64_t part_rows = transposed ? chunk_rows : n;
  const int64_t min_part = int8 || wide ? 0 : part_rows * dev::cols * 8;
  const int64_t want_part = min_part * 4 * di.sms;  // capped again by the split planner
  int64_t part_bytes = std::min<int64_t>(want_part, std::max<int64_t>(min_part, budget - fixed));
  part_bytes = std::min<int64_t>(part_bytes, std::max<int64_t>(min_part, int64_t{1} << 30));
  if (fixed + part_bytes > budget)
    throw unsupported_error("gemm (cuda): a device memory budget of " + std::to_string(budget >> 20) +
                            " MiB is too small (this call needs at least " +
                            std::to_string(((fixed + part_bytes) >> 20) + 1) + " MiB)");
  sizes[slot_part] = static_cast<size_t>(part_bytes);
  c.reserve_scratch(sizes, budget);

  auto* table = static_cast<double*>(c.slot(slot_table));
  auto* centring = static_cast<double*>(c.slot(slot_centring));
  PMX_CUDA_CHECK(cudaMemcpyAsync(centring, p, static_cast<size_t>(k * 8), cudaMemcpyHostToDevice, c.stream));
  if (scale)
    PMX_CUDA_CHECK(cudaMemcpyAsync(centring + k, scale, static_cast<size_t>(k * 8), cudaMemcpyHostToDevice, c.stream));
  if (!int8) {
    dev::build_tables<<<static_cast<unsigned>(std::min<int64_t>(ceil_div(k, 256), 1024)), 256, 0, c.stream>>>(
        centring, scale ? centring + k : nullptr, k, table);
    PMX_CUDA_CHECK_LAUNCH();
  }

  // Host operands: contiguous page-locked ones (transfer_buffer) are copied by DMA directly; the
  // others travel through the pinned staging buffers, packed to l columns on the host (a strided
  // or pageable cudaMemcpy2D of a few columns over 500,000 rows costs milliseconds, as much as
  // the product). Host threads for the packing: one per 8 MB (a PCG vector is copied on one).
  const int copy_threads = static_cast<int>(
      std::clamp<int64_t>(std::max(in_rows, out_rows) * l / (int64_t{1} << 20), 1, std::max(1, exec.threads())));
  auto upload = [&](const double* src, int64_t ld, int64_t rows, double* dst) {
    if (ld == l && is_pinned_host(src)) {
      PMX_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(rows * l * 8), cudaMemcpyHostToDevice, c.stream));
      return;
    }
    const int64_t piece = std::max<int64_t>(1, static_cast<int64_t>(c.pinned_bytes) / (l * 8));
    detail::stream_to_device(
        c, rows, piece, static_cast<size_t>(l * 8), [&](int64_t first, int64_t) { return dst + first * l; },
        [&](void* pin, int64_t first, int64_t count) {
          detail::copy_rows(static_cast<double*>(pin), l, src + first * ld, ld, count, l, copy_threads);
        },
        [](const void*, int64_t, int64_t) {});
  };
  const double* in_d = in;
  int64_t ld_in_d = ld_in;
  if (!in_dev) {
    auto* d = static_cast<double*>(c.slot(slot_in));
    upload(in, ld_in, in_rows, d);
    in_d = d, ld_in_d = l;
  }
  double* out_d = out;
  int64_t ld_out_d = ld_out;
  if (!out_dev) {
    out_d = static_cast<double*>(c.slot(slot_out)), ld_out_d = l;
    if (beta != 0) upload(out, ld_out, out_rows, out_d);
  }

  const tuning& tu = exec.tuning();
  call kc{transposed, use_m16(exec, c, di), tu.gemm_narrow, tu.gemm_ztl_mt4, n, l, di.sms, table, in_d, ld_in_d, out_d, ld_out_d, beta,
          static_cast<double*>(c.slot(slot_part)), part_bytes,
          wide ? static_cast<double*>(c.slot(slot_dense)) : nullptr};
  if (int8) {
    const int8_route::product pr{transposed, r->data, r->pitch, n, k, centring, scale ? centring + k : nullptr,
                                 l, in_d, ld_in_d, beta, out_d, ld_out_d};
    int8_route::run(c.stream, di.sms, pr, c.slot(slot_int8));
  } else if (resident) {
    chunk_product(c, kc, r->data, r->pitch, 0, k, true);
  } else {
    uint8_t* ring[2] = {static_cast<uint8_t*>(c.slot(slot_ring0)), static_cast<uint8_t*>(c.slot(slot_ring1))};
    PMX_CUDA_CHECK(cudaMemsetAsync(ring[0], 0x55, static_cast<size_t>(chunk_rows * pitch), c.stream));
    PMX_CUDA_CHECK(cudaMemsetAsync(ring[1], 0x55, static_cast<size_t>(chunk_rows * pitch), c.stream));
    c.ensure_pinned(static_cast<size_t>(chunk_rows * std::max<int64_t>(g.row_bytes, 1)));
    upload_rows(c, exec, g, 0, k, ring, chunk_rows, pitch, [&](const uint8_t* d, int64_t j0, int64_t rows) {
      chunk_product(c, kc, d, pitch, j0, rows, j0 == 0);
    });
  }
  if (!out_dev && ld_out == l && is_pinned_host(out))
    PMX_CUDA_CHECK(cudaMemcpyAsync(out, out_d, static_cast<size_t>(out_rows * l * 8), cudaMemcpyDeviceToHost, c.stream));
  else if (!out_dev)
    detail::stream_rows_to_host(
        c, out_d, static_cast<size_t>(l * 8), static_cast<size_t>(l * 8), out_rows,
        [&](int64_t, int64_t) { return l * 8; },
        [&](const void* pin, int64_t first, int64_t count, size_t) {
          detail::copy_rows(out + first * ld_out, ld_out, static_cast<const double*>(pin), l, count, l, copy_threads);
        });
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
}

}  // namespace pmx::kernels::cuda_detail

namespace pmx {
struct gemm_operand::device_copy {
  kernels::cuda_detail::resident_genotypes genotypes;
};
}  // namespace pmx

namespace pmx::kernels::cuda {

gemm_operand::device_copy* upload(const executor& exec, const variant_major_view& g) {
  auto d = std::make_unique<gemm_operand::device_copy>();
  cuda_detail::upload_genotypes(exec, g, &d->genotypes);
  return d.release();
}

void release(gemm_operand::device_copy* d) noexcept {
  if (!d) return;
  cuda_detail::free_genotypes(&d->genotypes);
  delete d;
}

void gemm(const gemm_operand& g, const gemm_centring& c, int64_t l, const double* lambda, int64_t ld_lambda,
          double beta, double* Y, int64_t ld_y) {
  cuda_detail::genotype_gemm(g.exec(), g.device() ? &g.device()->genotypes : nullptr, g.view(), false, c.p.data(),
                             c.scale.empty() ? nullptr : c.scale.data(), l, lambda, ld_lambda, beta, Y, ld_y,
                             g.accuracy() == gemm_accuracy::normwise);
}

void gemm_transposed(const gemm_operand& g, const gemm_centring& c, int64_t l, const double* lambda,
                     int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  cuda_detail::genotype_gemm(g.exec(), g.device() ? &g.device()->genotypes : nullptr, g.view(), true, c.p.data(),
                             c.scale.empty() ? nullptr : c.scale.data(), l, lambda, ld_lambda, beta, W, ld_w,
                             g.accuracy() == gemm_accuracy::normwise);
}

}  // namespace pmx::kernels::cuda
