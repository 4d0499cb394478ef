// CUDA allele_counts: the variant-major 2-bit rows go up as they are (2 bits per call, in pieces
// through the context's pinned staging buffers, host threads filling piece p+1 while piece p
// copies), and one warp per variant counts its codes on the device by popcount on 32-bit words
// (16 calls), restricted to the included samples by a lane mask uploaded once per call:
//   hom A1 = !lo & !hi, missing = lo & !hi, het = !lo & hi, hom A2 = lo & hi
// (lo/hi the two bits of each code, as in cpu.cpp). The counts of a chunk of variants (up to 1 Mi,
// 16 bytes each) stay on the device and come down once per chunk.
//
// Memory budget (executor setting, PMX_CUDA_MEMORY_MB, or free memory minus a margin): two pieces
// of rows, the lane mask and one chunk of counts; the plan starts from 64 MiB pieces and 1 Mi
// variant chunks and halves the larger part until it fits.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/host_transfer.hpp"
#include "ops/allele_counts/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
namespace {

using detail::cuda_context;

constexpr int warps_per_block = 8;
enum slot_id { slot_raw0, slot_raw1, slot_lanes, slot_counts };

// counts[4 r + {0,1,2,3}] = {hom A1, het, hom A2, missing} of row r over the lanes set in `lanes`
// (0b01 per included call), for r < rows. One warp per row; `words` 32-bit words per row.
__global__ void count_codes(const uint32_t* __restrict__ raw, int64_t pitch_words, int64_t rows, int64_t words,
                            const uint32_t* __restrict__ lanes, uint32_t* __restrict__ counts) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int64_t r = blockIdx.x * int64_t{warps_per_block} + (threadIdx.x >> 5);
  if (r >= rows) return;  // the whole warp: r is the same on every lane
  const uint32_t* row = raw + r * pitch_words;
  constexpr uint32_t low = 0x55555555u;
  unsigned a1 = 0, het = 0, a2 = 0, miss = 0;
  for (int64_t w = lane; w < words; w += 32) {
    const uint32_t x = row[w], m = lanes[w];
    const uint32_t lo = x & low, hi = (x >> 1) & low;
    a1 += __popc(~(lo | hi) & m);
    miss += __popc(lo & ~hi & m);
    het += __popc(~lo & hi & m);
    a2 += __popc(lo & hi & m);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    a1 += __shfl_down_sync(0xffffffffu, a1, off);
    het += __shfl_down_sync(0xffffffffu, het, off);
    a2 += __shfl_down_sync(0xffffffffu, a2, off);
    miss += __shfl_down_sync(0xffffffffu, miss, off);
  }
  if (lane == 0) reinterpret_cast<uint4*>(counts)[r] = make_uint4(a1, het, a2, miss);
}

struct plan {
  int64_t piece, chunk;  // rows per upload piece, variants per download of counts
};

int64_t plan_bytes(const plan& p, int64_t pitch, int64_t words) { return 2 * p.piece * pitch + words * 4 + p.chunk * 16; }

plan make_plan(int64_t k, int64_t pitch, int64_t words, int64_t budget) {
  plan p{std::clamp<int64_t>((int64_t{64} << 20) / pitch, 1, k), std::min<int64_t>(k, int64_t{1} << 20)};
  while (plan_bytes(p, pitch, words) > budget) {
    if (p.piece > 1 && (2 * p.piece * pitch >= p.chunk * 16 || p.chunk == 1)) p.piece = (p.piece + 1) / 2;
    else if (p.chunk > 1) p.chunk = (p.chunk + 1) / 2;
    else
      throw unsupported_error("allele_counts (cuda): a device memory budget of " + std::to_string(budget >> 10) +
                              " KiB is too small (this call needs at least " +
                              std::to_string((plan_bytes(p, pitch, words) >> 10) + 1) + " KiB)");
  }
  return p;
}

}  // namespace

void allele_counts(const executor& exec, const variant_major_view& g, std::span<const uint8_t> include,
                   std::span<variant_counts> out) {
  const int64_t n = g.n_samples, k = g.n_variants;
  if (k == 0) return;
  if (n == 0) {
    std::fill(out.begin(), out.end(), variant_counts{});
    return;
  }
  if (n > INT32_MAX) throw unsupported_error("allele_counts (cuda): more than 2^31 samples");
  const int64_t words = (n + 15) / 16, pitch = 4 * words, bytes = (n + 3) / 4;
  // Lane mask of the included samples; the tail word also masks the padding calls.
  std::vector<uint32_t> lanes(static_cast<size_t>(words), 0);
  for (int64_t i = 0; i < n; ++i)
    if (include.empty() || include[i]) lanes[i >> 4] |= uint32_t{1} << (2 * (i & 15));

  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const int64_t budget = detail::device_budget(exec, c);
  const plan p = make_plan(k, pitch, words, budget);
  std::vector<size_t> sizes(slot_counts + 1, 0);
  sizes[slot_raw0] = sizes[slot_raw1] = static_cast<size_t>(p.piece * pitch);
  sizes[slot_lanes] = static_cast<size_t>(words * 4);
  sizes[slot_counts] = static_cast<size_t>(p.chunk * 16);
  c.reserve_scratch(sizes, budget);
  auto* d_lanes = static_cast<uint32_t*>(c.slot(slot_lanes));
  auto* d_counts = static_cast<uint32_t*>(c.slot(slot_counts));
  PMX_CUDA_CHECK(cudaMemcpyAsync(d_lanes, lanes.data(), static_cast<size_t>(words * 4), cudaMemcpyHostToDevice,
                                 c.stream));

  std::vector<uint32_t> h(static_cast<size_t>(p.chunk * 4));
  for (int64_t l0 = 0; l0 < k; l0 += p.chunk) {
    const int64_t cols = std::min(p.chunk, k - l0);
    detail::stream_to_device(
        c, cols, p.piece, static_cast<size_t>(pitch), [&](int64_t, int64_t piece) { return c.slot(static_cast<int>(piece & 1)); },
        [&](void* pinned, int64_t first, int64_t count) {
          detail::copy_rows_padded(static_cast<uint8_t*>(pinned), pitch, g, l0 + first, count, bytes, exec.threads());
        },
        [&](const void* rows, int64_t first, int64_t count) {
          const auto blocks = static_cast<unsigned>((count + warps_per_block - 1) / warps_per_block);
          count_codes<<<blocks, 32 * warps_per_block, 0, c.stream>>>(static_cast<const uint32_t*>(rows), words, count,
                                                                     words, d_lanes, d_counts + 4 * first);
          PMX_CUDA_CHECK_LAUNCH();
        });
    PMX_CUDA_CHECK(cudaMemcpyAsync(h.data(), d_counts, static_cast<size_t>(cols * 16), cudaMemcpyDeviceToHost,
                                   c.stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
    for (int64_t j = 0; j < cols; ++j) {
      const uint32_t* q = h.data() + 4 * j;
      out[l0 + j] = {q[0], q[1], q[2], q[3]};
    }
  }
}

}  // namespace pmx::kernels::cuda
