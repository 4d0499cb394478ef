// Plain loops over decoded dosages: the oracle.
#include <vector>

#include "ops/crossprod/kernels.hpp"

namespace pmx::kernels::reference {

void crossprod_samples(const executor&, const sample_major_view& g, const crossprod_outputs& out) {
  const int64_t n = g.n_samples, k = g.n_variants;
  std::vector<int> x(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t l = 0; l < k; ++l) x[i * k + l] = dosage_of_code(g.code(i, l));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      int64_t s = 0, c = 0;
      for (int64_t l = 0; l < k; ++l) {
        const int a = x[i * k + l], b = x[j * k + l];
        if (a >= 0 && b >= 0) {
          s += a * b;
          ++c;
        }
      }
      if (out.S) out.S[i * out.ld + j] += static_cast<int32_t>(s);
      if (out.N) out.N[i * out.ld + j] += static_cast<int32_t>(c);
    }
}

}  // namespace pmx::kernels::reference
