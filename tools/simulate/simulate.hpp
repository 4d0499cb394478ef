// Genotype simulator: structured populations with LD, for tests, demos and benchmarks.
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/packed_genotypes.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx::sim {

struct genotype_params {
  int64_t n_samples = 1000, n_variants = 10000;
  double missing_rate = 0.0;  ///< each call independently missing with this probability
  uint64_t seed = 1;
  int n_populations = 3;  ///< contiguous groups of samples; Balding–Nichols with fst below
  double fst = 0.05;
  int n_chromosomes = 22;    ///< variants spread evenly over chromosomes 1..n
  int ld_block_length = 20;  ///< variants per LD block; blocks never span chromosomes
  double ld_strength = 0.8;  ///< per-variant probability a founder haplotype keeps its state
  double min_maf = 0.01;     ///< ancestral MAF ~ Beta(0.5,0.5) folded, truncated to [min_maf, 0.5]
  double monomorphic_fraction = 0.0;  ///< probability a variant is forced monomorphic
};

struct dataset {
  std::vector<sample_record> samples;
  std::vector<variant_record> variants;
  packed_genotypes genotypes;
};

/// Throws pmx::input_error naming the first parameter out of range.
void validate(const genotype_params& p);

/// Simulates a dataset. The result depends only on `p` (seed included), never on `threads`
/// (<= 0: all hardware threads).
///
/// Model, per LD block (its own RNG stream seeded from (seed, block index)):
///  - ancestral minor-allele frequency from the folded, truncated arcsine spectrum; population
///    frequencies ~ Beta(q(1-F)/F, (1-q)(1-F)/F) (Balding–Nichols); A1 is the minor or the major
///    allele at random;
///  - each population has a pool of 128 founder haplotypes, each with a latent uniform that is
///    kept from one variant to the next with probability ld_strength, else redrawn; a founder
///    carries the minor allele when its latent is below the population frequency (so minor
///    alleles of nearby variants nest, as on a genealogy); stratified latents keep the pool's
///    frequency within 1/128 of the target;
///  - each sample haplotype copies a random founder of its population, switching founders now
///    and then (recombination) and redrawing single alleles rarely (mutation);
///  - genotype = sum of two haplotypes, then each call is missing with probability missing_rate.
/// Chromosomes are named "1".."n"; with n > 22, PLINK's human set reads 23-26 as X/Y/XY/MT.
dataset simulate_genotypes(const genotype_params& p, int threads);

}  // namespace pmx::sim
