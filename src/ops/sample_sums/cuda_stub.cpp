// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/sample_sums/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

namespace {
[[noreturn]] void no_cuda() {
  throw unsupported_error("sample_sums: the CUDA backend is not compiled in (use --device cpu)");
}
}  // namespace

void sample_sums_add(const executor&, const variant_major_view&, std::span<const code_table>,
                     std::span<const code_table>, const sample_sums_outputs&) {
  no_cuda();
}
device_sums* open_device_sums(const executor&, int64_t, const sample_sums_outputs&, executor&) { no_cuda(); }
void add_device_sums(device_sums*, const executor&, const executor&, const variant_major_view&,
                     std::span<const code_table>, std::span<const code_table>, const sample_sums_outputs&, bool,
                     const std::function<void()>&) {
  no_cuda();
}
void flush_device_sums(device_sums*, const executor&, const sample_sums_outputs&) { no_cuda(); }
void flush_device_sums_to_owners(device_sums*, const executor&, const sample_sums_outputs&, const int64_t*, bool,
                                 bool) {
  no_cuda();
}
void close_device_sums(device_sums*) noexcept {}
int64_t integer_route_variants(const device_sums*) { return 0; }
void gaussian_kernel_from_device_sums(device_sums*, const executor&, double, const double*, int64_t, double*, int64_t) {
  no_cuda();
}

}  // namespace pmx::kernels::cuda
