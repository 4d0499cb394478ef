// Test data for the single-step tests (test_ssblup, test_cuda_ssblup): a simulated pedigree
// with records and genotypes, and the relative difference both compare with.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "panoramix/breeding_records.hpp"
#include "panoramix/packed_genotypes.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/single_step.hpp"
#include "simulate/pedigree_sim.hpp"

namespace pmx {

// max |a − b| / max |b|
inline double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double num = 0, den = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / den;
}

struct dataset {
  pedigree ped;
  breeding_records rec;
  variance_components vc;
  packed_genotypes geno;
  std::vector<int64_t> genotyped;  // pedigree indices of the genotype samples
};

// A simulated pedigree with records of t traits (herd, lact classes, dim covariate; missing
// traits) and genotyped animals (every sire and the youngest).
inline dataset simulated(int t, int64_t animals, int64_t n_genotyped, int64_t variants, uint64_t seed) {
  sim::pedigree_params p;
  p.n_animals = animals;
  p.n_founders = animals / 10;
  p.n_generations = 5;
  p.sires_per_generation = 10;
  p.n_variants = variants;
  p.n_chromosomes = 5;
  p.n_qtl = 100;
  p.h2.assign(t, 0.3);
  if (t == 3) p.h2 = {0.3, 0.4, 0.2};
  p.genetic_variance.assign(t, 1.0);
  p.n_herds = 8;
  p.n_genotyped = n_genotyped;
  p.trait_missing_rate = 0.25;
  p.seed = seed;
  const sim::pedigree_dataset d = sim::simulate_pedigree(p, 2);
  dataset s;
  std::vector<pedigree_record> pr;
  for (size_t a = 0; a < d.id.size(); ++a)
    pr.push_back({d.id[a], d.sire[a] < 0 ? "" : d.id[d.sire[a]], d.dam[a] < 0 ? "" : d.id[d.dam[a]], int64_t(a + 1)});
  s.ped = pedigree::from_records(pr, "simulated");
  s.rec.path = "simulated";
  for (int k = 0; k < t; ++k) s.rec.traits.push_back("trait" + std::to_string(k + 1));
  s.rec.classes = {"herd", "lact"};
  s.rec.covariates = {"dim"};
  s.rec.level.resize(2);
  s.rec.covariate.resize(1);
  for (size_t a = 0; a < d.id.size(); ++a) {
    if (d.herd[a] == 0) continue;
    s.rec.id.push_back(d.id[a]);
    s.rec.line.push_back(static_cast<int64_t>(a + 2));
    for (int k = 0; k < t; ++k) s.rec.y.push_back(d.phenotype[a * t + k]);
    s.rec.level[0].push_back(std::to_string(d.herd[a]));
    s.rec.level[1].push_back(std::to_string(d.lact[a]));
    s.rec.covariate[0].push_back(d.dim[a]);
  }
  s.vc.t = t;
  s.vc.genetic = d.G0;
  s.vc.residual = d.R0;
  s.geno = packed_genotypes(d.genotypes.n_samples(), d.genotypes.n_variants());
  for (int64_t j = 0; j < s.geno.n_variants(); ++j)
    std::copy(d.genotypes.row(j), d.genotypes.row(j) + s.geno.row_bytes(), s.geno.row(j));
  for (int64_t a : d.genotyped) s.genotyped.push_back(s.ped.index(d.id[a]));
  return s;
}

}  // namespace pmx
