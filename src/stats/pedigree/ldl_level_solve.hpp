// Solves with a sparse LDLᵀ factor by level-scheduled triangular sweeps, in parallel: rows whose
// dependencies are all solved form a level; the rows of one level are independent. Pedigree
// blocks such as A^{nn} factor with no fill and a shallow elimination tree (~20 levels for a
// million animals), so each sweep is ~20 parallel loops instead of one serial pass.
// Internal to src/stats/pedigree (used by genotyped_a_inverse).
#pragma once
#include <cstdint>
#include <vector>

namespace pmx {

class ldl_level_solver {
 public:
  ldl_level_solver() = default;
  /// From a simplicial LDLᵀ factor of A(perm, perm) in CHOLMOD's layout (copied): column j holds
  /// nz[j] entries from p[j], the first the diagonal D_jj, then rows i > j of unit-lower L.
  ldl_level_solver(int64_t n, const int64_t* perm, const int64_t* p, const int64_t* nz,
                   const int64_t* row, const double* x);
  int64_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  /// Row k of the permuted system is row perm()[k] of A; inverse_perm()[perm()[k]] = k.
  const std::vector<int64_t>& perm() const { return perm_; }
  const std::vector<int64_t>& inverse_perm() const { return iperm_; }
  int levels() const { return static_cast<int>(forward_level_.size()) - 1; }
  /// In place: W (n × t row-major, permuted order) holds P b on entry and P A⁻¹ b on exit.
  /// Each row is written by one thread: no races, the result does not depend on `threads`.
  void solve_permuted(int64_t t, double* W, int threads) const;

 private:
  int64_t n_ = 0;
  // The system is renumbered so that forward levels are consecutive ranges of rows.
  std::vector<int64_t> perm_, iperm_;
  std::vector<double> d_;
  std::vector<int64_t> row_start_, row_col_;  // strictly lower L by rows (forward sweep)
  std::vector<double> row_val_;
  std::vector<int64_t> forward_level_;          // row offsets of the forward levels
  std::vector<int64_t> backward_col_, backward_level_;  // columns in backward-level order
  std::vector<int64_t> col_start_, col_row_;  // strictly lower L by columns, in that order
  std::vector<double> col_val_;
};

}  // namespace pmx
