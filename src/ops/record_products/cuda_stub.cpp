// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/record_products/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
record_operand::device_copy* upload_records(const executor&, const record_design_view&) {
  throw unsupported_error("record products: the CUDA backend is not compiled in (use --device cpu)");
}
void release_records(record_operand::device_copy*) noexcept {}
void record_multiply(const record_operand&, const double*, const double*, double*, double*) {
  throw unsupported_error("record products: the CUDA backend is not compiled in (use --device cpu)");
}
}  // namespace pmx::kernels::cuda
