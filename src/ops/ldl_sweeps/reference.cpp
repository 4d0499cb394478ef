// The sweeps by plain loops: rows in the forward order (the rows are numbered level by level, so
// each row's dependencies come before it), then columns in the backward order. The oracle.
#include "ops/ldl_sweeps/kernels.hpp"

namespace pmx::kernels::reference {

void ldl_solve_permuted(const ldl_sweeps& sw, int64_t t, double* W) {
  const ldl_schedule& s = sw.schedule();
  // y_i = b_i − Σ_{j<i} L_ij y_j.
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t e = s.row_start[i]; e < s.row_start[i + 1]; ++e)
      for (int64_t c = 0; c < t; ++c) W[i * t + c] -= s.row_val[e] * W[s.row_col[e] * t + c];
  // w_j = y_j / D_j − Σ_{i>j} L_ij w_i.
  for (int64_t b = 0; b < s.n; ++b) {
    const int64_t j = s.backward_col[b];
    for (int64_t c = 0; c < t; ++c) W[j * t + c] /= s.d[j];
    for (int64_t e = s.col_start[b]; e < s.col_start[b + 1]; ++e)
      for (int64_t c = 0; c < t; ++c) W[j * t + c] -= s.col_val[e] * W[s.col_row[e] * t + c];
  }
}

}  // namespace pmx::kernels::reference
