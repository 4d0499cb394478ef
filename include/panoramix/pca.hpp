// Principal components of the standardised genomic relationship matrix (PLINK 1.9 --pca).
//
// The matrix is the one of `grm --method standardized` (= PLINK --make-rel): with
// z_ij = (x_ij − 2p_j) / sqrt(2p_j(1−p_j)) (0 for a missing call or a monomorphic variant, p from
// founders as PLINK counts them, X/Y/MT dropped by the caller),
//
//   G_ij = S_ij / N_ij,   S = Z Zᵀ,   N_ij = number of variants called in both i and j
//                                    = k − m_i − m_j + m_ij
//
// (k variants, m_i missing calls of sample i, m_ij variants missing in both; N_ii = k − m_i).
// PLINK 1.9 --pca extracts the top eigenpairs of exactly this matrix with LAPACK dsyevr
// (plink_calc.c: calc_rel builds it as --make-rel does, calc_pca calls dsyevr on it); so does
// `exact`: compute_grm + symmetric_eigen.
//
// Randomized path (default): block subspace iteration (Halko, Martinsson & Tropp 2011) with
// Rayleigh–Ritz, never forming an n × n matrix; every product G·V goes through the genotype × dense
// op (gemm_transposed, then gemm). Missing calls make G a Hadamard quotient, not a low-rank product,
// so with missing_mode::plink the operator is applied exactly as
//
//   G = S ⊙ K⁰ + S ⊙ (K − K⁰),   K_ij = 1/N_ij,   K⁰_ij = 1/(k − m_i − m_j),
//
// where S ⊙ K⁰ is expanded in a separable series: with b_i = (m_i − a)/C about the mid-range a of
// the m_i, C = k − 2a, β_i = b_i/(1 − b_i) and w_i = 1/(1 − b_i), k − m_i − m_j = C(1 − b_i)(1 − b_j)
// (1 − β_i β_j), so S ⊙ K⁰ = C⁻¹ W (Σ_t B^t S B^t) W (W, B diagonal), summed until (max β²)^t is
// below double rounding: one product of Z with the blocks [WV, BWV, …, B^{T−1}WV] per step, T = 1
// without missing calls (4 on hapmap3). K − K⁰ is zero except on the diagonal and on pairs that
// share a missing call (m_ij > 0); those entries of S are computed
// once, directly. Variants missing in every sample only lower k. The pair list is what limits this:
// when more than `max_missing_pairs` pairs share a missing call (dense missingness), the exact
// operator is refused (input_error naming the count) — use `exact`, or missing_mode::mean_impute,
// which takes G = Z Zᵀ / k (missing calls at the mean, z = 0; the same matrix when nothing is
// missing, off by O(missing rate) otherwise).
//
// Steps: Chebyshev-filtered subspace iteration (each step a degree-d polynomial of G that damps
// [0, θ_l], d chosen from the rate seen so far), orthonormalisation, Rayleigh–Ritz.
// Stopping: after each step the Ritz residuals r_i = G u_i − θ_i u_i come free (G Q is the
// filter's first product); iteration stops when ‖r_i‖ ≤ tolerance · θ_1 for all i < m. Then
// |θ_i − λ_i| ≤ ‖r_i‖² / gap_i and sin∠(u_i, v_i) ≤ ‖r_i‖ / gap_i (gap_i: distance of θ_i to the
// rest of the spectrum), so components with a clear eigengap come out to ~1e-12 relative in the
// eigenvalue. Results are deterministic (fixed seed) for a given thread count and backend.
//
// Eigenvector signs: each vector is flipped so that its entry of largest magnitude is positive
// (LAPACK's signs are arbitrary; compare vectors up to sign).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

enum class pca_missing_mode {
  plink,        ///< exactly PLINK 1.9's matrix (pairwise called counts), see above
  mean_impute,  ///< G = Z Zᵀ / k, missing calls at z = 0 (randomized path only)
};

struct pca_options {
  int64_t pcs = 10;           ///< m, number of components
  bool exact = false;         ///< dense GRM + LAPACK/cuSOLVER eigensolver (as PLINK 1.9)
  pca_missing_mode missing = pca_missing_mode::plink;
  int64_t oversample = 10;    ///< extra subspace columns (l = min(m + oversample, n))
  double tolerance = 1e-7;    ///< Ritz residual bound, relative to the largest eigenvalue
  int max_iterations = 500;
  uint64_t seed = 20240607;   ///< start block (Gaussian)
  int64_t max_missing_pairs = int64_t{1} << 25;  ///< pairs sharing a missing call (plink mode)
  bool nonfounders = false;
  chromosome_set chromosomes = chromosome_set::human();
};

struct pca_result {
  int64_t n = 0, n_variants = 0, pcs = 0;
  std::vector<double> values;   ///< m eigenvalues, descending
  std::vector<double> vectors;  ///< n × m, column-major (column c = component c, unit length)
  std::string method;           ///< "exact" or "randomized"
  int iterations = 0;           ///< subspace iterations (randomized)
  bool converged = true;
  double max_residual = 0;      ///< max_i ‖r_i‖ / θ_1 at the end (randomized)
  int series_terms = 1;         ///< T (randomized, missing_mode::plink)
  int64_t missing_pairs = 0;    ///< pairs of distinct samples that share a missing call
  int64_t missing_calls = 0;
  int64_t samples_with_missing = 0;  ///< samples with a missing call (randomized, missing_mode::plink)
  std::vector<std::pair<std::string, double>> stage_seconds;
};

/// Throws input_error for options out of range (--pcs, --tol, --max-iter, --oversample) or that do
/// not go together; compute_pca calls it first, front ends may call it before reading input.
void check_pca_options(const pca_options& opt);

/// Top `opt.pcs` eigenpairs of the standardised GRM of every kept variant of `data` (the caller
/// drops X/Y/MT as PLINK does). Throws input_error for bad options (check_pca_options), pcs > n,
/// no variants, a sample without any called genotype (PLINK refuses those too), or too many
/// missing pairs (see above).
pca_result compute_pca(const executor& exec, const genotype_source& data, const pca_options& opt,
                       progress_sink* progress);

}  // namespace pmx
