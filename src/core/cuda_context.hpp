// CUDA resources of an executor and the checked-call plumbing of the CUDA backend. Internal:
// included by .cu files only (it needs the CUDA headers; public headers never do).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx::detail {

[[noreturn]] void throw_cuda_error(const char* expr, const char* file, int line, const char* what);
inline void cuda_check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda_error(expr, file, line, cudaGetErrorString(e));
}
void cublas_check(cublasStatus_t s, const char* expr, const char* file, int line);

/// True for device or managed memory; host memory (pageable or pinned) gives false. Ops that take
/// host or device pointers decide per pointer with this.
inline bool is_device_pointer(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of an unregistered host pointer
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

}  // namespace pmx::detail

/// Every CUDA runtime / cuBLAS call goes through these: a failure throws pmx::error naming the
/// source file, line, the call and CUDA's error string.
#define PMX_CUDA_CHECK(expr) ::pmx::detail::cuda_check((expr), #expr, __FILE__, __LINE__)
#define PMX_CUBLAS_CHECK(expr) ::pmx::detail::cublas_check((expr), #expr, __FILE__, __LINE__)
/// After a kernel launch: launch-configuration errors surface here.
#define PMX_CUDA_CHECK_LAUNCH() PMX_CUDA_CHECK(cudaGetLastError())

namespace pmx::detail {

/// A device allocation that is reused across calls and only replaced when too small.
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { release(); }
  void* get() const { return ptr_; }
  size_t capacity() const { return bytes_; }
  void reserve(size_t bytes);  ///< contents are lost when it reallocates
  void release();

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// The CUDA resources behind an executor (shared by its copies). Nothing touches the device until
/// an op starts it; ops hold `mutex` (through cuda_scope) for their duration.
struct cuda_context {
  static constexpr int n_scratch = 16;
  static constexpr size_t default_staging_bytes = size_t{64} << 20;

  std::mutex mutex;
  bool started = false;
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  // cuSOLVER (dense, with its 64-bit API parameters) and cuSPARSE handles on `stream`: made by
  // start_solver() / start_sparse() on first use (each costs milliseconds), kept for the context.
  cusolverDnHandle_t solver = nullptr;
  cusolverDnParams_t solver_params = nullptr;
  cusparseHandle_t sparse = nullptr;
  // Two pinned host staging buffers; staged[i] is recorded after the last device use of buffer i.
  void* pinned[2] = {nullptr, nullptr};
  size_t pinned_bytes = 0;
  cudaEvent_t staged[2] = {nullptr, nullptr};
  device_buffer scratch[n_scratch];
  // Device collectives (device_collectives.cu): the NCCL communicator of the executor's ranks (an
  // ncclComm_t, destroyed by its deleter), made on first use, and the buffer the ranks'
  // contributions are gathered into.
  std::shared_ptr<void> nccl;
  device_buffer gathered;

  cuda_context() = default;
  cuda_context(const cuda_context&) = delete;
  cuda_context& operator=(const cuda_context&) = delete;
  ~cuda_context();

  void start();
  void start_solver();
  void start_sparse();
  int64_t held_bytes() const;
  /// Pinned staging buffers of at least `bytes` each.
  void ensure_pinned(size_t bytes);
  /// Scratch slot i (i < bytes.size()) holds >= bytes[i]. If keeping the current allocations would
  /// exceed `budget`, every slot is released first and only what is asked is allocated.
  void reserve_scratch(const std::vector<size_t>& bytes, int64_t budget);
  void* slot(int i) const { return scratch[i].get(); }
};

/// Scoped use of an executor's CUDA resources: locks them (one op at a time per executor and its
/// copies), starts them on first use and makes their device current on this thread.
class cuda_scope {
 public:
  explicit cuda_scope(const executor& exec);
  cuda_context& ctx;

