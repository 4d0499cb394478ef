// Executor: which backend runs an op, and the resources it owns (threads; for the CUDA backend a
// stream, a cuBLAS handle and scratch memory, created on first use).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "panoramix/communicator.hpp"
#include "panoramix/tuning.hpp"

namespace pmx {

enum class backend { reference, cpu, cuda };

namespace detail {
struct cuda_context;  // defined by the CUDA backend (src/core/cuda_context.hpp); opaque here
}

/// Resources handle passed first to every op: which backend runs it, its threads, the CUDA
/// resources and the route settings. Cheap to copy: copies share the CUDA resources.
class executor {
 public:
  /// `threads` <= 0 means all hardware threads; a reference executor always has one (its kernels
  /// are plain serial loops). A cuda executor also uses its threads for the host side of
  /// transfers (staging copies, accumulating downloaded results).
  explicit executor(backend kind = backend::cpu, int threads = 0, const pmx::tuning& settings = {});

  backend kind() const { return kind_; }
  int threads() const { return threads_; }
  /// True when the ops of this executor run on a device (their operands cross a bus).
  bool on_device() const { return kind_ == backend::cuda; }
  /// Route settings (tuning.hpp), given by the front end.
  const pmx::tuning& tuning() const { return tuning_; }

  /// The executor for work that stays on the host (small dense algebra beside device products,
  /// sparse pedigree terms): this one unless it is a cuda executor, else a cpu executor with its
  /// threads and settings. A reference executor stays reference, so its runs check every step.
  executor host() const;
  /// This executor with `threads` threads (<= 0: all); shares the CUDA resources.
  executor with_threads(int threads) const;

  /// Device memory (bytes) the CUDA ops of this executor may hold at once. 0 (the default) means
  /// tuning().cuda_memory_mb when set, else the device's free memory minus a margin. Ops that
  /// need more tile their work (rows, columns, output blocks) to fit.
  int64_t device_memory_budget() const { return device_budget_ > 0 ? device_budget_ : tuning_.cuda_memory_mb << 20; }
  executor& set_device_memory_budget(int64_t bytes) {
    device_budget_ = bytes;
    return *this;
  }

  /// CUDA resources of a cuda executor (stream, cuBLAS handle, scratch), shared by its copies,
  /// created on first use by a CUDA op. Throws unsupported_error for other kinds.
  detail::cuda_context& cuda_context() const;

  /// Starts the CUDA resources of a cuda executor now (driver, context, stream, cuBLAS handle)
  /// instead of at its first op, e.g. on a thread of its own while inputs are read; nothing for
  /// other kinds.
  void start_device() const;
  /// Waits until the device work queued on this executor's stream is done (an op that returns
  /// before its device work ends, e.g. sample_sums::add, says so); nothing for other kinds.
  void synchronize() const;

  /// The ranks this executor's ops work across (communicator.hpp): this process alone unless set.
  /// Ops on data split over ranks (e.g. a gemm_operand of the rank's own samples) combine their
  /// results over it; a cuda executor of a distributed run uses the GPU of its local rank.
  const communicator& comm() const { return *comm_; }
  executor& set_communicator(const communicator& c) {
    comm_ = &c;
    return *this;
  }

  static executor reference() { return executor(backend::reference, 1); }

 private:
  backend kind_;
  int threads_;
  pmx::tuning tuning_;
  int64_t device_budget_ = 0;
  const communicator* comm_ = &communicator::single();
  std::shared_ptr<detail::cuda_context> cuda_;
};

/// Parses "auto|cpu|cuda|reference" (the CLI's --device). "auto" picks cuda when it is compiled in
/// and a device is present, else cpu. Throws unsupported_error for "cuda" when it cannot run.
backend parse_backend(const std::string& name);
std::string backend_name(backend kind);

/// True when the CUDA backend is compiled in and at least one device is visible.
bool cuda_available();
/// CUDA devices visible to this process (0 without the backend or a driver).
int cuda_device_count();

/// True when this build contains the CUDA backend (a device may still be absent).
bool cuda_compiled_in();

}  // namespace pmx
