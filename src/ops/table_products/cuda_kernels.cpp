// The table-product kernels of the cuda backend (compiled in every build; without CUDA the device
// entry is cuda_stub.cpp's, which throws).
//   table_crossprod: on the GPU (cuda.cu) - O(n² k) FP64 work.
//   table_rowsums, missing_crossprod: on the host threads the executor owns, with the cpu
//     kernels: one O(n k) (resp. O(n × missing calls)) pass over host-resident codes costs about
//     what uploading those codes would, so a device round trip cannot win for them here.
#include "ops/table_products/cuda_detail.hpp"
#include "ops/table_products/kernels.hpp"

namespace pmx::kernels::cuda {

void table_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> tables,
                     double* C, int64_t ld) {
  static_assert(sizeof(code_table) == 4 * sizeof(double), "code tables are 4 contiguous doubles");
  if (g.n_samples == 0 || g.n_variants == 0) return;
  cuda_detail::table_crossprod(exec, g, tables.data()->data(), C, ld);
}

void table_rowsums(const executor& exec, const variant_major_view& g, std::span<const code_table> tables,
                   std::span<double> y) {
  cpu::table_rowsums(exec, g, tables, y);
}

void missing_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> tables,
                       std::span<const double> r, double* Y, double* R, int64_t ld) {
  cpu::missing_crossprod(exec, g, tables, r, Y, R, ld);
}

}  // namespace pmx::kernels::cuda
