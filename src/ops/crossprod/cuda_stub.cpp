// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/crossprod/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

void crossprod(const executor&, const packed_rows_view&, const packed_rows_view&, const crossprod_outputs&) {
  throw unsupported_error("crossprod: the CUDA backend is not compiled in (use --device cpu)");
}

void crossprod_symmetric(const executor&, const packed_rows_view&, const crossprod_outputs&) {
  throw unsupported_error("crossprod: the CUDA backend is not compiled in (use --device cpu)");
}

missing_sums_fn missing_sums_kernel(const executor&) {
  throw unsupported_error("crossprod: the CUDA backend is not compiled in (use --device cpu)");
}

}  // namespace pmx::kernels::cuda
