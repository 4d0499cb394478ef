// Top eigenpairs of a symmetric positive semi-definite operator by subspace iteration with
// Chebyshev filters and Rayleigh–Ritz after every filter step (Zhou & Saad 2007): the iteration
// behind `pca` (the operator on the 2-bit genotypes) and `gblup --pcs` (the dense GRM).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/progress.hpp"

namespace pmx::detail {

struct subspace_iteration_options {
  int64_t n = 0;            ///< order of the operator
  int64_t block = 0;        ///< l: columns iterated (wanted + oversampling, ≤ n)
  int64_t wanted = 0;       ///< m: eigenpairs returned and checked for convergence (≤ l)
  double tolerance = 1e-7;  ///< Ritz residual ‖G x − θ x‖ bound relative to |θ_1|
  int max_iterations = 500;
  uint64_t seed = 1;
  std::string progress_stage;  ///< progress label
};

struct subspace_iteration_result {
  std::vector<double> values;   ///< m eigenvalues, descending
  std::vector<double> vectors;  ///< n × m column-major, each column's largest entry positive
  int iterations = 0;
  double max_residual = 0;  ///< relative to |θ_1|
  bool converged = false;
};

/// `apply(X, Y)`: Y = G X for X, Y n × l column-major (leading dimension n). The n × l algebra
/// (Rayleigh–Ritz, orthonormalisation) runs on `host`.
subspace_iteration_result top_eigenpairs(const executor& host, const subspace_iteration_options& opt,
                                         const std::function<void(const double*, double*)>& apply,
                                         progress_sink* progress);

/// Flips each column of v (n × m column-major) so that its entry of largest magnitude (the first
/// such entry) is positive.
void normalise_signs(std::vector<double>& v, int64_t n, int64_t m);

}  // namespace pmx::detail
