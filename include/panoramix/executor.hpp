// Executor: which backend runs an op, and the resources it owns (threads now; CUDA stream,
// handles and workspace when the CUDA backend grows).
#pragma once
#include <string>

namespace pmx {

enum class backend { reference, cpu, cuda };

/// Resources handle passed first to every op. Cheap to copy.
class executor {
 public:
  /// `threads` <= 0 means all hardware threads.
  explicit executor(backend kind = backend::cpu, int threads = 0);

  backend kind() const { return kind_; }
  int threads() const { return threads_; }

  static executor reference() { return executor(backend::reference, 1); }

 private:
  backend kind_;
  int threads_;
};

/// Parses "auto|cpu|cuda|reference" (the CLI's --device). "auto" picks cuda when it is compiled in
/// and a device is present, else cpu. Throws unsupported_error for "cuda" when it cannot run.
backend parse_backend(const std::string& name);
std::string backend_name(backend kind);

/// True when the CUDA backend is compiled in and at least one device is visible.
bool cuda_available();

}  // namespace pmx

namespace pmx {
/// True when this build contains the CUDA backend (a device may still be absent).
bool cuda_compiled_in();
}  // namespace pmx
