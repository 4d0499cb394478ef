// Sparse products on the GPU: S uploaded once in CSR and multiplied on the executor's stream by
// cuSPARSE SpMV (CSR_ALG2, deterministic) for one column, and by rows_times_block below for more.
// Host X and Y cross the bus at each product (by DMA when they are page-locked).
#include <cusparse.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "ops/sparse_product/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::detail {
namespace {
void cusparse_check(cusparseStatus_t s, const char* expr, const char* file, int line) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw_cuda_error(expr, file, line, cusparseGetErrorString(s));
}
}  // namespace
}  // namespace pmx::detail

#define PMX_CUSPARSE_CHECK(expr) ::pmx::detail::cusparse_check((expr), #expr, __FILE__, __LINE__)

namespace pmx {
struct sparse_operand::device_copy {
  cusparseSpMatDescr_t mat = nullptr;  // products run on the executor's cuSPARSE handle
  bool narrow = false;  // 32-bit offsets and columns
  void* offsets = nullptr;
  void* columns = nullptr;
  double* values = nullptr;
  // Per product: X and Y when they are host memory, and cuSPARSE's workspace.
  detail::device_buffer x, y, work;
  ~device_copy() {
    if (mat) cusparseDestroySpMat(mat);
    cudaFree(offsets);
    cudaFree(columns);
    cudaFree(values);
  }
};
}  // namespace pmx

