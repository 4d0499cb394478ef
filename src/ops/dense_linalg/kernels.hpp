// Backend kernels of dense_linalg (signatures once; validated and dispatched by dense_linalg.cpp).
#pragma once
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx::kernels {
#define PMX_DENSE_LINALG_KERNELS                                                                 \
  double cholesky_solve(const executor& exec, int64_t n, double* A, int64_t lda, int64_t m,     \
                        double* B, int64_t ldb);                                                \
  void symmetric_eigen(const executor& exec, int64_t n, double* A, int64_t lda, int64_t count,  \
                       double* values, double* vectors, int64_t ldv)
// Host-only helpers: their operands are host memory on every executor (dense_linalg.hpp), so a
// cuda executor runs the cpu ones.
#define PMX_DENSE_LINALG_HOST_KERNELS                                                             \
  void orthonormalize(const executor& exec, int64_t rows, int64_t cols, double* A, int64_t lda); \
  void dense_gemm(const executor& exec, bool transpose_a, bool transpose_b, int64_t m, int64_t n, \
                  int64_t k, double alpha, const double* A, int64_t lda, const double* B,        \
                  int64_t ldb, double beta, double* C, int64_t ldc)
namespace reference { PMX_DENSE_LINALG_KERNELS; PMX_DENSE_LINALG_HOST_KERNELS; }  // plain loops
namespace cpu { PMX_DENSE_LINALG_KERNELS; PMX_DENSE_LINALG_HOST_KERNELS; }        // LAPACK, BLAS
namespace cuda {  // cuSOLVER (cuda.cu, or cuda_stub.cpp)
PMX_DENSE_LINALG_KERNELS;
double shifted_cholesky_solve(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                              double* B, int64_t ldb);
/// For A in device memory (host A goes to the host kernels).
void shifted_residual(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                      const double* W, const double* Y, double* R);
double shifted_norm_inf(const executor& exec, int64_t n, const double* A, int64_t lda, double shift);
/// Whether p is device memory (false without the CUDA backend).
bool is_device_memory(const void* p);
}  // namespace cuda
#undef PMX_DENSE_LINALG_KERNELS
#undef PMX_DENSE_LINALG_HOST_KERNELS
}  // namespace pmx::kernels
