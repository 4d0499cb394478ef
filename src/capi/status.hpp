// The C API's boundary: every extern "C" body runs inside guarded(), which turns each exception
// into a status code and a message stored for the calling thread (nothing crosses into C).
#pragma once
#include <cstdint>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "capi/thread_messages.hpp"
#include "panoramix/error.hpp"
#include "panoramix/panoramix.h"

namespace pmx::capi {

/// A failure detected by the C API itself, with its status code.
class capi_error : public std::runtime_error {
 public:
  capi_error(int status, const std::string& message) : std::runtime_error(message), status(status) {}
  int status;
};

[[noreturn]] inline void fail(int status, const std::string& message) {
  throw capi_error(status, message);
}
/// Single checks only: the message is built before the test, so loops use if (...) fail(...).
inline void require(bool ok, int status, const std::string& message) {
  if (!ok) fail(status, message);
}

/// Status code of an exception thrown by the C++ library (or by the C API).
int status_of(const std::exception& e);

/// Runs body(); on success clears the calling thread's message, on failure stores
/// "<function>: <what went wrong>" and returns the status. Never throws.
template <class Body>
int guarded(thread_messages& messages, const char* function, Body&& body) noexcept {
  int status = PMX_OK;
  std::string message;
  try {
    body();
    messages.clear();
    return PMX_OK;
  } catch (const std::bad_alloc&) {
    status = PMX_E_NO_MEMORY;
    message = "out of memory";
  } catch (const std::exception& e) {
    status = status_of(e);
    try {
      message = e.what();
    } catch (...) {
    }
  } catch (...) {
    status = PMX_E_INTERNAL;
    message = "unknown exception";
  }
  try {
    messages.set(std::string(function) + ": " + message);
  } catch (...) {
  }
  return status;
}

}  // namespace pmx::capi
