// Record products by plain loops: one pass over the records, every sum in record order.
#include <algorithm>

#include "ops/record_products/kernels.hpp"

namespace pmx::kernels::reference {

void record_multiply(const record_operand& op, const double* beta, const double* a, double* y_beta, double* y_a) {
  const auto& v = op.design();
  const int t = v.t;
  std::fill(y_beta, y_beta + v.fixed, 0.0);
  std::fill(y_a, y_a + v.animals * t, 0.0);
  double e[32], q[32];
  for (int64_t r = 0; r < v.records; ++r) {
    const int64_t an = v.animal[r];
    for (int k = 0; k < t; ++k) {
      double s = a[an * t + k];
      for (int64_t j = v.slot_start[r * t + k]; j < v.slot_start[r * t + k + 1]; ++j) s += v.value[j] * beta[v.column[j]];
      e[k] = s;
    }
    const double* R = v.rinv + int64_t{v.block[r]} * t * t;
    for (int k = 0; k < t; ++k) {
      double s = 0;
      for (int l = 0; l < t; ++l) s += R[k * t + l] * e[l];
      q[k] = s;
    }
    for (int k = 0; k < t; ++k) {
      y_a[an * t + k] += q[k];
      for (int64_t j = v.slot_start[r * t + k]; j < v.slot_start[r * t + k + 1]; ++j) y_beta[v.column[j]] += v.value[j] * q[k];
    }
  }
}

}  // namespace pmx::kernels::reference
