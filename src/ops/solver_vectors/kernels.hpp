// Backend kernels of solver_vectors (signatures once; validated and dispatched by solver_vectors.cpp).
#pragma once
#include "panoramix/ops/solver_vectors.hpp"

namespace pmx::kernels {
#define PMX_SOLVER_VECTORS_KERNELS                                                                                \
  double dot(const executor& exec, int64_t n, const double* a, const double* b);                                  \
  void axpby(const executor& exec, int64_t rows, int64_t t, double a, const double* x, int64_t ldx, double b,     \
             double* y, int64_t ldy);                                                                             \
  void pcg_update(const executor& exec, int64_t n, double alpha, const double* p, const double* q, double* x,    \
                  double* r);                                                                                     \
  void block_multiply(const executor& exec, int64_t rows, int64_t t, const double* blocks, int64_t block_stride, \
                      const double* x, double* y);                                                                \
  void gather_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, const double* x,            \
                   int64_t ldx, double* y, int64_t ldy);                                                          \
  void scatter_add_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, double a,              \
                        const double* x, int64_t ldx, double* y, int64_t ldy)
namespace cpu { PMX_SOLVER_VECTORS_KERNELS; }   // cpu.cpp: OpenMP (reference: the same loops on one thread)
namespace cuda { PMX_SOLVER_VECTORS_KERNELS; }  // cuda.cu, or cuda_stub.cpp
#undef PMX_SOLVER_VECTORS_KERNELS

/// Values per partial sum of dot() on every backend.
constexpr int64_t dot_chunk = 4096;
}  // namespace pmx::kernels
