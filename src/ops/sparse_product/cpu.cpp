// Sparse products on the host: rows in parallel (OpenMP), each row summed in storage order, so the
// result does not depend on the thread count.
#include "ops/sparse_product/kernels.hpp"

namespace pmx::kernels::cpu {
namespace {

// Y = S X over the CSR rows; Index: the stored column type.
template <class Index>
void multiply_rows(int64_t n, const int64_t* rs, const Index* cl, const double* v, int64_t t, const double* X,
                   double* Y, int nt) {
  if (t == 1) {
#pragma omp parallel for num_threads(nt) schedule(static, 4096) if (n > 20000)
    for (int64_t r = 0; r < n; ++r) {
      double acc = 0.0;
      for (int64_t k = rs[r]; k < rs[r + 1]; ++k) acc += v[k] * X[cl[k]];
      Y[r] = acc;
    }
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static, 1024) if (n * t > 20000)
  for (int64_t r = 0; r < n; ++r) {
    double* y = Y + r * t;
    for (int64_t c = 0; c < t; ++c) y[c] = 0.0;
    for (int64_t k = rs[r]; k < rs[r + 1]; ++k) {
      const double a = v[k];
      const double* x = X + static_cast<int64_t>(cl[k]) * t;
      for (int64_t c = 0; c < t; ++c) y[c] += a * x[c];
    }
  }
}

}  // namespace

void sparse_multiply(const sparse_operand& s, int64_t t, const double* X, double* Y) {
  const csr_view& m = s.matrix();
  const int nt = s.exec().threads();
  if (m.col32)
    multiply_rows(m.n, m.row_start, m.col32, m.value, t, X, Y, nt);
  else
    multiply_rows(m.n, m.row_start, m.col64, m.value, t, X, Y, nt);
}

}  // namespace pmx::kernels::cpu
