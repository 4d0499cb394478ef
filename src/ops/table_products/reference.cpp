// Plain loops: the oracle.
#include "ops/table_products/kernels.hpp"

namespace pmx::kernels::reference {

void table_crossprod(const executor&, const variant_major_view& g, std::span<const code_table> t,
                     double* C, int64_t ld) {
  for (int64_t i = 0; i < g.n_samples; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double s = 0;
      for (int64_t l = 0; l < g.n_variants; ++l) s += t[l][g.code(i, l)] * t[l][g.code(j, l)];
      C[i * ld + j] += s;
    }
}

void table_rowsums(const executor&, const variant_major_view& g, std::span<const code_table> t,
                   std::span<double> y) {
  for (int64_t i = 0; i < g.n_samples; ++i)
    for (int64_t l = 0; l < g.n_variants; ++l) y[i] += t[l][g.code(i, l)];
}

void missing_crossprod(const executor&, const variant_major_view& g, std::span<const code_table> t,
                       std::span<const double> r, double* Y, double* R, int64_t ld) {
  for (int64_t l = 0; l < g.n_variants; ++l)
    for (int64_t j = 0; j < g.n_samples; ++j) {
      if (g.code(j, l) != code_missing) continue;
      for (int64_t i = 0; i < g.n_samples; ++i) {
        Y[j * ld + i] += t[l][g.code(i, l)];
        if (i >= j && g.code(i, l) == code_missing) R[i * ld + j] += r[l];
      }
    }
}

}  // namespace pmx::kernels::reference
