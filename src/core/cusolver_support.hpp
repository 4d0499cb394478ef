// cuSOLVER plumbing shared by the dense CUDA ops (included by .cu files only).
#pragma once
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <string>

#include "core/cuda_context.hpp"
#include "panoramix/error.hpp"

namespace pmx::detail {

inline void cusolver_check(cusolverStatus_t s, const char* expr, const char* file, int line) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw error(std::string("cuSOLVER call failed (status ") + std::to_string(static_cast<int>(s)) + ") at " + file +
                ":" + std::to_string(line) + ": " + expr);
}

/// Throws unsupported_error when `bytes` exceed the executor's device budget (a dense n×n operand
/// is all or nothing: it is not tiled).
inline void check_device_fits(const executor& exec, cuda_context& c, size_t bytes, const char* what) {
  const int64_t budget = device_budget(exec, c);
  if (static_cast<int64_t>(bytes) > budget)
    throw unsupported_error(std::string(what) + " needs " + std::to_string(bytes >> 20) +
                            " MiB of device memory, the budget is " + std::to_string(budget >> 20) +
                            " MiB (use --device cpu)");
}

/// The executor's cuSOLVER dense handle and 64-bit-API parameters, on its stream (owned by the
/// context, made on first use).
struct cusolver_handle {
  cusolverDnHandle_t handle = nullptr;
  cusolverDnParams_t params = nullptr;
  explicit cusolver_handle(cuda_context& c) {
    c.start_solver();
    handle = c.solver;
    params = c.solver_params;
  }
};

}  // namespace pmx::detail

#define PMX_CUSOLVER_CHECK(expr) ::pmx::detail::cusolver_check((expr), #expr, __FILE__, __LINE__)
