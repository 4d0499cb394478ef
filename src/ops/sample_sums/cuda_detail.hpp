// Device-resident sums of the sample_sums op (cuda.cu; cuda_stub.cpp without CUDA). Plain
// pointers: cuda.cu is compiled as C++17, without std::span.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx::kernels::sample_sums_cuda {

struct device_sums;

/// Device accumulators for n samples (S, N: int32 n×n; a: double n) and the working buffers of
/// add(), all within `budget_bytes`; null when they do not fit (the caller adds on the host).
device_sums* create(const executor& exec, int64_t n, bool want_S, bool want_N, bool want_a, int64_t budget_bytes);
/// The device budget of `exec` (its setting, PMX_CUDA_MEMORY_MB, or free memory minus a margin).
int64_t device_budget(const executor& exec);
/// Bytes held by `d`.
int64_t held_bytes(const device_sums* d);
/// Adds the variants of `block`: S always (when wanted), N when `has_missing`, a through
/// a_tables (4 doubles per variant) when wanted. Asynchronous: returns once the block has been
/// copied out of host memory.
void add(device_sums* d, const executor& exec, const variant_major_view& block, const double* a_tables,
         bool has_missing);
/// Adds the device sums into the host outputs (S, N lower triangles; leading dimension ld) and
/// zeroes them on the device.
void flush(device_sums* d, const executor& exec, int32_t* S, int32_t* N, int64_t ld, double* a);
void destroy(device_sums* d) noexcept;

}  // namespace pmx::kernels::sample_sums_cuda
