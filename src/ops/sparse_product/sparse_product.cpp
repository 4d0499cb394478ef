// Sparse products: validation and dispatch (cpu.cpp, reference.cpp, cuda.cu).
#include "panoramix/ops/sparse_product.hpp"

#include "ops/sparse_product/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

sparse_operand::sparse_operand(const executor& exec, const csr_view& s) : exec_(exec), s_(s) {
  PMX_EXPECTS(s.n >= 0 && s.columns >= 0, "negative matrix order");
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
  if (s.matrix().n == 0 || t == 0) return;
  PMX_EXPECTS(X && Y, "X and Y are not null");
  switch (s.exec().kind()) {
    case backend::reference: return kernels::reference::sparse_multiply(s, t, X, Y);
    case backend::cpu: return kernels::cpu::sparse_multiply(s, t, X, Y);
    case backend::cuda: return kernels::cuda::sparse_multiply(s, t, X, Y);
  }
}

}  // namespace pmx
