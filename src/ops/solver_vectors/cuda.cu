// Solver vectors on the GPU: grid-stride elementwise kernels on the executor's stream, and dot
// products as fixed trees (one block per chunk of 4,096 values, then the chunk sums reduced the
// same way until one value is left), so a dot gives the same bits on every run. Each call waits
// for its kernels: the callers time their parts, and PCG reads every dot on the host anyway.
#include <algorithm>
#include <vector>

#include "core/cuda_context.hpp"
#include "ops/solver_vectors/kernels.hpp"

namespace pmx::kernels::cuda {
namespace {

constexpr int threads = 256;

unsigned blocks_for(int64_t work) {
  return static_cast<unsigned>(std::clamp<int64_t>((work + threads - 1) / threads, 1, 65535 * 16));
}

// out[c] = Σ over chunk c of a_i·b_i (b null: of a_i): each thread sums its strided values in
// order, then a fixed tree over the block.
__global__ void chunk_sums(int64_t n, const double* __restrict__ a, const double* __restrict__ b,
                           double* __restrict__ out) {
  __shared__ double part[threads];
  const int64_t first = blockIdx.x * dot_chunk;
  const int64_t end = min(n, first + dot_chunk);
  double s = 0;
  for (int64_t i = first + threadIdx.x; i < end; i += threads) s += b ? a[i] * b[i] : a[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = threads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

__global__ void axpby_rows(int64_t rows, int64_t t, double a, const double* __restrict__ x, int64_t ldx, double b,
                           double* __restrict__ y, int64_t ldy) {
  for (int64_t id = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; id < rows * t; id += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = id / t, c = id - i * t;
    double& o = y[i * ldy + c];
    o = b == 0 ? a * x[i * ldx + c] : a * x[i * ldx + c] + b * o;
  }
}

__global__ void pcg_update_kernel(int64_t n, double alpha, const double* __restrict__ p, const double* __restrict__ q,
                                  double* __restrict__ x, double* __restrict__ r) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
  }
}

__global__ void block_multiply_kernel(int64_t rows, int64_t t, const double* __restrict__ blocks, int64_t stride,
                                      const double* __restrict__ x, double* __restrict__ y) {
  for (int64_t id = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; id < rows * t; id += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = id / t, a = id - i * t;
    const double* B = blocks + i * stride + a * t;
    const double* xi = x + i * t;
    double s = 0;
    for (int64_t c = 0; c < t; ++c) s += B[c] * xi[c];
    y[id] = s;
  }
}

__global__ void gather_kernel(int64_t k, int64_t t, const int64_t* __restrict__ index, const double* __restrict__ x,
                              int64_t ldx, double* __restrict__ y, int64_t ldy) {
  for (int64_t id = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; id < k * t; id += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = id / t, c = id - i * t;
    y[i * ldy + c] = x[index[i] * ldx + c];
  }
}

__global__ void scatter_add_kernel(int64_t k, int64_t t, const int64_t* __restrict__ index, double a,
                                   const double* __restrict__ x, int64_t ldx, double* __restrict__ y, int64_t ldy) {
  for (int64_t id = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; id < k * t; id += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = id / t, c = id - i * t;
    y[index[i] * ldy + c] += a * x[i * ldx + c];
  }
}

void finish(cudaStream_t stream) {
  PMX_CUDA_CHECK_LAUNCH();
  PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

double dot(const executor& exec, int64_t n, const double* a, const double* b) {
  detail::cuda_scope scope(exec);
  auto& c = scope.ctx;
  const int64_t level1 = (n + dot_chunk - 1) / dot_chunk, level2 = (level1 + dot_chunk - 1) / dot_chunk;
  const size_t need[2] = {static_cast<size_t>(level1) * 8, static_cast<size_t>(level2) * 8};
  if (c.scratch[0].capacity() < need[0] || c.scratch[1].capacity() < need[1])
    c.reserve_scratch({need[0], need[1]}, detail::device_budget(exec, c));
  double* buf[2] = {static_cast<double*>(c.slot(0)), static_cast<double*>(c.slot(1))};
  int64_t len = level1;
  chunk_sums<<<static_cast<unsigned>(len), threads, 0, c.stream>>>(n, a, b, buf[0]);
  PMX_CUDA_CHECK_LAUNCH();
  int at = 0;
  while (len > 1) {  // the chunk sums, reduced in the same fixed trees (level 2 fits slot 1, later ones slot 0)
    const int64_t next = (len + dot_chunk - 1) / dot_chunk;
    chunk_sums<<<static_cast<unsigned>(next), threads, 0, c.stream>>>(len, buf[at], nullptr, buf[1 - at]);
    PMX_CUDA_CHECK_LAUNCH();
    at = 1 - at;
    len = next;
  }
  double s = 0;
  PMX_CUDA_CHECK(cudaMemcpyAsync(&s, buf[at], sizeof s, cudaMemcpyDeviceToHost, c.stream));
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
  return s;
}

void axpby(const executor& exec, int64_t rows, int64_t t, double a, const double* x, int64_t ldx, double b, double* y,
           int64_t ldy) {
  detail::cuda_scope scope(exec);
  axpby_rows<<<blocks_for(rows * t), threads, 0, scope.ctx.stream>>>(rows, t, a, x, ldx, b, y, ldy);
  finish(scope.ctx.stream);
}

void pcg_update(const executor& exec, int64_t n, double alpha, const double* p, const double* q, double* x,
                double* r) {
  detail::cuda_scope scope(exec);
  pcg_update_kernel<<<blocks_for(n), threads, 0, scope.ctx.stream>>>(n, alpha, p, q, x, r);
  finish(scope.ctx.stream);
}

void block_multiply(const executor& exec, int64_t rows, int64_t t, const double* blocks, int64_t block_stride,
                    const double* x, double* y) {
  detail::cuda_scope scope(exec);
  block_multiply_kernel<<<blocks_for(rows * t), threads, 0, scope.ctx.stream>>>(rows, t, blocks, block_stride, x, y);
  finish(scope.ctx.stream);
}

void gather_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, const double* x, int64_t ldx,
                 double* y, int64_t ldy) {
  detail::cuda_scope scope(exec);
  gather_kernel<<<blocks_for(k * t), threads, 0, scope.ctx.stream>>>(k, t, index, x, ldx, y, ldy);
  finish(scope.ctx.stream);
}

void scatter_add_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, double a, const double* x,
                      int64_t ldx, double* y, int64_t ldy) {
  detail::cuda_scope scope(exec);
  scatter_add_kernel<<<blocks_for(k * t), threads, 0, scope.ctx.stream>>>(k, t, index, a, x, ldx, y, ldy);
  finish(scope.ctx.stream);
}

}  // namespace pmx::kernels::cuda
