// The AMX-INT8 route of table_crossprod (cpu backend) against a long-double oracle computed here
// from the code tables, on standardised-GRM tables (rare and monomorphic variants, 0 / 1 / 30 %
// missing, samples missing everywhere, n and k odd, k across the 2048-variant panel), VanRaden
// tables and random affine tables whose weights span many binary exponents (several groups, 8
// digits). The tolerance is the bound written in src/ops/table_products/cpu_amx.hpp:
//   2^-47 sqrt(D_i D_j)  (rounded weights)  +  1e-13 A_ij  (double rounding of the expansion),
// D_i = Σ_l w_l y_il², A_ij = Σ_l (|α_l| + |β_l| y_il)(|α_l| + |β_l| y_jl). Also end to end:
// compute_grm with the route forced against a long-double GRM, at the 1e-12 bar of test_grm.
// Skipped, saying why, where the CPU or the OS does not offer AMX-INT8.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "core/cpu_dispatch.hpp"
#include "ops/table_products/cpu_amx.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/table_products.hpp"
#include "panoramix/plink_write.hpp"
#include "integer_route_cases.hpp"
#include "test_support.hpp"

using namespace pmx;
using namespace pmx::integer_route_cases;

namespace {

#define PMX_REQUIRE_AMX()                                                                                   \
  do {                                                                                                      \
    if (!kernels::cpu::amx_int8_usable())                                                                   \
      GTEST_SKIP() << "AMX-INT8 not usable here (CPU lacks amx_int8/avx512bw, or the OS refused the tile " \
                      "state): the BLAS route is tested by test_ops_backends";                             \
  } while (0)

// A cpu executor whose table_crossprod takes `route`.
executor forced(tuning::route route) {
  tuning t;
  t.table_crossprod = route;
  return executor(backend::cpu, 2, t);
}

struct case_spec {
  int64_t n, k;
  double missing;
  tables_kind kind;
};

void check_case(const case_spec& cs, uint64_t seed) {
  const auto g = make_genotypes(cs.n, cs.k, cs.missing, seed);
  const auto tab = make_tables(g, cs.kind, seed);
  const int64_t n = cs.n, k = cs.k;
  kernels::cpu::affine_plan plan;
  ASSERT_TRUE(kernels::cpu::make_affine_plan(tab, plan));
  std::vector<double> C(n * n, 0.25);  // accumulates: start from a nonzero value
  table_crossprod(forced(tuning::route::amx), g.view(), tab, C.data(), n);
  // y and the bound's ingredients per call.
  auto y = [&](int64_t i, int64_t l) -> int {
    const int x = test::dosage(g, i, l);
    return x < 0 ? 0 : plan.flip[l] ? 2 - x : x;
  };
  double worst = 0, largest = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      long double exact = 0.25L;
      double Di = 0, Dj = 0, A = 0;
      for (int64_t l = 0; l < k; ++l) {
        exact += static_cast<long double>(tab[l][g.view().code(i, l)]) * tab[l][g.view().code(j, l)];
        const double w = plan.beta[l] * plan.beta[l];
        Di += w * y(i, l) * y(i, l), Dj += w * y(j, l) * y(j, l);
        A += (std::abs(plan.alpha[l]) + std::abs(plan.beta[l]) * y(i, l)) *
             (std::abs(plan.alpha[l]) + std::abs(plan.beta[l]) * y(j, l));
      }
      const double tol = std::ldexp(std::sqrt(Di * Dj), -47) + 1e-13 * A;
      const double err = std::abs(C[i * n + j] - static_cast<double>(exact));
      ASSERT_LE(err, tol) << n << "x" << k << " missing " << cs.missing << " kind " << int(cs.kind) << " C(" << i
                          << "," << j << ") = " << C[i * n + j] << " vs " << static_cast<double>(exact);
      if (tol > 0) worst = std::max(worst, err / tol);
      largest = std::max(largest, err);
    }
    for (int64_t j = i + 1; j < n; ++j) ASSERT_EQ(C[i * n + j], 0.25) << "upper triangle written";
  }
  std::printf("  %lld x %lld, missing %.2f, tables %d: largest error %.3g, largest error / bound %.3g\n",
              static_cast<long long>(n), static_cast<long long>(k), cs.missing, static_cast<int>(cs.kind), largest, worst);
}

}  // namespace

