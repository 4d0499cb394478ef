#include "panoramix/executor.hpp"

#include <omp.h>

#include "panoramix/error.hpp"

namespace pmx {

namespace detail {
// CUDA resources holder: cuda_device.cu (nothing is started until an op asks), or the stub.
std::shared_ptr<cuda_context> make_cuda_context();
}  // namespace detail

executor::executor(backend kind, int threads, const pmx::tuning& settings)
    : kind_(kind),
      threads_(kind == backend::reference ? 1 : threads > 0 ? threads : omp_get_max_threads()),
      tuning_(settings) {
  if (kind_ == backend::cuda) {
    if (!cuda_available())
      throw unsupported_error(cuda_compiled_in()
                                  ? "--device cuda: no CUDA device is visible on this machine"
                                  : "--device cuda: this build has no CUDA backend (not built)");
    cuda_ = detail::make_cuda_context();
  }
}

executor executor::host() const {
  if (kind_ != backend::cuda) return *this;
  executor h(backend::cpu, threads_, tuning_);
  h.device_budget_ = device_budget_;
  h.comm_ = comm_;
  return h;
}

executor executor::with_threads(int threads) const {
  executor e = *this;
  if (kind_ != backend::reference) e.threads_ = threads > 0 ? threads : omp_get_max_threads();
  return e;
}

detail::cuda_context& executor::cuda_context() const {
  if (!cuda_) throw unsupported_error("executor: CUDA resources asked of a " + backend_name(kind_) + " executor");
  return *cuda_;
}

backend parse_backend(const std::string& name) {
  if (name == "cpu") return backend::cpu;
  if (name == "reference") return backend::reference;
  if (name == "cuda") return backend::cuda;
  if (name == "auto") return cuda_available() ? backend::cuda : backend::cpu;
  throw input_error("--device must be auto, cpu, cuda or reference, not '" + name + "'");
}

std::string backend_name(backend kind) {
  switch (kind) {
    case backend::reference: return "reference";
    case backend::cpu: return "cpu";
    case backend::cuda: return "cuda";
  }
  return "?";
}

}  // namespace pmx
