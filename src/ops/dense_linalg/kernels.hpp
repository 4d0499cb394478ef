#pragma once
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx::kernels {
#define PMX_DENSE_LINALG_KERNELS                                                                 \
  double cholesky_solve(const executor& exec, int64_t n, double* A, int64_t lda, int64_t m,     \
                        double* B, int64_t ldb);                                                \
  void symmetric_eigen(const executor& exec, int64_t n, double* A, int64_t lda, int64_t count,  \
                       double* values, double* vectors, int64_t ldv)
namespace cpu { PMX_DENSE_LINALG_KERNELS; }   // LAPACK (also serves the reference backend)
namespace cuda { PMX_DENSE_LINALG_KERNELS; }  // cuSOLVER (cuda.cu, or cuda_stub.cpp)
#undef PMX_DENSE_LINALG_KERNELS
// Host-only helpers (every executor runs them with BLAS/LAPACK; see dense_linalg.hpp).
namespace cpu {
void orthonormalize(const executor& exec, int64_t rows, int64_t cols, double* A, int64_t lda);
void dense_gemm(const executor& exec, bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                int64_t k, double alpha, const double* A, int64_t lda, const double* B, int64_t ldb,
                double beta, double* C, int64_t ldc);
}  // namespace cpu
}  // namespace pmx::kernels
