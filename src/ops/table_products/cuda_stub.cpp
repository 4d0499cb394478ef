// Stand-in for cuda.cu when the CUDA backend is not compiled in (no cuda executor can exist then).
#include "ops/table_products/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

namespace {
[[noreturn]] void not_built() {
  throw unsupported_error("table products: the CUDA backend is not compiled in (use --device cpu)");
}
}  // namespace

void table_crossprod(const executor&, const variant_major_view&, std::span<const code_table>, double*, int64_t) {
  not_built();
}
void table_rowsums(const executor&, const variant_major_view&, std::span<const code_table>, std::span<double>) {
  not_built();
}
void missing_crossprod(const executor&, const variant_major_view&, std::span<const code_table>,
                       std::span<const double>, double*, double*, int64_t) {
  not_built();
}

}  // namespace pmx::kernels::cuda
