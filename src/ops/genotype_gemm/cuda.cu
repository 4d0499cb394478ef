// CUDA genotype × dense products: placeholder until the device kernels land (issue #5).
#include "ops/genotype_gemm/cuda_detail.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda_detail {

resident_genotypes* upload_genotypes(const executor&, const variant_major_view&) { return nullptr; }
void release_genotypes(resident_genotypes*) noexcept {}
void genotype_gemm(const executor&, const resident_genotypes*, const variant_major_view&, bool, const double*,
                   const double*, int64_t, const double*, int64_t, double, double*, int64_t) {
  throw unsupported_error("gemm: no CUDA kernel yet (use --device cpu)");
}

}  // namespace pmx::kernels::cuda_detail
