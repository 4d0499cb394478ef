// The pedigree simulator against rules it must obey whatever the random draws: Mendelian
// inheritance between every genotyped parent and offspring, the same data for any thread count,
// the documented genotyped set and record eligibility, founders' TBV scaled to the asked variance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "panoramix/error.hpp"
#include "simulate/pedigree_sim.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

sim::pedigree_params small() {
  sim::pedigree_params p;
  p.n_animals = 6000;
  p.n_founders = 300;
  p.n_generations = 5;
  p.sires_per_generation = 20;
  p.n_variants = 2500;  // 40 chunks of <= 64 variants: two gene-drop groups of 32
  p.n_chromosomes = 4;
  p.n_qtl = 100;
  p.h2 = {0.3, 0.5};
  p.genetic_variance = {1.0, 4.0};
  p.n_genotyped = 1500;
  p.seed = 5;
  return p;
}

int dosage(const packed_genotypes& g, int64_t i, int64_t j) {
  const int code = (g.row(j)[i >> 2] >> (2 * (i & 3))) & 3;
  return code == 0 ? 2 : code == 2 ? 1 : code == 3 ? 0 : -1;
}

TEST(SimulatePedigree, MendelianInheritanceAndNoMissingCalls) {
  const auto d = sim::simulate_pedigree(small(), 2);
  std::vector<int64_t> column(d.id.size(), -1);
  for (size_t i = 0; i < d.genotyped.size(); ++i) column[d.genotyped[i]] = static_cast<int64_t>(i);
  int64_t pairs = 0;
  for (int64_t a : d.genotyped)
    for (int64_t parent : {d.sire[a], d.dam[a]}) {
      if (parent < 0 || column[parent] < 0) continue;
      ++pairs;
      for (int64_t j = 0; j < d.genotypes.n_variants(); ++j) {
        const int x = dosage(d.genotypes, column[a], j), y = dosage(d.genotypes, column[parent], j);
        ASSERT_GE(x, 0);
        ASSERT_FALSE((x == 0 && y == 2) || (x == 2 && y == 0)) << d.id[a] << " vs parent " << d.id[parent];
      }
    }
  EXPECT_GT(pairs, 500);
}

TEST(SimulatePedigree, SameDataForAnyThreadCount) {
  const auto a = sim::simulate_pedigree(small(), 1), b = sim::simulate_pedigree(small(), 3);
  EXPECT_EQ(a.sire, b.sire);
  EXPECT_EQ(a.dam, b.dam);
  EXPECT_EQ(a.genotyped, b.genotyped);
  EXPECT_EQ(a.tbv, b.tbv);
  for (int64_t j = 0; j < a.genotypes.n_variants(); ++j)
    ASSERT_EQ(0, std::memcmp(a.genotypes.row(j), b.genotypes.row(j), a.genotypes.row_bytes()));
}

TEST(SimulatePedigree, GenotypedSetRecordsAndFounderVariance) {
  const auto p = small();
  const auto d = sim::simulate_pedigree(p, 2);
  std::vector<char> typed(d.id.size(), 0);
  for (int64_t a : d.genotyped) typed[a] = 1;
  for (size_t a = 0; a < d.id.size(); ++a) {
    if (d.sire[a] >= 0) { EXPECT_TRUE(typed[d.sire[a]]) << "sire " << d.id[d.sire[a]] << " not genotyped"; }
    if (d.sire[a] >= 0) { EXPECT_LT(d.generation[d.sire[a]], d.generation[a]); }
    if (d.dam[a] >= 0) { EXPECT_LT(d.generation[d.dam[a]], d.generation[a]); }
    if (d.herd[a] > 0) {
      EXPECT_EQ(d.sex[a], 2);
      EXPECT_LT(d.generation[a], p.n_generations);
      int present = 0;
      for (int k = 0; k < d.n_traits; ++k) present += !std::isnan(d.phenotype[a * d.n_traits + k]);
      EXPECT_GE(present, 1);
    }
  }
  EXPECT_GE(static_cast<int64_t>(d.genotyped.size()), p.n_genotyped);
  for (int k = 0; k < d.n_traits; ++k) {  // centred and scaled on the founders, exactly
    double mean = 0, var = 0;
    for (int64_t a = 0; a < p.n_founders; ++a) mean += d.tbv[a * d.n_traits + k];
    mean /= p.n_founders;
    for (int64_t a = 0; a < p.n_founders; ++a) var += std::pow(d.tbv[a * d.n_traits + k] - mean, 2);
    EXPECT_NEAR(mean, 0.0, 1e-12);
    EXPECT_NEAR(var / (p.n_founders - 1), p.genetic_variance[k], 1e-9 * p.genetic_variance[k]);
  }
}

TEST(SimulatePedigree, BadParametersAreNamed) {
  auto p = small();
  p.h2 = {1.2};
  p.genetic_variance = {1.0};
  EXPECT_THROW(sim::simulate_pedigree(p, 1), input_error);
}

}  // namespace
}  // namespace pmx
