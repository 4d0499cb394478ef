// Backend kernels of shifted_solve (signatures once; validated and dispatched by shifted_solve.cpp).
#pragma once
#include "panoramix/ops/shifted_solve.hpp"

namespace pmx::kernels {
#define PMX_SHIFTED_SOLVE_KERNELS                                                                               \
  double shifted_cholesky_solve(const shifted_operand& A, double a, double b, int64_t m, double* B, int64_t ldb); \
  void shifted_multiply(const shifted_operand& A, double a, double b, int64_t m, const double* X, int64_t ldx,     \
                        double* Y, int64_t ldy)
namespace reference { PMX_SHIFTED_SOLVE_KERNELS; }  // reference.cpp: plain loops
namespace cpu { PMX_SHIFTED_SOLVE_KERNELS; }        // cpu.cpp: LAPACK Cholesky, BLAS dsymm
namespace cuda { PMX_SHIFTED_SOLVE_KERNELS; }       // cuda.cu (cuSOLVER, cuBLAS), or cuda_stub.cpp
#undef PMX_SHIFTED_SOLVE_KERNELS

namespace cuda {
/// The device copy of A made by the operand's constructor on cuda (cuda.cu), and its release.
shifted_operand::device_copy* upload_shifted(const executor& exec, int64_t n, const double* A, int64_t lda);
void release_shifted(shifted_operand::device_copy* d) noexcept;
}  // namespace cuda

/// Host half of the cuda upload (plain C++, OpenMP; cpu.cpp): columns [j0, j0 + cols) of
/// column-major A (leading dimension lda), rows j0..n-1 of each, packed into dst with leading
/// dimension n - j0.
void gather_lower_columns(double* dst, const double* A, int64_t lda, int64_t n, int64_t j0, int64_t cols,
                          int threads);

/// (0·A + b·I) X = B in closed form (X = B/b, log det = n log b; numeric_error when b <= 0), B host
/// memory: the a = 0 shift of the cpu and cuda backends, which factorise nothing for it.
double solve_scaled_identity(int64_t n, double b, int64_t m, double* B, int64_t ldb);
}  // namespace pmx::kernels
