// pmx_context: the settings genotype handles are created with, and the messages of failed calls
// made on it (creation failures included).
#pragma once
#include <cstdint>
#include <mutex>

#include "capi/thread_messages.hpp"
#include "panoramix/executor.hpp"

struct pmx_context {
  pmx::capi::thread_messages messages;
  mutable std::mutex mutex;  // guards the settings below
  pmx::backend device = pmx::backend::cpu;
  int threads = 0;             // <= 0: all hardware threads
  int64_t device_memory = 0;   // 0: automatic (see executor::device_memory_budget)
  // The PMX_* route settings, read from the environment when the context is created (the C API
  // is a front end: the library below never reads the environment).
  pmx::tuning tuning = pmx::tuning::from_environment();

  /// An executor with the current settings (copied: handles do not refer back to the context).
  pmx::executor make_executor() const;
};

namespace pmx::capi {

/// enum pmx_device value of a backend, and back (throws capi_error for an unknown value).
int device_code(backend kind);

}  // namespace pmx::capi
