// Preconditioned conjugate gradients for the symmetric positive definite mixed model equations of
// pedigree and single-step models. The matrix and the preconditioner are callbacks, so each model
// supplies its own products (iteration on data, sparse A⁻¹, genotype products) and block-diagonal
// preconditioner; PCG itself only owns five vectors, allocated once.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "panoramix/executor.hpp"
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
  /// Condition number of the preconditioned matrix M⁻¹C estimated from PCG's own coefficients
  /// (the extreme eigenvalues of its Lanczos tridiagonal matrix, which lie inside M⁻¹C's spectrum
  /// and reach its ends as PCG converges: an estimate from below). 0 before the first iteration.
  double condition_estimate = 0;
  /// Estimated relative error of x in the preconditioner's norm (‖v‖_M = √(vᵀMv); M is block
  /// diagonal, so this is a Euclidean norm with each unknown weighted by its diagonal block):
  /// ‖x − x*‖_M / ‖x*‖_M ≤ κ(M⁻¹C) · √(rᵀM⁻¹r / bᵀM⁻¹b), κ replaced by condition_estimate. This,
  /// not ‖r‖²/‖b‖², says how many digits of the solution are right; two solvers of one model
  /// stopped at the same residual agree only to about this. 0 when b = 0.
  double estimated_error = 0;
};

/// When PCG stops: ‖r‖²/‖b‖² < `residual` (BLUPF90's convergence criterion, r the recursive
/// residual), or, when `solution` > 0, the estimated relative error of the solution (see
/// pcg_result::estimated_error) ≤ `solution` instead; or after `max_iterations`.
struct pcg_stopping {
  double residual = 1e-12;
  double solution = 0;
  int64_t max_iterations = 10000;
};

/// y ← C x for the N unknowns (x, y arrays of N doubles in the solve's executor memory — host
/// arrays unless the solve runs on a device — not overlapping).
using pcg_operator = std::function<void(const double* x, double* y)>;

/// Called after each iteration (iteration 0: the start) with its history entry.
using pcg_observer = std::function<void(const pcg_iteration&)>;

/// Solves C x = b by PCG from the x given (zeros for a cold start), preconditioner M (z ← M⁻¹ r),
/// until `stop` holds (see pcg_stopping). b = 0 gives x = 0. Throws numeric_error when b is not
/// finite, when pᵀCp ≤ 0 (C not positive definite) or when the residual becomes NaN or infinite,
/// instead of running to max_iterations on it. Vector updates run on `threads`
/// OpenMP threads (0 = all); results do not depend on it.
pcg_result pcg_solve(int64_t N, const pcg_operator& apply, const pcg_operator& precondition,
                     const double* b, double* x, const pcg_stopping& stop, int threads,
                     progress_sink* progress = nullptr, const pcg_observer& observe = {});

/// The same solve with PCG's vectors in `exec`'s memory (device memory on cuda), its updates and
/// dot products run by the solver_vectors op there: b and x are host arrays, copied in and out
/// once; `apply` and `precondition` read and write `exec`'s memory. On cuda only the scalars of
/// each iteration cross the bus. The cpu executor gives the function above (its `threads`).
pcg_result pcg_solve(const executor& exec, int64_t N, const pcg_operator& apply, const pcg_operator& precondition,
                     const double* b, double* x, const pcg_stopping& stop, progress_sink* progress = nullptr,
                     const pcg_observer& observe = {});

}  // namespace pmx
