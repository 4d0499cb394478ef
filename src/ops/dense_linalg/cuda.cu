// Dense symmetric algebra on the GPU: cuSOLVER's 64-bit API (Xpotrf/Xpotrs, Xsyevd/Xsyevdx).
// Host operands are copied in (and results out) around the call; device operands are used in
// place. A cuSOLVER handle is made per call: these calls are O(n³), the handle's set-up is not.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/cusolver_support.hpp"
#include "ops/dense_linalg/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
namespace {

// The context's solver handle and this call's device buffers, released on every exit path.
struct solver_call : detail::cusolver_handle {
  std::vector<void*> device;
  explicit solver_call(detail::cuda_context& c) : cusolver_handle(c) {}
  ~solver_call() {
    for (void* p : device) cudaFree(p);
  }
  void* alloc(size_t bytes) {
    void* p = nullptr;
    PMX_CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 16)));
    device.push_back(p);
    return p;
  }
};

// A column-major n_rows × n_cols operand on the device: the caller's memory or a copy of it.
double* device_operand(solver_call& call, cudaStream_t stream, double* p, int64_t ld, int64_t n_rows,
                       int64_t n_cols, bool copy_in) {
  if (detail::is_device_pointer(p)) return p;
  auto* d = static_cast<double*>(call.alloc(sizeof(double) * static_cast<size_t>(ld * n_cols)));
  if (copy_in)
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(d, sizeof(double) * ld, p, sizeof(double) * ld, sizeof(double) * n_rows,
                                     static_cast<size_t>(n_cols), cudaMemcpyHostToDevice, stream));
  return d;
}

int read_info(cudaStream_t stream, const int* d_info) {
  int info = 0;
  PMX_CUDA_CHECK(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
  return info;
}

}  // namespace

namespace {

__global__ void add_to_diagonal(double* A, int64_t lda, int64_t n, double shift) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    A[i * lda + i] += shift;
}

// Factorises the device matrix dA (destroyed) and solves for B (host or device) in place.
double factor_and_solve(const executor& exec, detail::cuda_scope& scope, solver_call& call, int64_t n, double* dA,
                        int64_t lda, int64_t m, double* B, int64_t ldb, bool b_host) {
  cudaStream_t s = scope.ctx.stream;
  double* dB = m > 0 ? device_operand(call, s, B, ldb, n, m, true) : nullptr;
  int* d_info = static_cast<int*>(call.alloc(sizeof(int)));
  size_t dev_bytes = 0, host_bytes = 0;
  PMX_CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(call.handle, call.params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F,
                                                 dA, lda, CUDA_R_64F, &dev_bytes, &host_bytes));
  detail::check_device_fits(exec, scope.ctx, dev_bytes, "Cholesky workspace");
  void* d_work = call.alloc(dev_bytes);
  std::vector<char> h_work(std::max<size_t>(host_bytes, 1));
  PMX_CUSOLVER_CHECK(cusolverDnXpotrf(call.handle, call.params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA, lda,
                                      CUDA_R_64F, d_work, dev_bytes, h_work.data(), host_bytes, d_info));
  const int info = read_info(s, d_info);
  if (info > 0)
    throw numeric_error("Cholesky factorisation: the matrix is not positive definite (leading minor of order " +
                        std::to_string(info) + " of " + std::to_string(n) + ")");
  if (info < 0) throw logic_error("cusolverDnXpotrf: argument " + std::to_string(-info) + " invalid");
  if (m > 0) {
    PMX_CUSOLVER_CHECK(cusolverDnXpotrs(call.handle, call.params, CUBLAS_FILL_MODE_LOWER, n, m, CUDA_R_64F, dA,
                                        lda, CUDA_R_64F, dB, ldb, d_info));
    if (b_host)
      PMX_CUDA_CHECK(cudaMemcpy2DAsync(B, sizeof(double) * ldb, dB, sizeof(double) * ldb, sizeof(double) * n,
                                       static_cast<size_t>(m), cudaMemcpyDeviceToHost, s));
  }
  // log det from the factor's diagonal (strided copy: one double every lda + 1).
  std::vector<double> diag(static_cast<size_t>(n));
  PMX_CUDA_CHECK(cudaMemcpy2DAsync(diag.data(), sizeof(double), dA, sizeof(double) * (lda + 1), sizeof(double),
                                   static_cast<size_t>(n), cudaMemcpyDeviceToHost, s));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  double logdet = 0.0;
  for (double d : diag) logdet += std::log(d);
  return 2.0 * logdet;
}

}  // namespace

