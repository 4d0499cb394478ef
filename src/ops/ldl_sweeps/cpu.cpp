// The sweeps on the CPU: each level's rows over OpenMP threads (the implicit barrier of each
// `omp for` ends a level). Each row is written by one thread and summed in storage order: the
// result does not depend on the thread count.
#include <omp.h>

#include "ops/ldl_sweeps/kernels.hpp"

namespace pmx::kernels::cpu {

void ldl_solve_permuted(const ldl_sweeps& sw, int64_t t, double* W) {
  const ldl_schedule& s = sw.schedule();
  const int nt = sw.exec().threads() > 0 ? sw.exec().threads() : omp_get_max_threads();
  const int64_t nf = s.levels(), nb = s.backward_levels();
#pragma omp parallel num_threads(nt) if (s.n * t > 20000)
  {
    // y_i = b_i − Σ_{j<i} L_ij y_j, level by level.
    for (int64_t l = 0; l < nf; ++l) {
#pragma omp for schedule(static)
      for (int64_t i = s.forward_level[l]; i < s.forward_level[l + 1]; ++i) {
        double* wi = W + i * t;
        for (int64_t e = s.row_start[i]; e < s.row_start[i + 1]; ++e) {
          const double a = s.row_val[e];
          const double* wj = W + s.row_col[e] * t;
          for (int64_t c = 0; c < t; ++c) wi[c] -= a * wj[c];
        }
      }
    }
    // w_j = y_j / D_j − Σ_{i>j} L_ij w_i.
    for (int64_t l = 0; l < nb; ++l) {
#pragma omp for schedule(static)
      for (int64_t b = s.backward_level[l]; b < s.backward_level[l + 1]; ++b) {
        const int64_t j = s.backward_col[b];
        double* wj = W + j * t;
        for (int64_t c = 0; c < t; ++c) wj[c] /= s.d[j];
        for (int64_t e = s.col_start[b]; e < s.col_start[b + 1]; ++e) {
          const double a = s.col_val[e];
          const double* wi = W + s.col_row[e] * t;
          for (int64_t c = 0; c < t; ++c) wj[c] -= a * wi[c];
        }
      }
    }
  }
}

}  // namespace pmx::kernels::cpu
