// Shifted solves on the GPU: A resident once, each solve forms H = a·A + b·I on the device,
// factorises it with cuSOLVER (Xpotrf, 64-bit API) and solves the right-hand sides (Xpotrs). The
// factor of the last shift is kept: solves at the same shift only run Xpotrs. The a = 0 shift (b·I)
// is solved in closed form on the host.
// Upload: only the lower triangle crosses the bus (half of n² doubles), in column pieces through
// the context's pinned staging buffers (a pageable cudaMemcpy of 20 GB runs at a fraction of the
// link's rate); the device then mirrors it into the upper triangle so products run as DGEMM.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/cusolver_support.hpp"
#include "panoramix/error.hpp"
#include "ops/shifted_solve/kernels.hpp"

namespace pmx {
struct shifted_operand::device_copy {
  double* A = nullptr;  // n × n, leading dimension n
  double* H = nullptr;  // the shifted copy, factorised in place
  void* work = nullptr;
  size_t work_bytes = 0;
  std::vector<char> host_work;
  int* info = nullptr;
  // The shift whose factor H holds (PEV solves many right-hand sides at one h²: no refactoring).
  bool factored = false;
  double a = 0, b = 0, logdet = 0;
  ~device_copy() {
    cudaFree(A);
    cudaFree(H);
    cudaFree(work);
    cudaFree(info);
  }
};
}  // namespace pmx

namespace pmx::kernels::cuda {
namespace {

// H = a·A + b·I over the lower triangle (all Xpotrf reads), one thread per element of a column.
__global__ void form_shifted(const double* __restrict__ A, double* __restrict__ H, int64_t n, double a, double b) {
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
    for (int64_t i = j + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
      H[j * n + i] = a * A[j * n + i] + (i == j ? b : 0.0);
}

// A[i + j n] = A[j + i n] for i < j: the strictly upper triangle from the lower one, through
// 32 × 32 shared-memory tiles (tile (bx, by) of the upper part reads tile (by, bx) of the lower).
__global__ void mirror_lower_to_upper(double* A, int64_t n) {
  __shared__ double tile[32][33];
  const int64_t bx = blockIdx.x, by = blockIdx.y;  // tile column, tile row of the destination
  if (by > bx) return;
  const int tx = threadIdx.x, ty = threadIdx.y;  // blockDim = (32, 8)
  // Source tile: rows 32 bx.., columns 32 by.. (lower triangle); read along its columns.
  for (int k = ty; k < 32; k += 8) {
    const int64_t row = 32 * bx + tx, col = 32 * by + k;
    if (row < n && col < n) tile[k][tx] = A[col * n + row];
  }
  __syncthreads();
  // Destination: rows 32 by + tx, columns 32 bx + k; only strictly above the diagonal.
  for (int k = ty; k < 32; k += 8) {
    const int64_t row = 32 * by + tx, col = 32 * bx + k;
    if (row < n && col < n && row < col) A[col * n + row] = tile[tx][k];
  }
}

// Y += b X over n × m (leading dimension n).
__global__ void add_scaled(double* __restrict__ Y, const double* __restrict__ X, int64_t count, double b) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    Y[i] += b * X[i];
}

// Lower triangle of host A (column-major, lda) into device dA (leading dimension n): pieces of
// columns [j0, j0 + c), rows j0..n-1 of each (a trapezoid; the few upper entries of the piece are
// overwritten by the mirror), gathered into pinned memory on the host while the previous piece
// is in flight.
void upload_lower(detail::cuda_context& c, const executor& exec, const double* A, int64_t lda, double* dA, int64_t n) {
  int64_t p = 0;
  for (int64_t j0 = 0; j0 < n; ++p) {
    const int64_t rows = n - j0;
    const int64_t cols = std::clamp<int64_t>(static_cast<int64_t>(c.pinned_bytes / (sizeof(double) * rows)), 1, rows);
    const int s = static_cast<int>(p & 1);
    PMX_CUDA_CHECK(cudaEventSynchronize(c.staged[s]));  // buffer s free again
    auto* pin = static_cast<double*>(c.pinned[s]);
    gather_lower_columns(pin, A, lda, n, j0, cols, exec.threads());
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(dA + j0 * n + j0, sizeof(double) * n, pin, sizeof(double) * rows,
                                     sizeof(double) * rows, static_cast<size_t>(cols), cudaMemcpyHostToDevice,
                                     c.stream));
    PMX_CUDA_CHECK(cudaEventRecord(c.staged[s], c.stream));
    j0 += cols;
  }
}

}  // namespace

