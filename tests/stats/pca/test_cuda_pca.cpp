// panoramix pca on a cuda executor against the cpu executor (skipped without a GPU): the randomized
// path (its products run on the GPU through the genotype × dense op; the n × l algebra on the host)
// and --exact (GRM sums and cuSOLVER eigensolver on the GPU), on a structured simulated set with
// uneven missing calls and on the real hapmap3 set when present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "panoramix/pca.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

double abs_cos(const double* x, const double* y, int64_t n) {
  long double xy = 0, xx = 0, yy = 0;
  for (int64_t i = 0; i < n; ++i) xy += (long double)x[i] * y[i], xx += (long double)x[i] * x[i], yy += (long double)y[i] * y[i];
  return static_cast<double>(std::fabs(xy) / std::sqrt(xx * yy));
}

// Three populations, 2 % missing calls (8 % for every 17th sample), 1500 variants.
std::string structured_prefix() {
  static const std::string prefix = [] {
    const int64_t n = 301, k = 1500;
    packed_genotypes g(n, k);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0, 1);
    for (int64_t j = 0; j < k; ++j) {
      const double base = 0.1 + 0.8 * u(rng);
      double pop[3];
      for (double& q : pop) q = std::clamp(base + 0.3 * (u(rng) - 0.5), 0.02, 0.98);
      for (int64_t i = 0; i < n; ++i) {
        const double q = pop[i % 3];
        const int x = (u(rng) < q) + (u(rng) < q);
        uint8_t code = x == 2 ? code_hom_a1 : x == 1 ? code_het : code_hom_a2;
        if (u(rng) < (i % 17 == 3 ? 0.08 : 0.02)) code = code_missing;
        g.set(i, j, code);
      }
    }
    std::vector<sample_record> samples(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) samples[i] = {"f", "s" + std::to_string(i), "0", "0", 0, "-9"};
    std::vector<variant_record> variants(static_cast<size_t>(k));
    for (int64_t j = 0; j < k; ++j) variants[j] = {"1", "v" + std::to_string(j), 0, 100 + j, "A", "C"};
    const std::string p = work().path("cuda_structured");
    write_plink_fileset(p, samples, variants, g.view());
    return p;
  }();
  return prefix;
}

void expect_same(const pca_result& gpu, const pca_result& cpu, const char* what) {
  ASSERT_EQ(gpu.pcs, cpu.pcs);
  ASSERT_EQ(gpu.n, cpu.n);
  for (int64_t c = 0; c < cpu.pcs; ++c) {
    EXPECT_NEAR(gpu.values[c], cpu.values[c], 1e-9 * std::fabs(cpu.values[c])) << what << " PC" << c + 1;
    EXPECT_GE(abs_cos(gpu.vectors.data() + c * cpu.n, cpu.vectors.data() + c * cpu.n, cpu.n), 1 - 1e-9)
        << what << " PC" << c + 1;
  }
}

void compare_backends(const std::string& prefix, int64_t pcs) {
  const plink_fileset data(prefix);
  const executor cpu(backend::cpu, 0), gpu(backend::cuda, 0);
  pca_options o;
  o.pcs = pcs;
  const pca_result rc = compute_pca(cpu, data, o, nullptr), rg = compute_pca(gpu, data, o, nullptr);
  EXPECT_TRUE(rg.converged);
  expect_same(rg, rc, "randomized");
  o.exact = true;
  expect_same(compute_pca(gpu, data, o, nullptr), compute_pca(cpu, data, o, nullptr), "exact");
}

TEST(CudaPca, SimulatedWithMissingCallsMatchesCpu) {
  PMX_REQUIRE_GPU();
  compare_backends(structured_prefix(), 2);
}

TEST(CudaPca, Hapmap3MatchesCpu) {
  PMX_REQUIRE_GPU();
  const std::string p = shared_data("hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap");
  if (p.empty()) GTEST_SKIP() << "hapmap3 dataset not found under " << PMX_SHARED_DATA;
  compare_backends(p, 10);
}

}  // namespace
}  // namespace pmx::test
