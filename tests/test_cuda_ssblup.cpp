// Single-step models on the cuda executor against the cpu executor, same data: the genotype
// products on the device-resident operand (sssnpblup, ssgtablup), G through the device products
// and the dense Cholesky inverses on cuSOLVER (ssgblup), ssgtablup's C⁻¹ formed on the device and
// applied as a resident operand. The cpu results are themselves checked against dense solves in
// test_ssblup; here EBVs (and SNP effects) must agree to 1e-9 relative, 1 and 3 traits with
// missing records, on both ssgtablup set-up branches (n_g > k_snp and n_g ≤ k_snp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "panoramix/breeding_records.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/single_step.hpp"
#include "simulate/pedigree_sim.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// max |a − b| / max |b|
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
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
  std::vector<int64_t> genotyped;
};

// A simulated pedigree with records of t traits (herd, lact, dim; missing traits) and genotyped
// animals (every sire and the youngest), as in test_ssblup.
dataset simulated(int t, int64_t animals, int64_t n_genotyped, int64_t variants, uint64_t seed) {
  sim::pedigree_params p;
  p.n_animals = animals;
  p.n_founders = animals / 10;
  p.n_generations = 5;
  p.sires_per_generation = 10;
  p.n_variants = variants;
  p.n_chromosomes = 5;
  p.n_qtl = 100;
  p.h2.assign(t, 0.3);
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

single_step_solution solve(const executor& exec, const dataset& d, single_step_model m) {
  single_step_genotypes g;
  g.genotypes = d.geno.view();
  g.animals = d.genotyped;
  g.w = 0.2;
  single_step_options o;
  o.model = m;
  o.tol = 1e-24;
  o.max_iterations = 20000;
  auto s = solve_single_step(exec, d.ped, d.rec, d.vc, &g, o);
  EXPECT_TRUE(s.pcg.converged) << model_name(m) << " on " << backend_name(exec.kind());
  return s;
}

void expect_cuda_equals_cpu(const dataset& d) {
  const executor gpu(backend::cuda, 2), cpu(backend::cpu, 2);
  for (auto m : {single_step_model::ssgblup, single_step_model::sssnpblup, single_step_model::ssgtablup}) {
    const auto c = solve(cpu, d, m);
    const auto g = solve(gpu, d, m);
    const double e = rel_diff(g.ebv, c.ebv);
    EXPECT_LE(e, 1e-9) << model_name(m) << " EBV cuda vs cpu";
    double u = 0;
    if (m == single_step_model::sssnpblup) {
      u = rel_diff(g.snp, c.snp);
      EXPECT_LE(u, 1e-9) << "sssnpblup SNP effects cuda vs cpu";
    }
    std::printf("%s t=%d (%lld genotyped x %lld variants): cuda %lld / cpu %lld iterations, EBV rel. diff %.2e",
                model_name(m).c_str(), d.rec.traits_count(), static_cast<long long>(d.genotyped.size()),
                static_cast<long long>(d.geno.n_variants()), static_cast<long long>(g.pcg.iterations),
                static_cast<long long>(c.pcg.iterations), e);
    if (m == single_step_model::sssnpblup) std::printf(", SNP effects %.2e", u);
    std::printf("\n");
  }
}

// n_g > k_snp: ssgtablup applies A_gg⁻¹ to Z's columns (the usual Woodbury case).
TEST(CudaSsblup, OneTraitMoreAnimalsThanVariants) {
  PMX_REQUIRE_GPU();
  expect_cuda_equals_cpu(simulated(1, 2000, 600, 400, 41));
}

// n_g ≤ k_snp: ssgtablup forms A_gg⁻¹ explicitly; 3 traits with missing records.
TEST(CudaSsblup, ThreeTraitsMissingMoreVariantsThanAnimals) {
  PMX_REQUIRE_GPU();
  const dataset d = simulated(3, 1500, 300, 900, 42);
  int64_t missing = 0;
  for (double v : d.rec.y) missing += std::isnan(v);
  ASSERT_GT(missing, 0);
  expect_cuda_equals_cpu(d);
}

}  // namespace
}  // namespace pmx
