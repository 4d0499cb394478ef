// Op: solves with a sparse LDLᵀ factor by level-scheduled triangular sweeps. Rows whose
// dependencies are all solved form a level, and the rows of one level are independent. Pedigree
// blocks such as single step's A^{nn} factor with no fill and a shallow elimination tree (~20
// levels for a million animals), so each sweep is ~20 parallel steps instead of one serial pass.
//
//   reference: plain loops, rows in level order; cpu: each level's rows over OpenMP threads; both
//     sum each row in the same order, so they give the same bits for any thread count.
//   cuda: the schedule is uploaded once and kept on the device; a sweep is one kernel per level,
//     one thread per (row, column) summing the row in the cpu's order with rounded multiplies,
//     subtractions and divisions (no FMA contraction), so it does the cpu's operations: the same
//     bits wherever the host compiler does not contract them either. W may be host or device
//     memory (host W crosses the bus each solve, by DMA when it is page-locked).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx {

/// A simplicial LDLᵀ factor of A(perm, perm) in CHOLMOD's layout, held by the caller: column j
/// holds nz[j] entries from p[j] (rows in `row`, values in `x`), the first the diagonal D_jj, then
/// rows i > j of the unit-lower L. Row k of the factor is row perm[k] of A.
struct ldl_factor_view {
  int64_t n = 0;
  const int64_t* perm = nullptr;
  const int64_t* p = nullptr;
  const int64_t* nz = nullptr;
  const int64_t* row = nullptr;
  const double* x = nullptr;
};

/// The factor renumbered so that forward levels are consecutive ranges of rows, with both
/// sweeps' schedules (copied from the view: the caller's arrays may go).
struct ldl_schedule {
  int64_t n = 0;
  std::vector<int64_t> perm, inverse_perm;   ///< row k of the system is row perm[k] of A
  std::vector<double> d;
  std::vector<int64_t> row_start, row_col;   ///< strictly lower L by rows (forward sweep)
  std::vector<double> row_val;
  std::vector<int64_t> forward_level;        ///< row offsets of the forward levels
  std::vector<int64_t> backward_col, backward_level;  ///< columns in backward-level order
  std::vector<int64_t> col_start, col_row;   ///< strictly lower L by columns, in that order
  std::vector<double> col_val;
  int levels() const { return static_cast<int>(forward_level.size()) - 1; }
  int backward_levels() const { return static_cast<int>(backward_level.size()) - 1; }
};

/// The sweeps of one factor, prepared for many solves on one executor.
class ldl_sweeps {
 public:
  struct device_copy;  ///< defined by the CUDA backend; opaque here

  ldl_sweeps() = default;
  /// On cuda: unsupported_error when the schedule and one n × 1 vector do not fit the device
  /// budget (callers then solve on the cpu).
  ldl_sweeps(const executor& exec, const ldl_factor_view& f);
  /// The sweeps of `other` on another executor (its schedule copied, not built again).
  ldl_sweeps(const executor& exec, const ldl_sweeps& other);
  ~ldl_sweeps();
  ldl_sweeps(ldl_sweeps&&) noexcept;
  ldl_sweeps& operator=(ldl_sweeps&&) noexcept;

  bool empty() const { return s_.n == 0; }
  int64_t size() const { return s_.n; }
  const std::vector<int64_t>& perm() const { return s_.perm; }
  const std::vector<int64_t>& inverse_perm() const { return s_.inverse_perm; }
  int levels() const { return s_.levels(); }
  const executor& exec() const { return exec_; }
  const ldl_schedule& schedule() const { return s_; }
  const device_copy* device() const { return device_.get(); }

 private:
  struct device_copy_deleter {
    void operator()(device_copy* d) const;
  };
  executor exec_ = executor::reference();
  ldl_schedule s_;
  std::unique_ptr<device_copy, device_copy_deleter> device_;
};

/// In place: W (n × t row-major, the sweeps' row order) holds P b on entry and P A⁻¹ b on exit,
/// P the permutation of perm() (row k of W is row perm()[k] of b). On cuda W may be device memory.
void ldl_solve_permuted(const ldl_sweeps& s, int64_t t, double* W);

}  // namespace pmx
