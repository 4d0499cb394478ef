// Pieces shared by the association regressions (linear, logistic): the samples and rows of a
// phenotype's regressions, one variant's normal equations from the genotype product, plink2's
// screening of the predictors.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/linear_association.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/progress.hpp"

namespace pmx::detail {

/// In-place inverse of the symmetric positive definite P × P matrix a (row-major), Gauss–Jordan
/// with diagonal pivots; false when a pivot is not positive (singular as rounded).
bool invert_spd(std::vector<double>& a, int P);

/// The samples with the phenotype and every covariate, their rows [1 | centred covariates |
/// centred y] (zero for the other samples) and those rows' Gram matrix.
struct regression_design {
  int64_t n = 0, q = 0, l = 0;  ///< samples of the data, covariates, columns of a row (q + 2)
  std::vector<int64_t> kept;    ///< samples with y and every covariate
  std::vector<uint8_t> in;      ///< per sample of the data
  /// Bit 2(i mod 32) of word i/32 set for each kept sample i: the low bit of its 2-bit code in a
  /// 64-bit word of a variant's row (the missing calls are found 32 calls a word).
  std::vector<uint64_t> kept_low_bits;
  std::vector<double> rows;     ///< n × l
  std::vector<double> gram;     ///< l × l over `kept`
  double y_mean = 0;
};
/// Throws input_error with fewer than q + 3 such samples or a constant y over them.
regression_design make_regression_design(std::span<const double> y, const double* c, int64_t q);

/// The variants of `data` by blocks: for each, W = Xᵀ[1 | C | y] over the kept samples (count × l,
/// x = ALT copies, 0 where missing) by the gemm op and the genotype counts over the kept samples
/// (the allele_counts op), then fit(first, count, calls, W, counts).
using product_block_fit = std::function<void(int64_t first, int64_t count, const variant_major_view& calls,
                                             const double* W, const variant_counts* counts)>;
void for_each_product_block(const executor& exec, const genotype_source& data, const regression_design& d,
                            progress_sink* progress, const product_block_fit& fit);

/// One variant's normal equations over the kept samples with a call (predictors: intercept, x =
/// ALT copies, covariates): A (P × P, P = q + 2), b = predictorsᵀ y (centred), yy = Σ y² (centred).
struct variant_gram {
  int64_t called = 0, sum_x = 0, sum_x2 = 0;
  std::vector<double> A, b, miss;
  double yy = 0;
};
/// From the variant's product row W = Xᵀ[1 | C | y], its counts over the kept samples and its 2-bit
/// calls (read only when it has missing calls there).
void variant_normal_equations(const regression_design& d, const uint8_t* calls, const double* W,
                              const variant_counts& counts, variant_gram& g);

/// Whether A1, plink2's nonmajor allele, is REF: ALT's founder frequency above 1/2 (on a tie REF is
/// the major allele, as plink2's source has it). x counts ALT, so REF's coefficient is its negative.
inline bool a1_is_ref(double alt_freq) { return alt_freq > 0.5; }

/// plink2's NA reasons before a fit: too few samples, x constant, |r| > 0.999 between predictors,
/// a variance inflation factor above 50.
glm_error screen_predictors(const variant_gram& g, int P, std::vector<double>& corr);

}  // namespace pmx::detail
