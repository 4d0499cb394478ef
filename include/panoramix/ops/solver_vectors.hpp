// Op: the vector algebra of iterative solvers on vectors in an executor's memory — device memory
// on cuda, so that PCG's vectors stay on the GPU between its products — plus the row gathers,
// scatters and per-row small blocks that the single-step equations apply between products.
//
//   dot: Σ a_i b_i over fixed chunks of 4,096 values, the chunk sums added in chunk order, so the
//     result does not depend on the thread count (cpu: chunks over OpenMP threads; reference: one
//     after the other, the same bits as cpu). cuda: one block per chunk with a fixed tree inside it,
//     the chunk sums added in order by one thread: the same bits on every run, not the cpu's.
//   the others: elementwise, each output one expression of its inputs (rows of t values with their
//     own strides); the block products sum over the block's columns in order.
// On cuda every pointer must be device memory (executor_array), and each call returns when its
// work is done. Inputs and outputs must not overlap except where said.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"

namespace pmx {

/// Σ_{i<n} a_i b_i.
double dot(const executor& exec, int64_t n, const double* a, const double* b);

/// y ← a·x + b·y for `rows` rows of `t` values (row strides ldx, ldy). b = 0 sets y = a·x without
/// reading y (BLAS's convention: y may hold anything, NaN included).
void axpby(const executor& exec, int64_t rows, int64_t t, double a, const double* x, int64_t ldx, double b,
           double* y, int64_t ldy);

/// PCG's update of its iterate and residual in one pass: x ← x + α·p, r ← r − α·q (n values each).
void pcg_update(const executor& exec, int64_t n, double alpha, const double* p, const double* q, double* x,
                double* r);

/// y_i = B_i x_i for `rows` rows of t values (row-major, contiguous), B_i the t × t row-major block
/// at blocks + i·block_stride (block_stride 0: one block for every row).
void block_multiply(const executor& exec, int64_t rows, int64_t t, const double* blocks, int64_t block_stride,
                    const double* x, double* y);

/// y[i·ldy + c] = x[index[i]·ldx + c] for i < k, c < t (`index` in the executor's memory).
void gather_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, const double* x, int64_t ldx,
                 double* y, int64_t ldy);

/// y[index[i]·ldy + c] += a·x[i·ldx + c] for i < k, c < t; `index` must not repeat a row.
void scatter_add_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, double a, const double* x,
                      int64_t ldx, double* y, int64_t ldy);

}  // namespace pmx