double cholesky_solve(const executor& exec, int64_t n, double* A, int64_t lda, int64_t m, double* B,
                      int64_t ldb) {
  detail::cuda_scope scope(exec);
  solver_call call(scope.ctx);
  const bool a_host = !detail::is_device_pointer(A), b_host = m > 0 && !detail::is_device_pointer(B);
  detail::check_device_fits(exec, scope.ctx,
             sizeof(double) * (a_host ? static_cast<size_t>(lda * n) : 0) +
                 sizeof(double) * (b_host ? static_cast<size_t>(ldb * m) : 0),
             "Cholesky solve");
  double* dA = device_operand(call, scope.ctx.stream, A, lda, n, n, true);
  return factor_and_solve(exec, scope, call, n, dA, lda, m, B, ldb, b_host);
}

double shifted_cholesky_solve(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                              double* B, int64_t ldb) {
  detail::cuda_scope scope(exec);
  cudaStream_t s = scope.ctx.stream;
  solver_call call(scope.ctx);
  const bool b_host = m > 0 && !detail::is_device_pointer(B);
  detail::check_device_fits(exec, scope.ctx,
                            sizeof(double) * static_cast<size_t>(lda * n) +
                                sizeof(double) * (b_host ? static_cast<size_t>(ldb * m) : 0),
                            "Cholesky solve");
  auto* dA = static_cast<double*>(call.alloc(sizeof(double) * static_cast<size_t>(lda * n)));
  PMX_CUDA_CHECK(cudaMemcpyAsync(dA, A, sizeof(double) * static_cast<size_t>(lda * n), cudaMemcpyDefault, s));
  add_to_diagonal<<<static_cast<int>(std::min<int64_t>((n + 255) / 256, 4096)), 256, 0, s>>>(dA, lda, n, shift);
  PMX_CUDA_CHECK_LAUNCH();
  return factor_and_solve(exec, scope, call, n, dA, lda, m, B, ldb, b_host);
}

namespace {

// Absolute column sums of A + shift·I, a block per column so that reads are coalesced (A is
// symmetric: they are its row sums).
constexpr int sum_threads = 256;
__global__ void column_abs_sums(const double* A, int64_t lda, int64_t n, double shift, double* out) {
  const int64_t c = blockIdx.x;
  double s = 0;
  for (int64_t r = threadIdx.x; r < n; r += blockDim.x) s += fabs(A[c * lda + r] + (r == c ? shift : 0.0));
  __shared__ double sh[sum_threads];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int w = sum_threads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[c] = sh[0];
}

}  // namespace

bool is_device_memory(const void* p) { return detail::is_device_pointer(p); }

void shifted_residual(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                      const double* W, const double* Y, double* R) {
  detail::cuda_scope scope(exec);
  cudaStream_t s = scope.ctx.stream;
  solver_call call(scope.ctx);  // owns the two n × m buffers
  auto* dW = static_cast<double*>(call.alloc(sizeof(double) * static_cast<size_t>(n * m)));
  auto* dR = static_cast<double*>(call.alloc(sizeof(double) * static_cast<size_t>(n * m)));
  PMX_CUDA_CHECK(cudaMemcpyAsync(dW, W, sizeof(double) * static_cast<size_t>(n * m), cudaMemcpyHostToDevice, s));
  PMX_CUDA_CHECK(cudaMemcpyAsync(dR, Y, sizeof(double) * static_cast<size_t>(n * m), cudaMemcpyHostToDevice, s));
  const double minus_one = -1.0, one = 1.0, minus_shift = -shift;
  PMX_CUBLAS_CHECK(cublasSetStream(scope.ctx.blas, s));
  PMX_CUBLAS_CHECK(cublasDgemm(scope.ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                               static_cast<int>(n), &minus_one, A, static_cast<int>(lda), dW, static_cast<int>(n), &one,
                               dR, static_cast<int>(n)));
  PMX_CUBLAS_CHECK(cublasDaxpy(scope.ctx.blas, static_cast<int>(n * m), &minus_shift, dW, 1, dR, 1));
  PMX_CUDA_CHECK(cudaMemcpyAsync(R, dR, sizeof(double) * static_cast<size_t>(n * m), cudaMemcpyDeviceToHost, s));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
}

double shifted_norm_inf(const executor& exec, int64_t n, const double* A, int64_t lda, double shift) {
  detail::cuda_scope scope(exec);
  cudaStream_t s = scope.ctx.stream;
  solver_call call(scope.ctx);
  auto* d = static_cast<double*>(call.alloc(sizeof(double) * static_cast<size_t>(n)));
  column_abs_sums<<<static_cast<unsigned>(n), sum_threads, 0, s>>>(A, lda, n, shift, d);
  PMX_CUDA_CHECK_LAUNCH();
  std::vector<double> sums(static_cast<size_t>(n));
  PMX_CUDA_CHECK(cudaMemcpyAsync(sums.data(), d, sizeof(double) * static_cast<size_t>(n), cudaMemcpyDeviceToHost, s));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  return *std::max_element(sums.begin(), sums.end());
}

