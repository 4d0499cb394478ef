// Phenotype simulator for `panoramix simulate`: several traits on simulated (or any) genotypes,
// with additive QTL and epistatic pairs, scaled in the sample to an exact heritability and an
// exact epistatic share of the genetic variance.
//
// Model of trait t on the n samples (all variances over the n samples with divisor n):
//   x_ij  = dosage of A1 (.bim column 5) of sample i at variant j minus the variant's mean dosage
//           over its called samples (its `center`); a missing call has x_ij = 0;
//   A_i   = sum over the trait's QTL j of a_j x_ij                         (additive value);
//   w_ip  = x_i1 x_i2 − (c0 + c1 x_i1 + c2 x_i2)  for pair p = (variant 1, variant 2): the
//           product's least-squares residual on its own two dosages in the sample (an
//           additive×additive interaction with no additive effect of its own variants);
//   E_i   = sum over the trait's pairs p of b_p w_ip − λ A_i                 (epistatic value;
//           λ = the regression of the first term on A, so that cov(A, E) = 0 exactly);
//   G_i   = A_i + E_i, y_i = G_i + e_i with e normal, centred and uncorrelated with G in the
//           sample.
// Scaled so that var(y) = 1, var(G) = h2, var(E) = h2·epistatic_share, var(A) = h2 − var(E).
// QTL and pair variants are drawn at random among the polymorphic variants (at least two
// different called dosages), Q + 2P distinct variants per trait, effects N(0,1) before scaling.
// Genetic correlation (R = trait_correlation): round(R·Q) of the QTL and round(R·P) of the pairs
// are common to every trait, with the same effects up to each trait's scale; where a part has
// both common and own QTL (pairs), the two groups are weighted to carry the shares R and 1 − R of
// its variance in the sample, so that two traits' genetic values correlate at about R (up to the
// sample covariance of the common and own groups and λ; the realised correlations are
// reported). A part without variance (h2 = 0, or the additive part at epistatic_share = 1)
// keeps its variants with effect 0. Phenotypes of round(F·n) random samples per trait are set
// missing (NaN; F = missing_fraction) after the variances are fixed.
// Everything depends only on the parameters, the genotypes and the seed, never on the threads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/genotype_view.hpp"

namespace pmx::sim {

struct trait_params {
  int n_traits = 0;               ///< 0: no phenotypes
  int64_t n_qtl = 100;            ///< additive QTL per trait
  int64_t n_pairs = 0;            ///< epistatic pairs per trait
  double h2 = 0.5;                ///< broad-sense heritability var(G)/var(y), every trait
  double epistatic_share = 0.0;   ///< var(E)/var(G), 0..1
  double trait_correlation = 0.0; ///< share of QTL and pairs common to all traits, 0..1
  double missing_fraction = 0.0;  ///< share of each trait's phenotypes written as NA, [0, 1)
  uint64_t seed = 1;
};

struct qtl_effect {
  int64_t variant;   ///< index into the variants
  double center;     ///< mean A1 dosage over the called samples
  double effect;     ///< a_j, per unit of centred A1 dosage
  bool shared;       ///< common to every trait (--trait-correlation)
};

struct epistatic_pair {
  int64_t variant1, variant2;
  double center1, center2;
  double c0, c1, c2;  ///< w = x1 x2 − (c0 + c1 x1 + c2 x2)
  double effect;      ///< b_p
  bool shared;        ///< common to every trait (--trait-correlation)
};

/// Realised (co)variances of one trait over all n samples (divisor n), before NA masking.
struct trait_variances {
  double additive = 0, epistatic = 0, additive_epistatic_cov = 0, genetic = 0, residual = 0,
         genetic_residual_cov = 0, phenotypic = 0;
  double h2() const { return phenotypic > 0 ? genetic / phenotypic : 0; }
  double epistatic_share() const { return genetic > 0 ? epistatic / genetic : 0; }
};

struct trait_truth {
  std::vector<qtl_effect> qtl;       ///< by variant index
  std::vector<epistatic_pair> pairs; ///< by first variant index (variant1 < variant2)
  double lambda = 0;                 ///< E = Σ b w − λ A
  trait_variances variances;
};

struct trait_dataset {
  int n_traits = 0;
  int64_t n_samples = 0;
  std::vector<double> phenotype;     ///< sample-major, n × t; NaN = written as NA
  std::vector<double> genetic;       ///< sample-major, n × t: G (true genetic values)
  std::vector<trait_truth> truth;    ///< one per trait
  std::vector<double> genetic_correlation;  ///< t × t realised correlations of G (NaN if undefined)
  int64_t polymorphic_variants = 0;
};

/// Throws pmx::input_error "simulate: --option ..." naming the first parameter out of range for
/// genotypes of n_samples × n_variants: counts, NaN/inf and ranges, Q + 2P above the number of
/// variants, a share that needs QTL or pairs there are none of, fewer than 2 samples, a missing
/// fraction that leaves no phenotype.
void validate(const trait_params& p, int64_t n_samples, int64_t n_variants);

/// Simulates the traits on `genotypes` (model above). Throws input_error when the genotypes
/// cannot carry the request: fewer polymorphic variants than Q + 2P, or QTL, pairs or residuals
/// with no variance left in the sample (too few samples). Depends only on `p` and the genotypes.
trait_dataset simulate_traits(const trait_params& p, const variant_major_view& genotypes, int threads);

}  // namespace pmx::sim