TEST(GrmAmx, PlanIsExactWhereItCanBe) {
  // Every weight of a standardised block is kept to 2^-47 relative, digits stay in [0, 127].
  const auto g = make_genotypes(200, 3000, 0.01, 11);
  const auto tab = make_tables(g, tables_kind::standardized, 11);
  kernels::cpu::affine_plan plan;
  ASSERT_TRUE(kernels::cpu::make_affine_plan(tab, plan));
  const int64_t np = plan.positions();
  int64_t placed = 0;
  for (const auto& gr : plan.groups) {
    ASSERT_EQ(gr.begin % 64, 0);
    ASSERT_EQ(gr.end % 64, 0);
    ASSERT_LE(gr.slices, kernels::cpu::affine_plan::max_slices);
    for (int64_t p = gr.begin; p < gr.end; ++p) {
      const int64_t l = plan.variant_at[p];
      if (l < 0) continue;
      ++placed;
      long double M = 0;
      for (int s = gr.slices - 1; s >= 0; --s) {
        ASSERT_LE(plan.digits[s * np + p], 127);
        M = M * 128 + plan.digits[s * np + p];
      }
      const long double w = static_cast<long double>(plan.beta[l]) * plan.beta[l];
      ASSERT_LE(std::abs(std::ldexp(M, gr.scale_exp) - w), std::ldexp(w, -47)) << "variant " << l;
    }
  }
  int64_t weighted = 0;
  for (int64_t l = 0; l < 3000; ++l) weighted += plan.beta[l] != 0;
  EXPECT_EQ(placed, weighted);
  // Non-affine tables and a nonzero missing entry are refused.
  std::vector<code_table> bad = {{1.0, 0.0, 0.2, -1.0}};
  EXPECT_FALSE(kernels::cpu::make_affine_plan(bad, plan));
  bad = {{1.0, 0.5, 0.0, -1.0}};
  EXPECT_FALSE(kernels::cpu::make_affine_plan(bad, plan));
}

class GrmAmxShapes : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, double>> {};

TEST_P(GrmAmxShapes, StandardizedMatchesLongDouble) {
  PMX_REQUIRE_AMX();
  const auto [n, k, miss] = GetParam();
  check_case({n, k, miss, tables_kind::standardized}, 100 * n + k);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GrmAmxShapes,
                         ::testing::Combine(::testing::Values(1, 5, 31, 33, 97), ::testing::Values(1, 63, 65, 700),
                                            ::testing::Values(0.0, 0.01, 0.3)));

TEST(GrmAmx, AcrossPanelsAndGroups) {
  PMX_REQUIRE_AMX();
  check_case({70, 2200, 0.01, tables_kind::standardized}, 1);  // k across the 2048 panel
  check_case({129, 300, 0.0, tables_kind::vanraden}, 2);
  check_case({64, 900, 0.05, tables_kind::wide_affine}, 3);  // many exponent groups, 8 digits
  check_case({301, 150, 0.3, tables_kind::standardized}, 4);
}

TEST(GrmAmx, RoutesAgreeOnGrm) {
  PMX_REQUIRE_AMX();
  // End to end: the standardised GRM with the route forced vs a long-double GRM (test_grm's bar).
  const int64_t n = 90, k = 700;
  test::temp_dir dir;
  const auto g = make_genotypes(n, k, 0.02, 9);
  write_fileset(dir.path("d"), g);
  plink_fileset data(dir.path("d"));
  grm_options opt;
  opt.block_variants = 256;
  const grm_result amx = compute_grm(forced(tuning::route::amx), data, opt, nullptr);
  const grm_result blas = compute_grm(forced(tuning::route::blas), data, opt, nullptr);
  const std::vector<long double> want = standardized_grm(g);
  for (int64_t i = 0; i < n * n; ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(amx.G[i]));
      continue;
    }
    ASSERT_NEAR(amx.G[i], static_cast<double>(want[i]), 1e-12) << i / n << "," << i % n;
    ASSERT_NEAR(blas.G[i], static_cast<double>(want[i]), 1e-12) << i / n << "," << i % n;
  }
}
