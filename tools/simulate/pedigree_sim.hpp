// Pedigree simulator for single-step evaluations: genes dropped through a pedigree.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/packed_genotypes.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx::sim {

struct pedigree_params {
  int64_t n_animals = 10000;     ///< all animals, founders included
  int64_t n_founders = 500;      ///< generation 0: unknown parents
  int n_generations = 8;         ///< later generations share the other animals equally
  int64_t sires_per_generation = 40;  ///< males of a generation chosen (at random) as sires
  int dam_generations = 3;       ///< dams come from the previous this-many generations
  double unknown_dam_rate = 0.02;  ///< a later animal's dam unknown with this probability
  int64_t n_variants = 5000;
  int n_chromosomes = 10;        ///< 1 Morgan each; crossovers uniform over its variants
  double min_maf = 0.05;         ///< founders' ancestral MAF spectrum (folded arcsine)
  double ld_strength = 0.9;      ///< persistence of the founder pool's haplotypes between variants
  int64_t n_qtl = 300;           ///< variants carrying effects (the same QTL for every trait)
  std::vector<double> h2 = {0.3};                   ///< heritability per trait (t = its size)
  std::vector<double> genetic_variance = {1.0};     ///< σ²_g per trait in the founders
  double genetic_correlation = 0.5;                 ///< between every pair of traits
  double residual_correlation = 0.3;
  int n_herds = 50;              ///< class effect "herd" (sd 1 σ_g), "lact" 1..3 (sd 0.5 σ_g)
  double dim_slope = 0.002;      ///< covariate "dim" (days in milk, 5..305) effect per σ_g
  double record_rate = 0.8;      ///< females outside the youngest generation with a record
  double trait_missing_rate = 0.2;  ///< each trait of a record missing (never all of them)
  int64_t n_genotyped = 2000;    ///< every sire, then the youngest animals, up to this many
  uint64_t seed = 1;
};

struct pedigree_dataset {
  std::vector<std::string> id;         ///< "A1", "A2", ... in birth order (parents first)
  std::vector<int64_t> sire, dam;      ///< indices into id, -1 unknown
  std::vector<int> sex;                ///< 1 male, 2 female
  std::vector<int> generation;
  std::vector<int64_t> genotyped;      ///< indices of genotyped animals, increasing
  std::vector<sample_record> samples;  ///< the genotyped animals as .fam records
  std::vector<variant_record> variants;
  packed_genotypes genotypes;          ///< genotyped animals × variants (no missing calls)
  int n_traits = 1;
  std::vector<double> tbv;             ///< animal-major, n_animals × t (true breeding values)
  std::vector<double> phenotype;       ///< animal-major, NaN = no record for that trait
  std::vector<int> herd, lact;         ///< 0 = animal without a record
  std::vector<double> dim;
  std::vector<double> G0, R0;          ///< t × t genetic and residual (co)variances of the model
};

/// Throws pmx::input_error naming the first parameter out of range.
void validate(const pedigree_params& p);

/// Simulates the pedigree, drops founder haplotypes through it (Mendelian sampling with
/// crossovers, parents' strands carried along each chromosome), sums QTL effects into true
/// breeding values (scaled so the founders' variance is genetic_variance, correlated as asked)
/// and adds fixed effects and residuals (variance σ²_g(1−h²)/h²) for the animals with records.
/// Depends only on `p`, never on `threads`.
pedigree_dataset simulate_pedigree(const pedigree_params& p, int threads);

}  // namespace pmx::sim
