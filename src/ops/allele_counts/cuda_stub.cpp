// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/allele_counts/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

void allele_counts(const executor&, const variant_major_view&, std::span<const uint8_t>, std::span<variant_counts>) {
  throw unsupported_error("allele_counts: the CUDA backend is not compiled in (use --device cpu)");
}

}  // namespace pmx::kernels::cuda