shifted_operand::device_copy* upload_shifted(const executor& exec, int64_t n, const double* A, int64_t lda) {
  detail::cuda_scope scope(exec);
  cudaStream_t s = scope.ctx.stream;
  auto d = std::make_unique<shifted_operand::device_copy>();
  const size_t bytes = sizeof(double) * static_cast<size_t>(n) * static_cast<size_t>(n);
  detail::check_device_fits(exec, scope.ctx, 2 * bytes, "shifted solve (two n x n matrices)");
  PMX_CUDA_CHECK(cudaMalloc(&d->A, bytes));
  PMX_CUDA_CHECK(cudaMalloc(&d->H, bytes));
  PMX_CUDA_CHECK(cudaMalloc(&d->info, sizeof(int)));
  if (detail::is_device_pointer(A)) {
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(d->A, sizeof(double) * n, A, sizeof(double) * lda, sizeof(double) * n,
                                     static_cast<size_t>(n), cudaMemcpyDeviceToDevice, s));
  } else {
    upload_lower(scope.ctx, exec, A, lda, d->A, n);
  }
  {
    const unsigned tiles = static_cast<unsigned>((n + 31) / 32);
    mirror_lower_to_upper<<<dim3(tiles, tiles), dim3(32, 8), 0, s>>>(d->A, n);
    PMX_CUDA_CHECK_LAUNCH();
  }
  detail::cusolver_handle solver(scope.ctx);
  size_t dev_bytes = 0, host_bytes = 0;
  PMX_CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(solver.handle, solver.params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F,
                                                 d->H, n, CUDA_R_64F, &dev_bytes, &host_bytes));
  detail::check_device_fits(exec, scope.ctx, dev_bytes, "Cholesky workspace");
  PMX_CUDA_CHECK(cudaMalloc(&d->work, std::max<size_t>(dev_bytes, 16)));
  d->work_bytes = dev_bytes;
  d->host_work.resize(std::max<size_t>(host_bytes, 1));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  return d.release();
}

void release_shifted(shifted_operand::device_copy* d) noexcept { delete d; }

