// The inverse of the pedigree relationships among genotyped animals, A_gg⁻¹, for single-step
// models (ssGBLUP's H⁻¹ = A⁻¹ + [0 0; 0 G⁻¹ − A_gg⁻¹], ssSNPBLUP, ssGTABLUP), applied without
// forming it; and the product of a sparse symmetric matrix (A⁻¹) with a block of vectors.
//
// With the animals split into genotyped (g) and not genotyped (n), the blocks of A⁻¹ give
//   A_gg⁻¹ = A^{gg} − A^{gn} (A^{nn})⁻¹ A^{ng}            (Strandén & Mäntysaari 2014)
// (the Schur complement of A^{nn} in A⁻¹), so one sparse Cholesky of A^{nn} serves every product.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/ops/sparse_product.hpp"
#include "panoramix/pedigree.hpp"

namespace pmx {

/// Y = S X with S sparse symmetric (lower triangle stored) and X, Y n × t row-major, OpenMP over
/// rows. Built once from S: both triangles in one CSR, so each row of Y is written by one thread
/// (no races, no atomics; the result does not depend on the thread count).
class sparse_symmetric_operator {
 public:
  sparse_symmetric_operator() = default;
  /// `host`: the executor of the products (a host one: cpu, or reference to check them).
  explicit sparse_symmetric_operator(const sparse_symmetric& s, const executor& host = executor());
  int64_t size() const { return n_; }
  int64_t nonzeros() const { return static_cast<int64_t>(value_.size()); }  ///< both triangles
  /// Y = S X; X and Y n × t row-major and not overlapping, on `threads` of the host executor's
  /// (0: all of them). Thread-safe (const, no workspace).
  void apply(int64_t t, const double* X, double* Y, int threads = 0) const;
  /// The full CSR (valid while this operator lives): for a sparse_operand on another executor.
  csr_view csr() const;

 private:
  int64_t n_ = 0;
  executor host_;
  std::vector<int64_t> row_start_, col_;  // col_ emptied when the columns fit col32_
  std::vector<int32_t> col32_;
  std::vector<double> value_;
};

/// Y = S X for a sparse_symmetric S (lower triangle stored, full symmetric product) and X, Y
/// n × t row-major. Convenience: builds a sparse_symmetric_operator each call (O(nonzeros) extra
/// time and memory); loops (PCG) should keep one operator instead.
void symmetric_multiply(const sparse_symmetric& s, int64_t t, const double* X, double* Y,
                        int threads = 0);

/// A_gg⁻¹ = A^{gg} − A^{gn}(A^{nn})⁻¹A^{ng}: the inverse of the pedigree relationships among the
/// genotyped animals, applied without forming it, from one sparse Cholesky of A^{nn} (CHOLMOD,
/// ordering and simplicial/supernodal as CHOLMOD chooses).
class genotyped_a_inverse {
 public:
  /// `ainv`: the full A⁻¹ (a_inverse(ped)); `genotyped`: k distinct pedigree indices (the order
  /// of rows in apply()). Factorises A^{nn} once. Throws input_error on duplicate/out-of-range
  /// indices, numeric_error when A^{nn} is not positive definite.
  genotyped_a_inverse(const sparse_symmetric& ainv, std::vector<int64_t> genotyped,
                      int threads = 0);
  /// The same operator from the pedigree: A_gg depends only on the genotyped animals and their
  /// ancestors, so A⁻¹ is built for that sub-pedigree only (non-genotyped animals without
  /// genotyped descendants never enter A^{nn}: a smaller factor, the same A_gg⁻¹). `F`: the
  /// inbreeding coefficients of `ped` (empty = computed).
  genotyped_a_inverse(const pedigree& ped, const std::vector<double>& F,
                      std::vector<int64_t> genotyped, int threads = 0);
  ~genotyped_a_inverse();
  genotyped_a_inverse(genotyped_a_inverse&&) noexcept;
  genotyped_a_inverse& operator=(genotyped_a_inverse&&) noexcept;
  genotyped_a_inverse(const genotyped_a_inverse&) = delete;
  genotyped_a_inverse& operator=(const genotyped_a_inverse&) = delete;

  int64_t size() const;  ///< k
  const std::vector<int64_t>& genotyped() const;
  /// Y = A_gg⁻¹ X for t columns: X and Y are k × t, row-major (element (i,c) at [i*t + c]), in
  /// host memory, or device memory after use_device() made the products resident (on_device()),
  /// rows in the order of `genotyped`. X and Y must not overlap. NOT thread-safe: the object
  /// keeps its solve workspaces (no allocation per call once t has been seen); concurrent calls
  /// on one object race. Use one object per thread, or serialise the calls. Runs on the
  /// constructor's `threads` (0 = all); the result does not depend on them.
  void apply(int64_t t, const double* X, double* Y) const;
  /// Dense A_gg⁻¹ (k × k row-major, order of `genotyped`): for tests and small k (O(k²) memory).
  std::vector<double> dense() const;

  /// Set-up facts for logs: seconds to factorise (analysis + numeric), nonzeros of A^{nn} (lower
  /// triangle) and of its factor, and the order of A^{nn} (non-genotyped animals kept).
  double factor_seconds() const;
  int64_t factor_nonzeros() const;
  int64_t nongenotyped_nonzeros() const;
  int64_t nongenotyped() const;
  /// True when CHOLMOD chose a supernodal factor (false: simplicial).
  bool supernodal() const;
  /// A simplicial LDLᵀ factor (the usual one: pedigree blocks factor with little fill) is solved
  /// by level-scheduled sweeps over OpenMP threads (rows whose dependencies are solved form a
  /// level); other factors by cholmod_solve2 (one thread). The number of levels of the forward
  /// sweep (the backward one has about as many), 0 when cholmod_solve2 solves.
  int solve_levels() const;
  /// Solve with cholmod_solve2 even when the sweeps could (comparisons, tests).
  void use_cholmod_solve(bool on);
  /// Runs the sweeps on `exec` (a cuda executor: the schedule resident on its GPU, about 24 bytes
  /// a factor nonzero) from here on, and makes A^{gg}, A^{ng} and A^{gn} resident there too when
  /// they fit: apply() with X and Y in device memory then runs every step on the GPU (with host X
  /// and Y the sparse products stay on the CPU). Returns a line for logs: what was done, or why
  /// the sweeps or products stay on the CPU (no simplicial factor, the device budget).
  std::string use_device(const executor& exec);
  /// True when apply() takes X and Y in device memory (use_device() made every product resident).
  bool on_device() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace pmx
