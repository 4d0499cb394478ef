// Record products on the host: the operand's chunks of records (animal boundaries) over OpenMP
// threads, each with its own y_β accumulator, added in chunk order; a trait a record does not have
// is skipped (its R⁻¹ row and column are zero).
#include <omp.h>

#include <algorithm>

#include "ops/record_products/kernels.hpp"

namespace pmx::kernels::cpu {

void record_multiply(const record_operand& op, const double* beta, const double* a, double* y_beta, double* y_a) {
  const auto& v = op.design();
  const int t = v.t;
  const int64_t p = v.fixed;
  const auto& chunk_start = op.chunk_start();
  const int64_t chunks = static_cast<int64_t>(chunk_start.size()) - 1;
  std::vector<double>& partial = op.accumulators();
  partial.resize(static_cast<size_t>(chunks * p));
  std::fill(y_a, y_a + v.animals * t, 0.0);
  const int threads = op.exec().threads() > 0 ? op.exec().threads() : omp_get_max_threads();
  // One thread for small record sets (a parallel region can cost a time slice on shared cores);
  // the chunks, and so the sums, are the same either way.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (v.records * t >= 32768)
  for (int64_t c = 0; c < chunks; ++c) {
    double* yb = partial.data() + c * p;
    std::fill(yb, yb + p, 0.0);
    double e[32], q[32];
    for (int64_t r = chunk_start[c]; r < chunk_start[c + 1]; ++r) {
      const int64_t an = v.animal[r];
      const int64_t* slot = v.slot_start + r * t;
      for (int k = 0; k < t; ++k) {
        if (slot[k] == slot[k + 1]) continue;  // an unobserved trait (an observed one has its intercept)
        double s = a[an * t + k];
        for (int64_t j = slot[k]; j < slot[k + 1]; ++j) s += v.value[j] * beta[v.column[j]];
        e[k] = s;
      }
      const double* R = v.rinv + int64_t{v.block[r]} * t * t;
      for (int k = 0; k < t; ++k) {
        if (slot[k] == slot[k + 1]) continue;
        double s = 0;
        for (int l = 0; l < t; ++l)
          if (slot[l] != slot[l + 1]) s += R[k * t + l] * e[l];
        q[k] = s;
        y_a[an * t + k] += s;
        for (int64_t j = slot[k]; j < slot[k + 1]; ++j) yb[v.column[j]] += v.value[j] * q[k];
      }
    }
  }
  std::fill(y_beta, y_beta + p, 0.0);
  for (int64_t c = 0; c < chunks; ++c)
    for (int64_t j = 0; j < p; ++j) y_beta[j] += partial[c * p + j];
}

}  // namespace pmx::kernels::cpu
