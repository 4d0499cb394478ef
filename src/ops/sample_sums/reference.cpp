// sample_sums by plain loops over the codes: the oracle.
#include "ops/sample_sums/kernels.hpp"

namespace pmx::kernels::reference {

void sample_sums_add(const executor&, const variant_major_view& g, std::span<const code_table> c_tables,
                     std::span<const code_table> a_tables, const sample_sums_outputs& out) {
  const int64_t n = g.n_samples;
  for (int64_t l = 0; l < g.n_variants; ++l)
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t ci = g.code(i, l);
      const int xi = dosage_of_code(ci);
      if (out.a) out.a[i] += a_tables[l][ci];
      for (int64_t j = 0; j <= i; ++j) {
        const uint8_t cj = g.code(j, l);
        const int xj = dosage_of_code(cj);
        const int64_t at = i * out.ld + j;
        if (xi >= 0 && xj >= 0) {
          if (out.S) out.S[at] += xi * xj;
          if (out.N) out.N[at] += 1;
        }
        if (out.C) out.C[at] += c_tables[l][ci] * c_tables[l][cj];
      }
    }
}

}  // namespace pmx::kernels::reference
