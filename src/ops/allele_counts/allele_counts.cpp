#include "panoramix/ops/allele_counts.hpp"

#include "ops/allele_counts/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

void allele_counts(const executor& exec, const variant_major_view& g,
                   std::span<const uint8_t> include, std::span<variant_counts> out) {
  PMX_EXPECTS(include.empty() || static_cast<int64_t>(include.size()) == g.n_samples,
              "include mask must have one entry per sample");
  PMX_EXPECTS(static_cast<int64_t>(out.size()) == g.n_variants, "one output per variant");
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::allele_counts(exec, g, include, out);
    case backend::cpu: return kernels::cpu::allele_counts(exec, g, include, out);
    case backend::cuda: return kernels::cuda::allele_counts(exec, g, include, out);
  }
}

}  // namespace pmx
