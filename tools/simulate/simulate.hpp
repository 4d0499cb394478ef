// Genotype simulator: structured populations with LD, for tests, demos and benchmarks.
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/packed_genotypes.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx::sim {

struct genotype_params {
  int64_t n_samples = 1000, n_variants = 10000;
  double missing_rate = 0.0;   ///< each call independently missing with this probability
  uint64_t seed = 1;
  int n_populations = 3;       ///< contiguous groups of samples; Balding–Nichols with fst below
  double fst = 0.05;
  int n_chromosomes = 22;      ///< variants spread evenly over chromosomes 1..n
  int ld_block_length = 20;    ///< variants per LD block; blocks never span chromosomes
  double ld_strength = 0.8;    ///< per-variant probability a founder haplotype keeps its state
  double min_maf = 0.01;       ///< ancestral MAF ~ Beta(0.5,0.5) folded, truncated to [min_maf, 0.5]
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
///  - ancestral A1 frequency from the folded, truncated arcsine spectrum, A1 minor or major at
///    random; population frequencies ~ Beta(p(1-F)/F, (1-p)(1-F)/F) (Balding–Nichols);
///  - each population has a pool of founder haplotypes; a founder's latent uniform is kept from
///    one variant to the next with probability ld_strength, else redrawn, and the founder carries
///    A1 when it is below the population frequency (stratified latents keep the pool's frequency
///    within 1/pool of the target);
///  - each sample haplotype copies a random founder of its population, switching founders now
///    and then (recombination) and redrawing single alleles rarely (mutation);
///  - genotype = sum of two haplotypes, then each call is missing with probability missing_rate.
dataset simulate_genotypes(const genotype_params& p, int threads);

}  // namespace pmx::sim
