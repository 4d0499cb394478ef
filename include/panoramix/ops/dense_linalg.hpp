// Op: dense symmetric linear algebra on the executor's device — Cholesky solves and symmetric
// eigendecompositions (gBLUP, REML, exact PCA, small subspace steps). LAPACK (OpenBLAS) on cpu,
// cuSOLVER on cuda; reference is textbook loops (Cholesky recurrence, cyclic Jacobi, Householder),
// the oracle of the other two, for small matrices only.
//
// Layout: matrices are column-major with a leading dimension (column c of X starts at X + c*ld).
// A symmetric matrix stored row-major is the same array, so an n×n GRM can be passed as is; only
// its lower triangle (column-major sense) is read.
//
// Memory (cuda): pointers may be host or device memory (detected per pointer). Host operands are
// copied to the device for the call and results copied back; the whole factorisation runs on the
// GPU, so n×n doubles plus cuSOLVER's workspace must fit the device budget (else unsupported_error
// names the size; use a cpu executor).
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"

namespace pmx {

/// Solves A X = B for symmetric positive definite A (n × n, leading dimension lda) and B (n × m,
/// leading dimension ldb, overwritten by X). A is destroyed (cpu: its lower triangle holds the
/// Cholesky factor; cuda with host A: unchanged, the factor stays on the device). Returns log det A. Throws numeric_error when A is not positive definite (the message
/// gives the order of the leading minor that failed).
double cholesky_solve(const executor& exec, int64_t n, double* A, int64_t lda, int64_t m, double* B,
                      int64_t ldb);

/// Solves (A + shift·I) X = B like cholesky_solve, but leaves A unchanged: a copy is factorised
/// (on cuda a device copy, for A in host or device memory; n×n more doubles on the device).
double shifted_cholesky_solve(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                              double* B, int64_t ldb);

/// R = Y − (A + shift·I) W for symmetric A (n × n, lda; host memory, or device memory on cuda,
/// where the product runs on the GPU) and W, Y, R n × m column-major with leading dimension n in
/// host memory. Every entry of A is read.
void shifted_residual(const executor& exec, int64_t n, const double* A, int64_t lda, double shift, int64_t m,
                      const double* W, const double* Y, double* R);

/// ‖A + shift·I‖∞, the largest absolute row sum of symmetric A (host memory, or device memory on cuda).
double shifted_norm_inf(const executor& exec, int64_t n, const double* A, int64_t lda, double shift);

/// Eigenpairs of symmetric A (n × n, lda; destroyed, as above). Returns the `count` largest eigenvalues in
/// descending order in values[0..count) and, when `vectors` is not null, the matching unit
/// eigenvectors as the columns of `vectors` (n × count, leading dimension ldv). count = n gives
/// the full decomposition. Eigenvector signs are LAPACK's / cuSOLVER's (callers that print them
/// choose a convention).
void symmetric_eigen(const executor& exec, int64_t n, double* A, int64_t lda, int64_t count,
                     double* values, double* vectors, int64_t ldv);

// Tall-skinny helpers of subspace methods (randomized PCA). These take host memory only, on every
// executor: their operands are n × l with l small, so a cuda executor runs them on the host too
// (BLAS/LAPACK with the executor's threads) rather than paying two transfers per call.

/// Replaces the columns of A (rows × cols, rows >= cols, leading dimension lda, host memory) by an
/// orthonormal basis of their span: the Q of a Householder QR (LAPACK dgeqrf + dorgqr). Column c
/// of Q spans the same space as columns 0..c of A. A rank-deficient A still gives orthonormal
/// columns (the extra directions are arbitrary).
void orthonormalize(const executor& exec, int64_t rows, int64_t cols, double* A, int64_t lda);

/// C ← α op(A) op(B) + β C (BLAS dgemm; op = transpose when the flag is set), column-major, host
/// memory; C is m × n, op(A) m × k, op(B) k × n. β = 0 overwrites C without reading it.
void dense_gemm(const executor& exec, bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                int64_t k, double alpha, const double* A, int64_t lda, const double* B, int64_t ldb,
                double beta, double* C, int64_t ldc);

}  // namespace pmx