double shifted_cholesky_solve(const shifted_operand& op, double a, double b, int64_t m, double* B, int64_t ldb) {
  if (a == 0) return solve_scaled_identity(op.n(), b, m, B, ldb);  // b·I: nothing to factorise
  detail::cuda_scope scope(op.exec());
  cudaStream_t s = scope.ctx.stream;
  auto* d = op.device();
  const int64_t n = op.n();
  detail::cusolver_handle solver(scope.ctx);
  if (!(d->factored && d->a == a && d->b == b)) {
    d->factored = false;
    const dim3 grid(static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, 64)),
                    static_cast<unsigned>(std::min<int64_t>(n, 65535)));
    form_shifted<<<grid, 256, 0, s>>>(d->A, d->H, n, a, b);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUSOLVER_CHECK(cusolverDnXpotrf(solver.handle, solver.params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, d->H, n,
                                        CUDA_R_64F, d->work, d->work_bytes, d->host_work.data(),
                                        d->host_work.size(), d->info));
    int info = 0;
    PMX_CUDA_CHECK(cudaMemcpyAsync(&info, d->info, sizeof(int), cudaMemcpyDeviceToHost, s));
    PMX_CUDA_CHECK(cudaStreamSynchronize(s));
    if (info > 0)
      throw numeric_error("Cholesky factorisation of the shifted matrix: not positive definite (leading minor of order " +
                          std::to_string(info) + " of " + std::to_string(n) + ")");
    if (info < 0) throw logic_error("cusolverDnXpotrf: argument " + std::to_string(-info) + " invalid");
    std::vector<double> diag(static_cast<size_t>(n));
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(diag.data(), sizeof(double), d->H, sizeof(double) * (n + 1), sizeof(double),
                                     static_cast<size_t>(n), cudaMemcpyDeviceToHost, s));
    PMX_CUDA_CHECK(cudaStreamSynchronize(s));
    double logdet = 0.0;
    for (double v : diag) logdet += std::log(v);
    d->a = a, d->b = b, d->logdet = 2.0 * logdet, d->factored = true;
  }
  if (m > 0) {
    double* dB = nullptr;
    PMX_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dB), sizeof(double) * static_cast<size_t>(n * m), s));
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(dB, sizeof(double) * n, B, sizeof(double) * ldb, sizeof(double) * n,
                                     static_cast<size_t>(m), cudaMemcpyDefault, s));
    PMX_CUSOLVER_CHECK(cusolverDnXpotrs(solver.handle, solver.params, CUBLAS_FILL_MODE_LOWER, n, m, CUDA_R_64F, d->H,
                                        n, CUDA_R_64F, dB, n, d->info));
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(B, sizeof(double) * ldb, dB, sizeof(double) * n, sizeof(double) * n,
                                     static_cast<size_t>(m), cudaMemcpyDefault, s));
    PMX_CUDA_CHECK(cudaFreeAsync(dB, s));
  }
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  return d->logdet;
}

void shifted_multiply(const shifted_operand& op, double a, double b, int64_t m, const double* X, int64_t ldx,
                      double* Y, int64_t ldy) {
  detail::cuda_scope scope(op.exec());
  cudaStream_t s = scope.ctx.stream;
  const auto* d = op.device();
  const int64_t n = op.n();
  if (n > INT32_MAX || m > INT32_MAX) throw unsupported_error("shifted multiply: dimensions beyond cuBLAS's 32-bit int");
  const size_t bytes = sizeof(double) * static_cast<size_t>(n) * static_cast<size_t>(m);
  double *dX = nullptr, *dY = nullptr;
  PMX_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dX), bytes, s));
  PMX_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&dY), bytes, s));
  PMX_CUDA_CHECK(cudaMemcpy2DAsync(dX, sizeof(double) * n, X, sizeof(double) * ldx, sizeof(double) * n,
                                   static_cast<size_t>(m), cudaMemcpyDefault, s));
  // d->A holds both triangles (mirrored at upload): Y = a A X as a plain DGEMM.
  const double zero = 0.0;
  PMX_CUBLAS_CHECK(cublasDgemm(scope.ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                               static_cast<int>(n), &a, d->A, static_cast<int>(n), dX, static_cast<int>(n), &zero, dY,
                               static_cast<int>(n)));
  if (b != 0) {
    const auto count = static_cast<int64_t>(n) * m;
    add_scaled<<<static_cast<unsigned>(std::min<int64_t>((count + 255) / 256, 4096)), 256, 0, s>>>(dY, dX, count, b);
    PMX_CUDA_CHECK_LAUNCH();
  }
  PMX_CUDA_CHECK(cudaMemcpy2DAsync(Y, sizeof(double) * ldy, dY, sizeof(double) * n, sizeof(double) * n,
                                   static_cast<size_t>(m), cudaMemcpyDefault, s));
  PMX_CUDA_CHECK(cudaFreeAsync(dX, s));
  PMX_CUDA_CHECK(cudaFreeAsync(dY, s));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace pmx::kernels::cuda
