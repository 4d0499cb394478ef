// Principal components of a GRM that is already in memory (or resident on the GPU): the top m
// eigenpairs of the dense symmetric n × n matrix G behind a shifted_operand, by randomized block
// subspace iteration with Chebyshev filtering and Rayleigh–Ritz (Halko, Martinsson & Tropp 2011;
// Zhou & Saad 2007). Every n² step is one product G·X through shifted_multiply (a DGEMM on the
// device-resident G for cuda, BLAS dsymm on the host for cpu); the n × l algebra (QR, Ritz) runs
// on the host (l = m + oversample columns).
//
// Which matrix: whatever G is. `gblup --pcs` passes the GRM it fits (VanRaden or standardised as
// --method says, missing calls as compute_grm treats them); that is not `pca`'s operator (PLINK's
// standardised matrix divided by pairwise called counts) when --method vanraden or calls are
// missing, so the two sets of PCs differ then.
//
// Stopping: the Ritz residuals r_i = G u_i − θ_i u_i come with each step; iteration stops when
// ‖r_i‖ ≤ tolerance · |θ_1| for every i < m, or after max_iterations steps (converged = false).
// |θ_i − λ_i| ≤ ‖r_i‖² / gap_i and sin∠(u_i, v_i) ≤ ‖r_i‖ / gap_i. Deterministic for a fixed seed,
// backend and thread count. Signs: each vector's entry of largest magnitude is positive (as `pca`).
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/ops/shifted_solve.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct grm_pcs_options {
  int64_t pcs = 10;          ///< m
  int64_t oversample = 10;   ///< l = min(m + oversample, n) columns
  double tolerance = 1e-7;   ///< Ritz residual bound relative to |θ_1|
  int max_iterations = 500;  ///< filter steps at most
  uint64_t seed = 20240607;  ///< Gaussian start block
};

struct grm_pcs_result {
  int64_t n = 0, pcs = 0;
  std::vector<double> values;   ///< m eigenvalues, descending
  std::vector<double> vectors;  ///< n × m column-major, unit columns
  int iterations = 0;           ///< filter steps
  int64_t products = 0;         ///< products G·X of n × l blocks
  bool converged = true;
  double max_residual = 0;      ///< max_i ‖r_i‖ / |θ_1| at the end
};

/// Top opt.pcs eigenpairs of the matrix of G (only its lower triangle is read, as the op does).
/// Throws input_error for pcs < 1, pcs > n, a non-positive tolerance or max_iterations < 1.
grm_pcs_result grm_top_eigenpairs(const shifted_operand& G, const grm_pcs_options& opt, progress_sink* progress);

}  // namespace pmx
