// Plain loops: the oracle.
#include "ops/allele_counts/kernels.hpp"

namespace pmx::kernels::reference {

void allele_counts(const executor&, const variant_major_view& g, std::span<const uint8_t> include,
                   std::span<variant_counts> out) {
  for (int64_t j = 0; j < g.n_variants; ++j) {
    variant_counts c;
    for (int64_t i = 0; i < g.n_samples; ++i) {
      if (!include.empty() && !include[i]) continue;
      switch (g.code(i, j)) {
        case code_hom_a1: ++c.hom_a1; break;
        case code_het: ++c.het; break;
        case code_hom_a2: ++c.hom_a2; break;
        default: ++c.missing;
      }
    }
    out[j] = c;
  }
}

}  // namespace pmx::kernels::reference