namespace pmx::kernels::cuda {
namespace {

// Y = S X for t ≥ 2 row-major columns: one thread per output entry (row r, column c; c fastest,
// so a row's nonzeros are read by t neighbouring threads at once), the row summed in storage
// order like the cpu kernel. cuSPARSE's row-major SpMM (CSR_ALG2) gave different bits from run
// to run (n = 200,000, t = 3 and 10, test_cuda_sparse_product), which would make PCG's
// iterations differ between identical runs.
template <class Index>
__global__ void rows_times_block(int64_t n, const Index* __restrict__ rs, const Index* __restrict__ cl,
                                 const double* __restrict__ v, int t, const double* __restrict__ X,
                                 double* __restrict__ Y) {
  const int64_t id = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (id >= n * t) return;
  const int64_t r = id / t;
  const int c = static_cast<int>(id - r * t);
  double acc = 0.0;
  for (Index k = rs[r]; k < rs[r + 1]; ++k) acc += v[k] * X[static_cast<int64_t>(cl[k]) * t + c];
  Y[id] = acc;
}

template <class Index>
void launch_rows_times_block(int64_t n, const Index* rs, const Index* cl, const double* v, int64_t t,
                             const double* X, double* Y, cudaStream_t stream) {
  constexpr int threads = 256;
  const int64_t blocks = (n * t + threads - 1) / threads;
  rows_times_block<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(n, rs, cl, v, static_cast<int>(t), X, Y);
  PMX_CUDA_CHECK_LAUNCH();
}

}  // namespace

sparse_operand::device_copy* upload_sparse(const executor& exec, const csr_view& s) {
  detail::cuda_scope scope(exec);
  const int64_t n = s.n, cols = s.cols(), nnz = s.nonzeros();
  // 32-bit offsets and columns while they fit (a third less to read than 64-bit ones); cuSPARSE
  // takes one index type for both.
  const bool narrow = s.col32 && nnz <= std::numeric_limits<int32_t>::max();
  const size_t index_bytes = narrow ? 4 : 8;
  const int64_t need = static_cast<int64_t>((n + 1 + nnz) * index_bytes + nnz * 8 + (n + cols) * 8);
  if (need > detail::device_budget(exec, scope.ctx))
    throw unsupported_error("sparse product: the matrix (" + std::to_string(need >> 20) +
                            " MiB with its vectors) does not fit the device memory budget");
  auto d = std::make_unique<sparse_operand::device_copy>();
  d->narrow = narrow;
  PMX_CUDA_CHECK(cudaMalloc(&d->offsets, (n + 1) * index_bytes));
  PMX_CUDA_CHECK(cudaMalloc(&d->columns, nnz * index_bytes));
  PMX_CUDA_CHECK(cudaMalloc(&d->values, nnz * sizeof(double)));
  if (narrow) {
    const std::vector<int32_t> offsets(s.row_start, s.row_start + n + 1);
    PMX_CUDA_CHECK(cudaMemcpy(d->offsets, offsets.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
    PMX_CUDA_CHECK(cudaMemcpy(d->columns, s.col32, nnz * 4, cudaMemcpyHostToDevice));
  } else {
    PMX_CUDA_CHECK(cudaMemcpy(d->offsets, s.row_start, (n + 1) * 8, cudaMemcpyHostToDevice));
    if (s.col64) {
      PMX_CUDA_CHECK(cudaMemcpy(d->columns, s.col64, nnz * 8, cudaMemcpyHostToDevice));
    } else {
      const std::vector<int64_t> columns(s.col32, s.col32 + nnz);
      PMX_CUDA_CHECK(cudaMemcpy(d->columns, columns.data(), nnz * 8, cudaMemcpyHostToDevice));
    }
  }
  PMX_CUDA_CHECK(cudaMemcpy(d->values, s.value, nnz * sizeof(double), cudaMemcpyHostToDevice));
  const cusparseIndexType_t it = narrow ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
  PMX_CUSPARSE_CHECK(cusparseCreateCsr(&d->mat, n, cols, nnz, d->offsets, d->columns, d->values, it, it,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  return d.release();
}

void release_sparse(sparse_operand::device_copy* d) noexcept { delete d; }

void sparse_multiply(const sparse_operand& s, int64_t t, const double* X, double* Y) {
  detail::cuda_scope scope(s.exec());
  cudaStream_t stream = scope.ctx.stream;
  auto& d = const_cast<sparse_operand::device_copy&>(*s.device());
  const int64_t n = s.matrix().n, cols = s.matrix().cols();
  const size_t bytes = static_cast<size_t>(n * t) * sizeof(double), x_bytes = static_cast<size_t>(cols * t) * sizeof(double);
  const bool x_host = !detail::is_device_pointer(X), y_host = !detail::is_device_pointer(Y);
  const double* dx = X;
  double* dy = Y;
  if (x_host) {
    d.x.reserve(x_bytes);
    dx = static_cast<const double*>(d.x.get());
    PMX_CUDA_CHECK(cudaMemcpyAsync(d.x.get(), X, x_bytes, cudaMemcpyHostToDevice, stream));
  }
  if (y_host) {
    d.y.reserve(bytes);
    dy = static_cast<double*>(d.y.get());
  }
  const double one = 1.0, zero = 0.0;
  size_t work = 0;
  if (t == 1) {
    cusparseConstDnVecDescr_t vx = nullptr;
    cusparseDnVecDescr_t vy = nullptr;
    PMX_CUSPARSE_CHECK(cusparseCreateConstDnVec(&vx, cols, dx, CUDA_R_64F));
    const std::unique_ptr<const cusparseDnVecDescr, decltype(&cusparseDestroyDnVec)> gx(vx, cusparseDestroyDnVec);
    PMX_CUSPARSE_CHECK(cusparseCreateDnVec(&vy, n, dy, CUDA_R_64F));
    const std::unique_ptr<const cusparseDnVecDescr, decltype(&cusparseDestroyDnVec)> gy(vy, cusparseDestroyDnVec);
    // CSR_ALG2: the same bits on every run.
    scope.ctx.start_sparse();
    PMX_CUSPARSE_CHECK(cusparseSpMV_bufferSize(scope.ctx.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d.mat, vx, &zero,
                                               vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &work));
    d.work.reserve(std::max<size_t>(work, 1));
    PMX_CUSPARSE_CHECK(cusparseSpMV(scope.ctx.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d.mat, vx, &zero, vy,
                                    CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, d.work.get()));
  } else if (d.narrow) {
    launch_rows_times_block(n, static_cast<const int32_t*>(d.offsets), static_cast<const int32_t*>(d.columns),
                            d.values, t, dx, dy, stream);
  } else {
    launch_rows_times_block(n, static_cast<const int64_t*>(d.offsets), static_cast<const int64_t*>(d.columns),
                            d.values, t, dx, dy, stream);
  }
  if (y_host) PMX_CUDA_CHECK(cudaMemcpyAsync(Y, dy, bytes, cudaMemcpyDeviceToHost, stream));
  PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace pmx::kernels::cuda
