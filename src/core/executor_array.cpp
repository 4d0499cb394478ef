// executor_array's memory: host memory (operator new) unless the executor is cuda, then device
// memory through the CUDA runtime (cuda_device.cu; without CUDA compiled in, the stubs).
#include "panoramix/executor_array.hpp"

#include <cstring>
#include <new>
#include <string>

#include "panoramix/error.hpp"

namespace pmx::detail {

void* device_alloc(size_t bytes);  // cuda_device.cu / cuda_device_stub.cpp
void device_free(void* p) noexcept;
void device_copy(void* dst, const void* src, size_t bytes, bool to_host);

void* executor_alloc(const executor& exec, size_t bytes, bool& on_device) {
  on_device = exec.kind() == backend::cuda;
  if (bytes == 0) return nullptr;
  if (on_device) return device_alloc(bytes);
  void* p = ::operator new(bytes, std::nothrow);
  if (!p) throw error("cannot allocate " + std::to_string(bytes >> 20) + " MiB of host memory");
  return p;
}

void executor_free(void* p, bool on_device) noexcept {
  if (!p) return;
  if (on_device) device_free(p);
  else ::operator delete(p);
}

void executor_to_host(void* host, const void* src, size_t bytes, bool on_device) {
  if (bytes == 0) return;
  if (on_device) device_copy(host, src, bytes, true);
  else std::memcpy(host, src, bytes);
}

void executor_from_host(void* dst, const void* host, size_t bytes, bool on_device) {
  if (bytes == 0) return;
  if (on_device) device_copy(dst, host, bytes, false);
  else std::memcpy(dst, host, bytes);
}

}  // namespace pmx::detail
