// Planes straight from variant-major rows (.bed order): the transpose to sample-major happens in
// this kernel, with warp ballots, so a GRM never builds a transposed copy on the host.
//
// One block of 256 threads covers 256 variants (8 warps x 32) x 128 samples. Lane v of warp w
// loads the 32 bytes (128 calls) of variant 32w + v; for each sample, one ballot per plane over the
// 32 lanes yields the plane word of that sample for those 32 variants (bit v = variant v, the
// plane layout of cuda_planes.cuh). The words go through shared memory so that each sample row
// receives its 8 words (32 bytes, one sector) from consecutive threads.
#include <algorithm>

#include "core/cuda_context.hpp"
#include "ops/crossprod/cuda_planes.cuh"

namespace pmx::kernels::cuda_detail {
namespace {

constexpr int block_variants = 256, block_samples = 128;

__global__ void __launch_bounds__(256) variant_rows_to_planes(const uint8_t* __restrict__ raw, int64_t pitch,
                                                                int64_t variants, int64_t samples, int64_t col_word0,
                                                                uint32_t* h, uint32_t* d, uint32_t* c,
                                                                int64_t pitch_words) {
  __shared__ uint32_t tile[3][block_samples][8 + 1];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t v = int64_t{blockIdx.x} * block_variants + warp * 32 + lane;
  const int64_t s0 = int64_t{blockIdx.y} * block_samples;
  // A variant past the end reads as all-missing (0b01 codes): every plane bit 0.
  uint64_t x[4] = {0x5555555555555555ull, 0x5555555555555555ull, 0x5555555555555555ull, 0x5555555555555555ull};
  if (v < variants) {
    const uint4* src = reinterpret_cast<const uint4*>(raw + v * pitch + s0 / 4);
    const uint4 p0 = src[0], p1 = src[1];
    x[0] = (uint64_t{p0.y} << 32) | p0.x;
    x[1] = (uint64_t{p0.w} << 32) | p0.z;
    x[2] = (uint64_t{p1.y} << 32) | p1.x;
    x[3] = (uint64_t{p1.w} << 32) | p1.z;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    uint32_t mh = 0, md = 0, mc = 0;
#pragma unroll 8
    for (int s = 0; s < 32; ++s) {
      // Codes: 00 -> 2, 01 -> missing, 10 -> 1, 11 -> 0.  h = [x >= 1], d = [x == 2], c = called.
      const unsigned lo = static_cast<unsigned>(x[q] >> (2 * s)) & 1u, hi = static_cast<unsigned>(x[q] >> (2 * s + 1)) & 1u;
      const uint32_t bh = __ballot_sync(0xFFFFFFFFu, !lo);
      const uint32_t bd = __ballot_sync(0xFFFFFFFFu, !lo && !hi);
      const uint32_t bc = __ballot_sync(0xFFFFFFFFu, !lo || hi);
      if (lane == s) mh = bh, md = bd, mc = bc;
    }
    tile[0][q * 32 + lane][warp] = mh;
    tile[1][q * 32 + lane][warp] = md;
    tile[2][q * 32 + lane][warp] = mc;
  }
  __syncthreads();
  uint32_t* planes[3] = {h, d, c};
  for (int t = threadIdx.x; t < 3 * block_samples * 8; t += blockDim.x) {
    const int p = t / (block_samples * 8), r = (t / 8) % block_samples, w = t % 8;
    const int64_t s = s0 + r;
    if (planes[p] && s < samples) planes[p][s * pitch_words + col_word0 + int64_t{blockIdx.x} * 8 + w] = tile[p][r][w];
  }
}

}  // namespace

void build_planes_from_variant_rows(const uint8_t* raw, int64_t pitch, int64_t variants, int64_t samples,
                                    int64_t col0, plane_set& planes, cudaStream_t stream) {
  if (samples <= 0) return;
  // Cover the columns up to the next multiple of 512 so the product's padding columns are zero.
  const int64_t cols_pad = ((col0 + variants + 511) / 512) * 512 - col0;
  const int64_t gx = (cols_pad + block_variants - 1) / block_variants;
  const int64_t gy = (samples + block_samples - 1) / block_samples;
  auto at = [&](int id) { return planes.slot[id] >= 0 ? reinterpret_cast<uint32_t*>(planes.plane(id, 0)) : nullptr; };
  // gridDim.y is limited to 65535 sample groups (8.4 M samples per call).
  variant_rows_to_planes<<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), 256, 0, stream>>>(
      raw, pitch, variants, samples, col0 / 32, at(plane_h), at(plane_d), at(plane_c), planes.pitch / 4);
  PMX_CUDA_CHECK_LAUNCH();
}

}  // namespace pmx::kernels::cuda_detail