 private:
  std::unique_lock<std::mutex> lock_;
};

/// Device bytes an op of `exec` may hold: exec.device_memory_budget() when set, else the free
/// device memory (plus what this context already holds) minus a margin.
int64_t device_budget(const executor& exec, const cuda_context& ctx);

/// Host -> device in pieces through the two pinned staging buffers. For each piece of at most
/// `piece_items` items (item_bytes each): fill(pinned, first, count) writes the items on the host,
/// the piece is copied to dst(first, piece_index), then consume(device_ptr, first, count) may
/// enqueue device work on the stream that reads it. Filling piece p+1 on the host overlaps the
/// copy and the work of piece p. Destinations used as a ring of two must alternate with p & 1.
/// The copies go on `stream` (default: c.stream), e.g. a copy stream that runs beside c.stream.
template <class Dst, class Fill, class Consume>
void stream_to_device(cuda_context& c, int64_t items, int64_t piece_items, size_t item_bytes, Dst dst,
                      Fill fill, Consume consume, cudaStream_t stream = nullptr) {
  if (!stream) stream = c.stream;
  c.ensure_pinned(static_cast<size_t>(piece_items) * item_bytes);
  int64_t p = 0;
  for (int64_t first = 0; first < items; first += piece_items, ++p) {
    const int s = static_cast<int>(p & 1);
    const int64_t count = std::min(piece_items, items - first);
    PMX_CUDA_CHECK(cudaEventSynchronize(c.staged[s]));  // buffer s (and ring slot s) free again
    fill(c.pinned[s], first, count);
    void* d = dst(first, p);
    PMX_CUDA_CHECK(cudaMemcpyAsync(d, c.pinned[s], static_cast<size_t>(count) * item_bytes,
                                   cudaMemcpyHostToDevice, stream));
    consume(static_cast<const void*>(d), first, count);
    PMX_CUDA_CHECK(cudaEventRecord(c.staged[s], stream));
  }
}

/// Device -> host in pieces through the pinned staging buffers: row i of `rows` rows lies at
/// src + i * src_pitch (bytes); width(first, count) says how many bytes of each row of the piece
/// [first, first + count) are wanted (at most row_bytes; e.g. only a lower triangle's prefix).
/// consume(pinned, first, count, bytes_per_row) runs on the host (e.g. adds the rows into the
/// caller's output) while the next piece is being copied.
template <class Width, class Consume>
void stream_rows_to_host(cuda_context& c, const void* src, size_t src_pitch, size_t row_bytes, int64_t rows,
                         Width width, Consume consume) {
  if (rows <= 0 || row_bytes == 0) return;
  c.ensure_pinned(row_bytes);
  const int64_t piece = std::max<int64_t>(1, static_cast<int64_t>(c.pinned_bytes / row_bytes));
  const int64_t n_pieces = (rows + piece - 1) / piece;
  auto bytes_of = [&](int64_t p) {
    const int64_t first = p * piece;
    return std::min(row_bytes, static_cast<size_t>(width(first, std::min(piece, rows - first))));
  };
  auto issue = [&](int64_t p) {
    const int s = static_cast<int>(p & 1);
    const int64_t first = p * piece, count = std::min(piece, rows - first);
    const size_t w = bytes_of(p);
    if (w > 0)
      PMX_CUDA_CHECK(cudaMemcpy2DAsync(c.pinned[s], w, static_cast<const char*>(src) + first * src_pitch, src_pitch, w,
                                       static_cast<size_t>(count), cudaMemcpyDeviceToHost, c.stream));
    PMX_CUDA_CHECK(cudaEventRecord(c.staged[s], c.stream));
  };
  issue(0);
  for (int64_t p = 0; p < n_pieces; ++p) {
    if (p + 1 < n_pieces) issue(p + 1);  // buffer (p+1)&1 was consumed in the previous iteration
    const int s = static_cast<int>(p & 1);
    PMX_CUDA_CHECK(cudaEventSynchronize(c.staged[s]));
    const int64_t first = p * piece;
    consume(static_cast<const void*>(c.pinned[s]), first, std::min(piece, rows - first), bytes_of(p));
  }
}

}  // namespace pmx::detail
