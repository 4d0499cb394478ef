// Stand-in for cuda.cu when the CUDA backend is not compiled in: nothing is ever device-resident.
#include "ops/sample_sums/cuda_detail.hpp"

namespace pmx::kernels::sample_sums_cuda {

device_sums* create(const executor&, int64_t, bool, bool, bool, int64_t) { return nullptr; }
int64_t device_budget(const executor&) { return 0; }
int64_t held_bytes(const device_sums*) { return 0; }
void add(device_sums*, const executor&, const variant_major_view&, const double*, bool) {}
void flush(device_sums*, const executor&, int32_t*, int32_t*, int64_t, double*) {}
void destroy(device_sums*) noexcept {}

}  // namespace pmx::kernels::sample_sums_cuda
