#include "panoramix/ops/crossprod.hpp"

#include "ops/crossprod/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {
void check(const packed_rows_view& A, const crossprod_outputs& out, int64_t b_rows) {
  PMX_EXPECTS(out.S || out.N || out.U || out.V || out.Ut || out.Vt, "nothing to compute");
  PMX_EXPECTS(out.ld >= b_rows, "leading dimension smaller than the row count of B");
  PMX_EXPECTS(A.n_cols <= (int64_t{1} << 29), "too many columns for int32 sums in one call; stream blocks");
}
}  // namespace

void crossprod(const executor& exec, const packed_rows_view& A, const packed_rows_view& B,
               const crossprod_outputs& out) {
  PMX_EXPECTS(A.n_cols == B.n_cols, "A and B must have the same columns");
  check(A, out, B.n_rows);
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::crossprod(exec, A, B, out);
    case backend::cpu: return kernels::cpu::crossprod(exec, A, B, out);
    case backend::cuda: return kernels::cuda::crossprod(exec, A, B, out);
  }
}

void crossprod_symmetric(const executor& exec, const packed_rows_view& A, const crossprod_outputs& out) {
  check(A, out, A.n_rows);
  PMX_EXPECTS(!out.Ut && !out.Vt, "symmetric: U and V already hold both directions");
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::crossprod_symmetric(exec, A, out);
    case backend::cpu: return kernels::cpu::crossprod_symmetric(exec, A, out);
    case backend::cuda: return kernels::cuda::crossprod_symmetric(exec, A, out);
  }
}

missing_sums_fn missing_sums_kernel(const executor& exec) {
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::missing_sums_kernel(exec);
    case backend::cpu: return kernels::cpu::missing_sums_kernel(exec);
    case backend::cuda: return kernels::cuda::missing_sums_kernel(exec);
  }
  return nullptr;
}

}  // namespace pmx