void symmetric_eigen(const executor& exec, int64_t n, double* A, int64_t lda, int64_t count, double* values,
                     double* vectors, int64_t ldv) {
  detail::cuda_scope scope(exec);
  cudaStream_t s = scope.ctx.stream;
  solver_call call(scope.ctx);
  const bool a_host = !detail::is_device_pointer(A);
  detail::check_device_fits(exec, scope.ctx, a_host ? sizeof(double) * static_cast<size_t>(lda * n) : 0, "eigendecomposition");
  double* dA = device_operand(call, s, A, lda, n, n, true);
  auto* dW = static_cast<double*>(call.alloc(sizeof(double) * static_cast<size_t>(n)));
  int* d_info = static_cast<int*>(call.alloc(sizeof(int)));
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const bool all = count == n;
  const int64_t il = n - count + 1, iu = n;
  int64_t found = n;
  double vl = 0, vu = 0;
  size_t dev_bytes = 0, host_bytes = 0;
  if (all)
    PMX_CUSOLVER_CHECK(cusolverDnXsyevd_bufferSize(call.handle, call.params, jobz, CUBLAS_FILL_MODE_LOWER, n,
                                                   CUDA_R_64F, dA, lda, CUDA_R_64F, dW, CUDA_R_64F, &dev_bytes,
                                                   &host_bytes));
  else
    PMX_CUSOLVER_CHECK(cusolverDnXsyevdx_bufferSize(call.handle, call.params, jobz, CUSOLVER_EIG_RANGE_I,
                                                    CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA, lda, &vl, &vu, il,
                                                    iu, &found, CUDA_R_64F, dW, CUDA_R_64F, &dev_bytes,
                                                    &host_bytes));
  detail::check_device_fits(exec, scope.ctx, dev_bytes, "eigendecomposition workspace");
  void* d_work = call.alloc(dev_bytes);
  std::vector<char> h_work(std::max<size_t>(host_bytes, 1));
  if (all)
    PMX_CUSOLVER_CHECK(cusolverDnXsyevd(call.handle, call.params, jobz, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA,
                                        lda, CUDA_R_64F, dW, CUDA_R_64F, d_work, dev_bytes, h_work.data(),
                                        host_bytes, d_info));
  else
    PMX_CUSOLVER_CHECK(cusolverDnXsyevdx(call.handle, call.params, jobz, CUSOLVER_EIG_RANGE_I,
                                         CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA, lda, &vl, &vu, il, iu, &found,
                                         CUDA_R_64F, dW, CUDA_R_64F, d_work, dev_bytes, h_work.data(), host_bytes,
                                         d_info));
  const int info = read_info(s, d_info);
  if (info > 0) throw numeric_error("symmetric eigendecomposition (cuSOLVER) did not converge");
  if (info < 0) throw logic_error("cuSOLVER syevd: argument " + std::to_string(-info) + " invalid");
  if (found != count)
    throw numeric_error("cuSOLVER returned " + std::to_string(found) + " of " + std::to_string(count) +
                        " eigenpairs");
  // Ascending in dW[0..count) and the first `count` columns of dA; the op promises descending.
  std::vector<double> w(static_cast<size_t>(count));
  PMX_CUDA_CHECK(cudaMemcpyAsync(w.data(), dW, sizeof(double) * static_cast<size_t>(count), cudaMemcpyDeviceToHost, s));
  const bool v_dev = vectors && detail::is_device_pointer(vectors);
  if (vectors && !v_dev && count > 64) {
    // Many columns to a host array: one strided copy, then the column order is reversed in place.
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(vectors, sizeof(double) * ldv, dA, sizeof(double) * lda, sizeof(double) * n,
                                     static_cast<size_t>(count), cudaMemcpyDeviceToHost, s));
    PMX_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int64_t c = 0; c < count / 2; ++c)
      std::swap_ranges(vectors + c * ldv, vectors + c * ldv + n, vectors + (count - 1 - c) * ldv);
  } else {
    for (int64_t c = 0; vectors && c < count; ++c)
      PMX_CUDA_CHECK(cudaMemcpyAsync(vectors + c * ldv, dA + (count - 1 - c) * lda,
                                     sizeof(double) * static_cast<size_t>(n),
                                     v_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost, s));
  }
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  for (int64_t c = 0; c < count; ++c) values[c] = w[static_cast<size_t>(count - 1 - c)];
}

}  // namespace pmx::kernels::cuda
