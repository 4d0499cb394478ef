// Single-step models on the cuda executor against the cpu executor, same data: A⁻¹ resident on the
// device (every model, pblup included), the genotype products on the device-resident operand
// (sssnpblup, ssgtablup), G through the device products and the dense Cholesky inverses on
// cuSOLVER (ssgblup), ssgtablup's C⁻¹ formed on the device and applied as a resident operand. The
// cpu results are themselves checked against dense solves in test_ssblup; here EBVs (and SNP
// effects) must agree to 1e-9 relative, 1 and 3 traits with missing records, on both ssgtablup
// set-up branches (n_g > k_snp and n_g ≤ k_snp). The device route of PCG (vectors, records and
// preconditioner resident; pblup and sssnpblup, whose products all run on the GPU) against the host
// route on the same GPU (PMX_PCG_GPU=0): iteration counts to 1e-12 within 1 %, EBVs to 1e-9.
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



single_step_solution solve(const executor& exec, const dataset& d, single_step_model m, double tol = 1e-24,
                           int64_t dense_fixed_limit = single_step_options().dense_fixed_limit) {
  single_step_genotypes g;
  g.genotypes = d.geno.view();
  g.animals = d.genotyped;
  g.w = 0.2;
  single_step_options o;
  o.model = m;
  o.tol = tol;
  o.dense_fixed_limit = dense_fixed_limit;
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

bool has_note(const single_step_solution& s, const std::string& text) {
  for (const auto& n : s.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

void expect_device_route_equals_host_route(const dataset& d) {
  tuning host_vectors;
  host_vectors.pcg_on_device = false;
  const executor device_route(backend::cuda, 2), host_route(backend::cuda, 2, host_vectors);
  for (auto m : {single_step_model::pblup, single_step_model::sssnpblup}) {
    // Iteration counts at BLUPF90's usual stopping point: the routes sum in other orders (device
    // dot products are trees), so the last iterations' residuals differ in their last bits. With
    // the dense fixed-effects preconditioner (the default here); with the diagonal one pblup's
    // 3-trait counts scatter between routes that exist already (cpu 104, cuda host route 107,
    // device route 98 iterations: this set's fixed effects are poorly preconditioned by a diagonal).
    const auto on_count = solve(device_route, d, m, 1e-12), off_count = solve(host_route, d, m, 1e-12);
    EXPECT_LE(std::abs(on_count.pcg.iterations - off_count.pcg.iterations), 1 + off_count.pcg.iterations / 100)
        << model_name(m) << ": " << on_count.pcg.iterations << " vs " << off_count.pcg.iterations << " iterations";
    // The solutions to convergence (as expect_cuda_equals_cpu): 1e-9 relative; pblup with the
    // fixed effects' diagonal preconditioner (the national size's), sssnpblup with the dense one.
    const int64_t limit = m == single_step_model::pblup ? 0 : single_step_options().dense_fixed_limit;
    const auto on = solve(device_route, d, m, 1e-24, limit), off = solve(host_route, d, m, 1e-24, limit);
    ASSERT_TRUE(has_note(on, "PCG on the GPU")) << model_name(m) << ": the device route was not taken";
    ASSERT_TRUE(has_note(off, "PMX_PCG_GPU=0")) << model_name(m);
    EXPECT_LE(rel_diff(on.ebv, off.ebv), 1e-9) << model_name(m) << " EBV device route vs host route";
    if (m == single_step_model::sssnpblup) {
      EXPECT_LE(rel_diff(on.snp, off.snp), 1e-9) << "SNP effects";
    }
    std::printf("%s t=%d: to 1e-12 device route %lld / host route %lld iterations; EBV rel. diff %.2e\n",
                model_name(m).c_str(), d.rec.traits_count(), static_cast<long long>(on_count.pcg.iterations),
                static_cast<long long>(off_count.pcg.iterations), rel_diff(on.ebv, off.ebv));
  }
}

TEST(CudaSsblup, DeviceRouteOneTrait) {
  PMX_REQUIRE_GPU();
  expect_device_route_equals_host_route(simulated(1, 2000, 600, 400, 43));
}

TEST(CudaSsblup, DeviceRouteThreeTraitsMissing) {
  PMX_REQUIRE_GPU();
  expect_device_route_equals_host_route(simulated(3, 1500, 300, 900, 44));
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
