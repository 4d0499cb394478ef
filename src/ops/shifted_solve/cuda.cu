// Shifted solves on the GPU: A resident once, each solve forms H = a·A + b·I on the device,
// factorises it with cuSOLVER (Xpotrf, 64-bit API) and solves the right-hand sides (Xpotrs). The
// factor of the last shift is kept: solves at the same shift only run Xpotrs.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/cusolver_support.hpp"
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
  PMX_CUDA_CHECK(cudaMemcpy2DAsync(d->A, sizeof(double) * n, A, sizeof(double) * lda, sizeof(double) * n,
                                   static_cast<size_t>(n), cudaMemcpyDefault, s));
  detail::cusolver_handle solver(s);
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
  detail::cuda_scope scope(op.exec());
  cudaStream_t s = scope.ctx.stream;
  auto* d = op.device();
  const int64_t n = op.n();
  detail::cusolver_handle solver(s);
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

}  // namespace pmx::kernels::cuda
