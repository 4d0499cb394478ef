// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/genotype_gemm/cuda_detail.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda_detail {

resident_genotypes* upload_genotypes(const executor&, const variant_major_view&) {
  throw unsupported_error("gemm: the CUDA backend is not compiled in (use --device cpu)");
}
void release_genotypes(resident_genotypes*) noexcept {}
void genotype_gemm(const executor&, const resident_genotypes*, const variant_major_view&, bool, const double*,
                   const double*, int64_t, const double*, int64_t, double, double*, int64_t, bool) {
  throw unsupported_error("gemm: the CUDA backend is not compiled in (use --device cpu)");
}

}  // namespace pmx::kernels::cuda_detail
