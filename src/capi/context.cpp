#include "capi/context.hpp"

#include <new>

#include "capi/status.hpp"

namespace pmx::capi {

int device_code(backend kind) {
  switch (kind) {
    case backend::cpu: return PMX_DEVICE_CPU;
    case backend::cuda: return PMX_DEVICE_CUDA;
    case backend::reference: return PMX_DEVICE_REFERENCE;
  }
  return PMX_DEVICE_CPU;
}

}  // namespace pmx::capi

using namespace pmx::capi;

pmx::executor pmx_context::make_executor() const {
  std::lock_guard lock(mutex);
  pmx::executor exec(device, threads, tuning);
  exec.set_device_memory_budget(device_memory);
  return exec;
}

extern "C" {

int pmx_context_create(pmx_context** out) {
  if (!out) return PMX_E_NULL_ARGUMENT;
  *out = nullptr;
  try {
    *out = new pmx_context();
  } catch (...) {
    return PMX_E_NO_MEMORY;
  }
  return PMX_OK;
}

void pmx_context_destroy(pmx_context* ctx) { delete ctx; }

const char* pmx_context_last_error(pmx_context* ctx) { return ctx ? ctx->messages.get() : ""; }

int pmx_context_set_device(pmx_context* ctx, int device) {
  if (!ctx) return PMX_E_NULL_ARGUMENT;
  return guarded(ctx->messages, "pmx_context_set_device", [&] {
    pmx::backend kind;
    switch (device) {
      case PMX_DEVICE_AUTO: kind = pmx::cuda_available() ? pmx::backend::cuda : pmx::backend::cpu; break;
      case PMX_DEVICE_CPU: kind = pmx::backend::cpu; break;
      case PMX_DEVICE_REFERENCE: kind = pmx::backend::reference; break;
      case PMX_DEVICE_CUDA:
        require(pmx::cuda_compiled_in(), PMX_E_UNSUPPORTED,
                "device PMX_DEVICE_CUDA: this build of panoramix has no CUDA backend");
        require(pmx::cuda_available(), PMX_E_UNSUPPORTED,
                "device PMX_DEVICE_CUDA: no CUDA device is visible on this machine");
        kind = pmx::backend::cuda;
        break;
      default:
        fail(PMX_E_INVALID_ARGUMENT, "device " + std::to_string(device) +
                                         " is not a pmx_device value (0 auto, 1 cpu, 2 cuda, 3 reference)");
    }
    std::lock_guard lock(ctx->mutex);
    ctx->device = kind;
  });
}

int pmx_context_get_device(pmx_context* ctx, int* device) {
  if (!ctx) return PMX_E_NULL_ARGUMENT;
  return guarded(ctx->messages, "pmx_context_get_device", [&] {
    require(device != nullptr, PMX_E_NULL_ARGUMENT, "device (output) is NULL");
    std::lock_guard lock(ctx->mutex);
    *device = device_code(ctx->device);
  });
}

int pmx_context_set_threads(pmx_context* ctx, int threads) {
  if (!ctx) return PMX_E_NULL_ARGUMENT;
  return guarded(ctx->messages, "pmx_context_set_threads", [&] {
    std::lock_guard lock(ctx->mutex);
    ctx->threads = threads;
  });
}

int pmx_context_get_threads(pmx_context* ctx, int* threads) {
  if (!ctx) return PMX_E_NULL_ARGUMENT;
  return guarded(ctx->messages, "pmx_context_get_threads", [&] {
    require(threads != nullptr, PMX_E_NULL_ARGUMENT, "threads (output) is NULL");
    // <= 0 resolved as executors resolve it.
    *threads = pmx::executor(pmx::backend::cpu, [&] {
                 std::lock_guard lock(ctx->mutex);
                 return ctx->threads;
               }()).threads();
  });
}

int pmx_context_set_device_memory(pmx_context* ctx, int64_t bytes) {
  if (!ctx) return PMX_E_NULL_ARGUMENT;
  return guarded(ctx->messages, "pmx_context_set_device_memory", [&] {
    require(bytes >= 0, PMX_E_INVALID_ARGUMENT,
            "bytes is " + std::to_string(bytes) + "; must be >= 0 (0 = automatic)");
    std::lock_guard lock(ctx->mutex);
    ctx->device_memory = bytes;
  });
}

}  // extern "C"
