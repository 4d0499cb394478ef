// Single-step models on the cuda executor against the cpu executor, same data: A⁻¹ resident on the
// device (every model, pblup included), the genotype products on the device-resident operand
// (sssnpblup, ssgtablup), G through the device products and the dense Cholesky inverses on
// cuSOLVER (ssgblup), ssgtablup's C⁻¹ formed on the device and applied as a resident operand. The
// cpu results are themselves checked against dense solves in test_ssblup; here EBVs (and SNP
// effects) must agree to 1e-9 relative, 1 and 3 traits with missing records, on both ssgtablup
// set-up branches (n_g > k_snp and n_g ≤ k_snp).
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
#include "single_step_data.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {



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
  for (auto m : {single_step_model::pblup, single_step_model::ssgblup, single_step_model::sssnpblup,
                 single_step_model::ssgtablup}) {
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
