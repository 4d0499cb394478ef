// lmm_search on the reference backend: the host search on one thread (its oracle is GEMMA itself,
// tests/stats/association/test_lmm_gemma.cpp).
#include "ops/lmm_search/kernels.hpp"

namespace pmx::kernels::reference {
void lmm_fit_variants(const lmm_search_operand& model, int64_t count, const double* Xt, int64_t ldx,
                      const uint8_t* test, double fixed_lambda, lmm_variant_fit* out) {
  host_fit_variants(model, count, Xt, ldx, test, fixed_lambda, out, 1);
}
}  // namespace pmx::kernels::reference
