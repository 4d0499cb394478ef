// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/table_products/cuda_detail.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda_detail {

void table_crossprod(const executor&, const variant_major_view&, const double*, double*, int64_t) {
  throw unsupported_error("table_crossprod: the CUDA backend is not compiled in (use --device cpu)");
}

}  // namespace pmx::kernels::cuda_detail
