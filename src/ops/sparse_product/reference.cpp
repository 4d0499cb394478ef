// Sparse products by plain loops: Y[r][c] = Σ_k S[r][col k] X[col k][c], each row summed in
// storage order. The oracle.
#include "ops/sparse_product/kernels.hpp"

namespace pmx::kernels::reference {

void sparse_multiply(const sparse_operand& s, int64_t t, const double* X, double* Y) {
  const csr_view& m = s.matrix();
  for (int64_t r = 0; r < m.n; ++r)
    for (int64_t c = 0; c < t; ++c) {
      double acc = 0.0;
      for (int64_t k = m.row_start[r]; k < m.row_start[r + 1]; ++k) {
        const int64_t j = m.col32 ? m.col32[k] : m.col64[k];
        acc += m.value[k] * X[j * t + c];
      }
      Y[r * t + c] = acc;
    }
}

}  // namespace pmx::kernels::reference
