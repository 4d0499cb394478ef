// The sweeps on the GPU: the schedule uploaded once (rows and columns as 32-bit indices), then one
// kernel per level on the executor's stream, one thread per (row, column), each row summed in the
// cpu's order with rounded multiplies and subtractions (no FMA contraction), so the device gives
// the cpu's operations. Host W crosses the bus at each solve (by DMA when it is page-locked).
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "ops/ldl_sweeps/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {
struct ldl_sweeps::device_copy {
  detail::device_buffer d, row_start, row_col, row_val, backward_col, col_start, col_row, col_val, w;
  std::vector<int64_t> forward_level, backward_level;  // level offsets, read on the host
};
}  // namespace pmx

namespace pmx::kernels::cuda {
namespace {

// y_i = b_i − Σ_{j<i} L_ij y_j for the rows [first, first + rows) of one forward level.
__global__ void forward_level(int64_t first, int64_t rows, int t, const int64_t* __restrict__ rs,
                              const int32_t* __restrict__ col, const double* __restrict__ val, double* W) {
  const int64_t id = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (id >= rows * t) return;
  const int64_t i = first + id / t;
  const int c = static_cast<int>(id % t);
  double acc = W[i * t + c];
  for (int64_t e = rs[i]; e < rs[i + 1]; ++e) acc = __dsub_rn(acc, __dmul_rn(val[e], W[int64_t{col[e]} * t + c]));
  W[i * t + c] = acc;
}

// w_j = y_j / D_j − Σ_{i>j} L_ij w_i for the columns [first, first + cols) of the backward order.
__global__ void backward_level(int64_t first, int64_t cols, int t, const int32_t* __restrict__ bcol,
                               const int64_t* __restrict__ cs, const int32_t* __restrict__ row,
                               const double* __restrict__ val, const double* __restrict__ d, double* W) {
  const int64_t id = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (id >= cols * t) return;
  const int64_t b = first + id / t;
  const int c = static_cast<int>(id % t);
  const int64_t j = bcol[b];
  double acc = __ddiv_rn(W[j * t + c], d[j]);
  for (int64_t e = cs[b]; e < cs[b + 1]; ++e) acc = __dsub_rn(acc, __dmul_rn(val[e], W[int64_t{row[e]} * t + c]));
  W[j * t + c] = acc;
}

template <class T>
void upload(detail::device_buffer& dst, const std::vector<T>& src, cudaStream_t stream) {
  dst.reserve(std::max<size_t>(src.size() * sizeof(T), 1));
  if (!src.empty())
    PMX_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
}

std::vector<int32_t> narrow(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

}  // namespace

ldl_sweeps::device_copy* upload_ldl_sweeps(const executor& exec, const ldl_schedule& s) {
  detail::cuda_scope scope(exec);
  const int64_t n = s.n, nnz = s.row_start[n];
  if (n >= std::numeric_limits<int32_t>::max())
    throw unsupported_error("LDL' sweeps on the GPU: more than 2^31 rows");
  const int64_t need = 2 * (n + 1) * 8 + n * 8 + n * 4 + 2 * nnz * 12 + n * 8;
  if (need > detail::device_budget(exec, scope.ctx))
    throw unsupported_error("LDL' sweeps: the factor (" + std::to_string(need >> 20) +
                            " MiB with a vector) does not fit the device memory budget");
  auto d = std::make_unique<ldl_sweeps::device_copy>();
  cudaStream_t st = scope.ctx.stream;
  upload(d->d, s.d, st);
  upload(d->row_start, s.row_start, st);
  upload(d->row_col, narrow(s.row_col), st);
  upload(d->row_val, s.row_val, st);
  upload(d->backward_col, narrow(s.backward_col), st);
  upload(d->col_start, s.col_start, st);
  upload(d->col_row, narrow(s.col_row), st);
  upload(d->col_val, s.col_val, st);
  PMX_CUDA_CHECK(cudaStreamSynchronize(st));  // the narrowed host copies go out of scope
  d->forward_level = s.forward_level;
  d->backward_level = s.backward_level;
  return d.release();
}

void release_ldl_sweeps(ldl_sweeps::device_copy* d) noexcept { delete d; }

void ldl_solve_permuted(const ldl_sweeps& sw, int64_t t, double* W) {
  detail::cuda_scope scope(sw.exec());
  cudaStream_t st = scope.ctx.stream;
  auto& d = const_cast<ldl_sweeps::device_copy&>(*sw.device());
  const int64_t n = sw.size();
  const size_t bytes = static_cast<size_t>(n * t) * sizeof(double);
  const bool host = !detail::is_device_pointer(W);
  double* w = W;
  if (host) {
    d.w.reserve(bytes);
    w = static_cast<double*>(d.w.get());
    PMX_CUDA_CHECK(cudaMemcpyAsync(w, W, bytes, cudaMemcpyHostToDevice, st));
  }
  constexpr int threads = 256;
  auto grid = [&](int64_t rows) { return static_cast<unsigned>((rows * t + threads - 1) / threads); };
  for (size_t l = 0; l + 1 < d.forward_level.size(); ++l) {
    const int64_t first = d.forward_level[l], rows = d.forward_level[l + 1] - first;
    if (rows == 0) continue;
    forward_level<<<grid(rows), threads, 0, st>>>(first, rows, static_cast<int>(t),
                                                  static_cast<const int64_t*>(d.row_start.get()),
                                                  static_cast<const int32_t*>(d.row_col.get()),
                                                  static_cast<const double*>(d.row_val.get()), w);
    PMX_CUDA_CHECK_LAUNCH();
  }
  for (size_t l = 0; l + 1 < d.backward_level.size(); ++l) {
    const int64_t first = d.backward_level[l], cols = d.backward_level[l + 1] - first;
    if (cols == 0) continue;
    backward_level<<<grid(cols), threads, 0, st>>>(
        first, cols, static_cast<int>(t), static_cast<const int32_t*>(d.backward_col.get()),
        static_cast<const int64_t*>(d.col_start.get()), static_cast<const int32_t*>(d.col_row.get()),
        static_cast<const double*>(d.col_val.get()), static_cast<const double*>(d.d.get()), w);
    PMX_CUDA_CHECK_LAUNCH();
  }
  if (host) PMX_CUDA_CHECK(cudaMemcpyAsync(W, w, bytes, cudaMemcpyDeviceToHost, st));
  PMX_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace pmx::kernels::cuda
