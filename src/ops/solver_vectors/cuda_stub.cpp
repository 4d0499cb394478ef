// Stand-in for cuda.cu when the CUDA backend is not compiled in.
#include "ops/solver_vectors/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
namespace {
[[noreturn]] void refuse() { throw unsupported_error("solver vectors: the CUDA backend is not compiled in (use --device cpu)"); }
}  // namespace
double dot(const executor&, int64_t, const double*, const double*) { refuse(); }
void axpby(const executor&, int64_t, int64_t, double, const double*, int64_t, double, double*, int64_t) { refuse(); }
void pcg_update(const executor&, int64_t, double, const double*, const double*, double*, double*) { refuse(); }
void block_multiply(const executor&, int64_t, int64_t, const double*, int64_t, const double*, double*) { refuse(); }
void gather_rows(const executor&, int64_t, int64_t, const int64_t*, const double*, int64_t, double*, int64_t) { refuse(); }
void scatter_add_rows(const executor&, int64_t, int64_t, const int64_t*, double, const double*, int64_t, double*,
                      int64_t) {
  refuse();
}
}  // namespace pmx::kernels::cuda
