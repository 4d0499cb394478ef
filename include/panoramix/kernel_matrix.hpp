// Kernel matrices of KRR (the KRR paper's Build phase, Algorithms 2 and 5) from 2-bit genotypes.
//
// Missing calls are mean-imputed: a missing call of variant l counts as the dosage 2p_l, with p_l
// the A1 frequencies given (the training samples'). With g̃ the imputed dosages:
//   gaussian  K_ij = exp(−γ (‖g̃_i − g̃_j‖² + ‖c_i − c_j‖²))   (c: standardised covariates, if any)
//   ibs       K_ij = Σ_l (2 − |g̃_il − g̃_jl|) / (2 N_S)
// Both distances are squared Euclidean distances of a feature map of the calls, so each kernel is
// a function of one Gram matrix F (D_ij = F_ii + F_jj − 2 F_ij), computed block by block by the
// ops without decoding the genotypes:
//   gaussian  F = Z Zᵀ, Z = g̃ − 2p (VanRaden's centred dosages): the exact integer crossproduct plus
//             the missing-call corrections of the VanRaden GRM (grm.hpp, unscaled);
//   ibs       |a − b| = ([a≥1] − [b≥1])² + ([a≥2] − [b≥2])² for a, b ∈ {0,1,2}; a missing call
//             takes the fractions s1 = min(2p, 1), s2 = max(2p − 1, 0) of the two indicators plus a
//             third feature √w (w = s1(1−s1) + s2(1−s2)) that only missing calls carry, which makes
//             the distance to a called genotype |g − 2p| and to another missing call 0. F is the
//             Gram matrix of the three centred features (code tables through sample_sums).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

enum class kernel_type { gaussian, ibs };

/// "gaussian" or "ibs".
const char* kernel_name(kernel_type t);

struct genotype_gram {
  int64_t n = 0;           ///< samples
  int64_t n_variants = 0;  ///< N_S
  kernel_type type = kernel_type::gaussian;
  matrix_buffer<double> F;  ///< rows [row_begin, row_end) of the symmetric n × n F, row-major
  /// All rows unless computed over the ranks of a distributed executor (rows_of_rank's split;
  /// row_end 0 means n).
  int64_t row_begin = 0, row_end = 0;
  bool rows_over_ranks = false;  ///< split over the ranks (rows_of_rank), each rank its rows
  std::vector<double> diagonal;  ///< F_ii of every sample (over ranks: from every rank), or empty
  std::vector<std::pair<std::string, double>> stage_seconds;
};

/// F over every sample and variant of `data`, with `a1_freq` (one per variant, in [0, 1]) imputing
/// the missing calls. Throws input_error when no variant is polymorphic at these frequencies.
/// Over the ranks of a distributed executor (collective): each rank reads its own variants and
/// holds its rows of F (the GRM's split, rows_of_rank) and the whole diagonal.
genotype_gram compute_genotype_gram(const executor& exec, const genotype_source& data, kernel_type type,
                                    std::span<const double> a1_freq, progress_sink* progress);

/// The kernel between the gram's samples `rows` (rows it holds) and `cols` (indices), row-major into K (leading
/// dimension ldk >= cols.size()). For the Gaussian kernel, `covariates` (gram samples ×
/// n_covariates, row-major, already standardised; null when n_covariates == 0) add their squared
/// distances; the IBS kernel takes none.
void kernel_block(const genotype_gram& g, double gamma, const double* covariates, int64_t n_covariates,
                  std::span<const int64_t> rows, std::span<const int64_t> cols, double* K, int64_t ldk,
                  int threads);

}  // namespace pmx
