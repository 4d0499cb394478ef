// CUDA device discovery and the executor's CUDA resources (compiled by nvcc when the CUDA backend
// is built; cuda_device_stub.cpp stands in otherwise).
#include <cstdlib>
#include <memory>
#include <string>

#include "core/cuda_context.hpp"
#include "core/cuda_libraries.hpp"
#include "panoramix/error.hpp"

namespace pmx {

bool cuda_compiled_in() { return true; }

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return count;
}

bool cuda_available() { return cuda_device_count() > 0; }

namespace detail {

std::shared_ptr<cuda_context> make_cuda_context() {
  load_cuda_libraries();  // a missing cuBLAS/cuSOLVER/cuSPARSE is reported here, by name
  return std::make_shared<cuda_context>();
}

void throw_cuda_error(const char* expr, const char* file, int line, const char* what) {
  throw error(std::string(file) + ":" + std::to_string(line) + ": CUDA error in " + expr + ": " + what);
}

void cublas_check(cublasStatus_t s, const char* expr, const char* file, int line) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw error(std::string(file) + ":" + std::to_string(line) + ": cuBLAS error in " + expr + ": " +
              cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

void device_buffer::reserve(size_t bytes) {
  if (bytes <= bytes_) return;
  release();
  if (bytes == 0) return;
  PMX_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  bytes_ = bytes;
}

void device_buffer::release() {
  if (ptr_) cudaFree(ptr_);  // no throw: also runs from destructors
  ptr_ = nullptr;
  bytes_ = 0;
}

cuda_context::~cuda_context() {
  if (!started) return;
  cudaSetDevice(device);
  if (stream) cudaStreamSynchronize(stream);
  for (auto& b : scratch) b.release();
  gathered.release();
  nccl.reset();
  for (int i = 0; i < 2; ++i) {
    if (pinned[i]) cudaFreeHost(pinned[i]);
    if (staged[i]) cudaEventDestroy(staged[i]);
  }
  if (solver_params) cusolverDnDestroyParams(solver_params);
  if (solver) cusolverDnDestroy(solver);
  if (sparse) cusparseDestroy(sparse);
  if (blas) cublasDestroy(blas);
  if (stream) cudaStreamDestroy(stream);
}

void cuda_context::start() {
  if (started) return;
  PMX_CUDA_CHECK(cudaGetDevice(&device));
  PMX_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  PMX_CUBLAS_CHECK(cublasCreate(&blas));
  PMX_CUBLAS_CHECK(cublasSetStream(blas, stream));
  for (int i = 0; i < 2; ++i) PMX_CUDA_CHECK(cudaEventCreateWithFlags(&staged[i], cudaEventDisableTiming));
  started = true;
  ensure_pinned(default_staging_bytes);
}

void cuda_context::start_solver() {
  if (solver) return;
  auto check = [](cusolverStatus_t s, const char* what) {
    if (s != CUSOLVER_STATUS_SUCCESS)
      throw error(std::string("cuSOLVER: ") + what + " failed (status " + std::to_string(static_cast<int>(s)) + ")");
  };
  check(cusolverDnCreate(&solver), "cusolverDnCreate");
  check(cusolverDnSetStream(solver, stream), "cusolverDnSetStream");
  check(cusolverDnCreateParams(&solver_params), "cusolverDnCreateParams");
}

void cuda_context::start_sparse() {
  if (sparse) return;
  auto check = [](cusparseStatus_t s, const char* what) {
    if (s != CUSPARSE_STATUS_SUCCESS) throw error(std::string("cuSPARSE: ") + what + ": " + cusparseGetErrorString(s));
  };
  check(cusparseCreate(&sparse), "cusparseCreate");
  check(cusparseSetStream(sparse, stream), "cusparseSetStream");
}

// transfer_buffer's page-locked memory (null when CUDA refuses: the caller falls back).
void* pinned_alloc(size_t bytes) {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}
void pinned_free(void* p) noexcept { cudaFreeHost(p); }

// executor_array's device memory (cudaMalloc: memory for the device's lifetime use, not scratch).
void* device_alloc(size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    throw error("cannot allocate " + std::to_string(bytes >> 20) + " MiB of GPU memory");
  }
  return p;
}
void device_free(void* p) noexcept { cudaFree(p); }
bool points_to_device(const void* p) { return is_device_pointer(p); }
void device_copy(void* dst, const void* src, size_t bytes, bool to_host) {
  PMX_CUDA_CHECK(cudaMemcpy(dst, src, bytes, to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before the DMA to the device has landed, and the
  // ops' streams are non-blocking: without this a kernel queued next could read the old values
  // (seen: CudaSolverVectors under a loaded GPU).
  if (!to_host) PMX_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

void cuda_context::ensure_pinned(size_t bytes) {
  if (bytes <= pinned_bytes) return;
  PMX_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old buffers may still be in flight
  for (int i = 0; i < 2; ++i) {
    if (pinned[i]) PMX_CUDA_CHECK(cudaFreeHost(pinned[i]));
    pinned[i] = nullptr;
  }
  pinned_bytes = 0;
  for (int i = 0; i < 2; ++i) PMX_CUDA_CHECK(cudaHostAlloc(&pinned[i], bytes, cudaHostAllocDefault));
  pinned_bytes = bytes;
}

int64_t cuda_context::held_bytes() const {
  int64_t s = 0;
  for (const auto& b : scratch) s += static_cast<int64_t>(b.capacity());
  return s;
}

void cuda_context::reserve_scratch(const std::vector<size_t>& bytes, int64_t budget) {
  int64_t after = 0;
  for (int i = 0; i < n_scratch; ++i) {
    const size_t want = i < static_cast<int>(bytes.size()) ? bytes[i] : 0;
    after += static_cast<int64_t>(std::max(want, scratch[i].capacity()));
  }
  if (after > budget) {
    PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (auto& b : scratch) b.release();
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] > scratch[i].capacity() && scratch[i].capacity() > 0)
      PMX_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old buffer may still be in use
    scratch[i].reserve(bytes[i]);
  }
}

cuda_scope::cuda_scope(const executor& exec) : ctx(exec.cuda_context()), lock_(ctx.mutex) {
  if (ctx.started) {
    PMX_CUDA_CHECK(cudaSetDevice(ctx.device));
  } else if (exec.comm().local_size() > 1) {
    // One GPU per rank of this host (start() takes the current device).
    int count = 0;
    PMX_CUDA_CHECK(cudaGetDeviceCount(&count));
    PMX_CUDA_CHECK(cudaSetDevice(exec.comm().local_rank() % std::max(count, 1)));
  }
  ctx.start();
}

}  // namespace detail

void executor::start_device() const {
  if (kind_ == backend::cuda) detail::cuda_scope scope(*this);
}

void executor::synchronize() const {
  if (kind_ != backend::cuda) return;
  detail::cuda_scope scope(*this);
  PMX_CUDA_CHECK(cudaStreamSynchronize(scope.ctx.stream));
}

namespace detail {

int64_t device_budget(const executor& exec, const cuda_context& ctx) {
  if (exec.device_memory_budget() > 0) return exec.device_memory_budget();
  size_t free_bytes = 0, total_bytes = 0;
  PMX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Margin: cuBLAS workspaces, the CUDA context's own allocations, other users of the device.
  const int64_t margin = std::max<int64_t>(int64_t{512} << 20, static_cast<int64_t>(total_bytes / 32));
  return std::max<int64_t>(0, static_cast<int64_t>(free_bytes) + ctx.held_bytes() - margin);
}

}  // namespace detail
}  // namespace pmx
