// Op: repeated solves with a shifted symmetric matrix, (a·A + b·I) X = B, for the same A and many
// (a, b) — one REML likelihood evaluation per shift (H = h²G + (1−h²)I), or gBLUP's G + λI.
// A is prepared once: on cuda it is uploaded once and stays on the device (the shifted copy is
// formed there, never sent again), so an evaluation costs one Cholesky factorisation on the GPU
// (~n³/3 FP64 flops); on cpu/reference the operand keeps a pointer to the caller's matrix and each
// solve factorises a copy (cpu: LAPACK; reference: textbook loops). The same operand multiplies (shifted_multiply), so a
// subspace eigensolver and the solves share one upload.
//
// Layout as in dense_linalg.hpp: column-major with leading dimension (a symmetric row-major
// matrix is the same array); only the lower triangle of A is read.
#pragma once
#include <cstdint>
#include <memory>

#include "panoramix/executor.hpp"

namespace pmx {

class shifted_operand {
 public:
  struct device_copy;  ///< defined by the CUDA backend; opaque here

  /// The caller keeps A alive and unchanged for the operand's lifetime on cpu/reference.
  /// On cuda A is copied to the device here (A may be host or device memory) and the operand
  /// also reserves the factor's n×n buffer and cuSOLVER's workspace (unsupported_error when
  /// 2 n² doubles plus workspace exceed the device budget).
  shifted_operand(const executor& exec, int64_t n, const double* A, int64_t lda);
  ~shifted_operand();
  shifted_operand(shifted_operand&&) noexcept;
  shifted_operand& operator=(shifted_operand&&) noexcept;

  const executor& exec() const { return exec_; }
  int64_t n() const { return n_; }
  const double* host() const { return A_; }
  int64_t lda() const { return lda_; }
  device_copy* device() const { return device_.get(); }

 private:
  struct device_copy_deleter {
    void operator()(device_copy* d) const;
  };
  executor exec_;
  int64_t n_, lda_;
  const double* A_;
  std::unique_ptr<device_copy, device_copy_deleter> device_;
};

/// Solves (a·A + b·I) X = B for B (n × m, leading dimension ldb, host memory, overwritten by X)
/// and returns log det(a·A + b·I). A is unchanged. Throws numeric_error when the shifted matrix is
/// not positive definite. a = 0 is b·I: solved in closed form (X = B/b, log det = n log b), no
/// factorisation (REML's h² = 0, the log det(XᵀX) of a given-h² fit).
double shifted_cholesky_solve(const shifted_operand& A, double a, double b, int64_t m, double* B, int64_t ldb);

/// Y ← (a·A + b·I) X for X and Y n × m (leading dimensions ldx, ldy, host memory, not
/// overlapping): the products of subspace eigensolvers and of BLUPs (ĝ = h² G α) with the matrix
/// already in place — on cuda the resident copy (DGEMM; only X and Y cross the bus), on cpu BLAS
/// dsymm on the caller's lower triangle.
void shifted_multiply(const shifted_operand& A, double a, double b, int64_t m, const double* X, int64_t ldx,
                      double* Y, int64_t ldy);

}  // namespace pmx
