#include "panoramix/ops/crossprod.hpp"

#include "ops/crossprod/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

void crossprod_samples(const executor& exec, const sample_major_view& g, const crossprod_outputs& out) {
  PMX_EXPECTS(out.S || out.N, "nothing to compute");
  PMX_EXPECTS(out.ld >= g.n_samples, "leading dimension smaller than the sample count");
  PMX_EXPECTS(g.n_variants <= (int64_t{1} << 28), "block too long for int32 accumulation; stream it");
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::crossprod_samples(exec, g, out);
    case backend::cpu: return kernels::cpu::crossprod_samples(exec, g, out);
    case backend::cuda: throw unsupported_error("crossprod: no CUDA kernel yet (use --device cpu)");
  }
}

}  // namespace pmx
