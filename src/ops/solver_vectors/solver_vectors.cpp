// Solver vectors: validation and dispatch (cpu.cpp serves reference executors too, on their one
// thread: these loops are already the plain ones; cuda.cu).
#include "panoramix/ops/solver_vectors.hpp"

#include "ops/solver_vectors/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

#define PMX_SOLVER_VECTORS_DISPATCH(call)                          \
  do {                                                             \
    if (exec.kind() == backend::cuda) return kernels::cuda::call;  \
    return kernels::cpu::call;                                     \
  } while (0)

double dot(const executor& exec, int64_t n, const double* a, const double* b) {
  PMX_EXPECTS(n >= 0, "n >= 0");
  if (n == 0) return 0.0;
  PMX_SOLVER_VECTORS_DISPATCH(dot(exec, n, a, b));
}

void axpby(const executor& exec, int64_t rows, int64_t t, double a, const double* x, int64_t ldx, double b, double* y,
           int64_t ldy) {
  PMX_EXPECTS(rows >= 0 && t >= 0 && ldx >= t && ldy >= t, "rows, t >= 0 and row strides of at least t");
  if (rows == 0 || t == 0) return;
  PMX_SOLVER_VECTORS_DISPATCH(axpby(exec, rows, t, a, x, ldx, b, y, ldy));
}

void pcg_update(const executor& exec, int64_t n, double alpha, const double* p, const double* q, double* x,
                double* r) {
  PMX_EXPECTS(n >= 0, "n >= 0");
  if (n == 0) return;
  PMX_SOLVER_VECTORS_DISPATCH(pcg_update(exec, n, alpha, p, q, x, r));
}

void block_multiply(const executor& exec, int64_t rows, int64_t t, const double* blocks, int64_t block_stride,
                    const double* x, double* y) {
  PMX_EXPECTS(rows >= 0 && t >= 0 && block_stride >= 0, "rows, t, block stride >= 0");
  if (rows == 0 || t == 0) return;
  PMX_SOLVER_VECTORS_DISPATCH(block_multiply(exec, rows, t, blocks, block_stride, x, y));
}

void gather_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, const double* x, int64_t ldx,
                 double* y, int64_t ldy) {
  PMX_EXPECTS(k >= 0 && t >= 0 && ldx >= t && ldy >= t, "k, t >= 0 and row strides of at least t");
  if (k == 0 || t == 0) return;
  PMX_SOLVER_VECTORS_DISPATCH(gather_rows(exec, k, t, index, x, ldx, y, ldy));
}

void scatter_add_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, double a, const double* x,
                      int64_t ldx, double* y, int64_t ldy) {
  PMX_EXPECTS(k >= 0 && t >= 0 && ldx >= t && ldy >= t, "k, t >= 0 and row strides of at least t");
  if (k == 0 || t == 0) return;
  PMX_SOLVER_VECTORS_DISPATCH(scatter_add_rows(exec, k, t, index, a, x, ldx, y, ldy));
}

#undef PMX_SOLVER_VECTORS_DISPATCH

}  // namespace pmx
