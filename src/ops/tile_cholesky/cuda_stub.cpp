// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/tile_cholesky/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {

std::unique_ptr<tile_cholesky::factor> tile_cholesky_factor(const executor&, int64_t, const double*, int64_t, double,
                                                            const tile_precision_map&, bool) {
  throw unsupported_error("mixed-precision Cholesky: the CUDA backend is not compiled in (use --device cpu)");
}
std::vector<double> tile_norms2(const executor&, const double*, int64_t, int64_t, int64_t, double, int, int) {
  throw unsupported_error("mixed-precision Cholesky: the CUDA backend is not compiled in (use --device cpu)");
}

}  // namespace pmx::kernels::cuda
