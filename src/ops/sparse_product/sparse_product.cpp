// Sparse products: validation, the cpu kernel (rows in parallel, each summed in storage order) and
// dispatch to cuda.
#include "panoramix/ops/sparse_product.hpp"

#include <omp.h>

#include "ops/sparse_product/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {
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

sparse_operand::sparse_operand(const executor& exec, const csr_view& s) : exec_(exec), s_(s) {
  PMX_EXPECTS(s.n >= 0, "negative matrix order");
  PMX_EXPECTS(s.n == 0 || s.row_start, "a CSR matrix with row offsets");
  PMX_EXPECTS(!(s.col32 && s.col64) && (s.nonzeros() == 0 || (s.value && (s.col32 || s.col64))),
              "a CSR matrix with values and one column array");
  if (exec.kind() == backend::cuda && s.n > 0) device_.reset(kernels::cuda::upload_sparse(exec, s));
}
sparse_operand::~sparse_operand() = default;
sparse_operand::sparse_operand(sparse_operand&&) noexcept = default;
sparse_operand& sparse_operand::operator=(sparse_operand&&) noexcept = default;
void sparse_operand::device_copy_deleter::operator()(device_copy* d) const { kernels::cuda::release_sparse(d); }

void sparse_multiply(const sparse_operand& s, int64_t t, const double* X, double* Y) {
  PMX_EXPECTS(t >= 0, "t >= 0");
  const csr_view& m = s.matrix();
  if (m.n == 0 || t == 0) return;
  PMX_EXPECTS(X && Y, "X and Y are not null");
  if (s.device()) return kernels::cuda::sparse_multiply(s, t, X, Y);
  const int nt = s.exec().threads();
  if (m.col32)
    multiply_rows(m.n, m.row_start, m.col32, m.value, t, X, Y, nt);
  else
    multiply_rows(m.n, m.row_start, m.col64, m.value, t, X, Y, nt);
}

}  // namespace pmx
