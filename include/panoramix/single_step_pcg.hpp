// Preconditioned conjugate gradients for the symmetric positive definite mixed model equations of
// pedigree and single-step models. The matrix and the preconditioner are callbacks, so each model
// supplies its own products (iteration on data, sparse A⁻¹, genotype products) and block-diagonal
// preconditioner; PCG itself only owns five vectors, allocated once.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "panoramix/progress.hpp"

namespace pmx {

struct pcg_iteration {
  int64_t iteration = 0;
  double relative_residual = 0;  ///< ‖r‖² / ‖b‖² (Euclidean norms, squared) after this iteration
  double seconds = 0;            ///< wall time since the start of the solve
};

struct pcg_result {
  bool converged = false;
  int64_t iterations = 0;
  std::vector<pcg_iteration> history;  ///< one entry per iteration (iteration 0: the start)
  /// ‖b − Cx‖² / ‖b‖² of the returned x, recomputed with one more product (the recursive residual
  /// of PCG drifts from the true one in floating point; this is the honest number).
  double true_relative_residual = 0;
};

/// y ← C x for the N unknowns (x, y host arrays of N doubles, not overlapping).
using pcg_operator = std::function<void(const double* x, double* y)>;

/// Called after each iteration (iteration 0: the start) with its history entry.
using pcg_observer = std::function<void(const pcg_iteration&)>;

/// Solves C x = b by PCG from the x given (zeros for a cold start), preconditioner M (z ← M⁻¹ r).
/// Stops when ‖r‖²/‖b‖² < tol (r the recursive residual) or after max_iterations. b = 0 gives
/// x = 0. Vector updates run on `threads` OpenMP threads (0 = all); results do not depend on it.
pcg_result pcg_solve(int64_t N, const pcg_operator& apply, const pcg_operator& precondition,
                     const double* b, double* x, double tol, int64_t max_iterations, int threads,
                     progress_sink* progress = nullptr, const pcg_observer& observe = {});

}  // namespace pmx
