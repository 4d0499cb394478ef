// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/sparse_product/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
sparse_operand::device_copy* upload_sparse(const executor&, const csr_view&) {
  throw unsupported_error("sparse product: the CUDA backend is not compiled in (use --device cpu)");
}
void release_sparse(sparse_operand::device_copy*) noexcept {}
void sparse_multiply(const sparse_operand&, int64_t, const double*, double*) {
  throw unsupported_error("sparse product: the CUDA backend is not compiled in (use --device cpu)");
}
}  // namespace pmx::kernels::cuda
