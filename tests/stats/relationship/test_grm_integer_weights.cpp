// The plan of the cuda int8 route of the standardised GRM (src/ops/sample_sums/integer_weights.hpp),
// checked on the host so that CI, which has no GPU, runs it: the digits keep every weight to 2^-44
// and lie in [−64, 63]; every nonzero digit lies in exactly one product of its position; and the
// product the plan describes, with its integer sums computed here exactly (int64) and scaled and
// added in double as the device does, equals a long-double Σ_l T_l[code_il] T_l[code_jl] within
// the header's bound 2^-44 sqrt(D_i D_j) + 1e-13 A_ij (test_grm_amx.cpp's form, with 44 bits). The device
// route itself is tested by test_cuda_grm_int8.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "integer_route_cases.hpp"
#include "ops/sample_sums/integer_weights.hpp"
#include "ops/table_products/affine_table.hpp"

using namespace pmx;
using namespace pmx::integer_route_cases;
using kernels::integer_weight_plan;

namespace {

// y of sample i at the plan's column c (0 for padding and missing calls).
int y_at(const packed_genotypes& g, const integer_weight_plan& plan, int64_t i, int64_t c) {
  const int32_t l = plan.variant_at[c];
  if (l < 0) return 0;
  const int x = test::dosage(g, i, l);
  return x < 0 ? 0 : plan.counts_a2[c] ? 2 - x : x;
}

void check_digits(const std::vector<code_table>& tab, const integer_weight_plan& plan) {
  using P = integer_weight_plan;
  ASSERT_EQ(plan.columns % P::column_align, 0);
  const int T = plan.positions();
  std::vector<int> placed(tab.size(), 0);
  for (int64_t c = 0; c < plan.columns; ++c) {
    const int32_t l = plan.variant_at[c];
    long double w_hat = 0;
    for (int t = 0; t < T; ++t) {
      const int d = plan.digits[t * plan.columns + c];
      ASSERT_GE(d, -64);
      ASSERT_LE(d, 63);
      if (l < 0) {
        ASSERT_EQ(d, 0) << "padding column " << c << " has a digit";
      }
      w_hat += std::ldexp(static_cast<long double>(d), 7 * (plan.bottom + t));
      // Exactly one product of position t covers a nonzero digit.
      int covering = 0;
      for (const auto& pr : plan.products)
        if (pr.position == plan.bottom + t && c >= pr.begin && c < pr.end) ++covering;
      if (d != 0) {
        ASSERT_EQ(covering, 1) << "column " << c << " position " << plan.bottom + t;
      }
      ASSERT_LE(covering, 1);
    }
    if (l < 0) continue;
    ++placed[l];
    const long double b = (static_cast<long double>(tab[l][code_hom_a1]) - tab[l][code_hom_a2]) / 2, w = b * b;
    ASSERT_LE(std::abs(w_hat - w), std::ldexp(w, -integer_weight_plan::weight_bits)) << "variant " << l;
  }
  for (size_t l = 0; l < tab.size(); ++l) {
    const bool weighted = tab[l][code_hom_a1] != tab[l][code_hom_a2];
    ASSERT_EQ(placed[l], weighted ? 1 : 0) << "variant " << l << " placed " << placed[l] << " times";
  }
  for (const auto& pr : plan.products) {
    ASSERT_EQ(pr.begin % P::column_align, 0);
    ASSERT_EQ(pr.end % P::column_align, 0);
    ASSERT_LT(pr.begin, pr.end);
    ASSERT_LE(pr.end, plan.columns);
  }
}

// C = P + h_i + h_j + Σα² from the plan (exact int64 sums per position, double as on the device)
// against the long-double product of the tables.
void check_emulated_product(const packed_genotypes& g, const std::vector<code_table>& tab,
                            const integer_weight_plan& plan, const char* what) {
  const int64_t n = g.n_samples(), k = g.n_variants();
  std::vector<double> h(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < plan.columns; ++c) h[i] += plan.row_weight[c] * y_at(g, plan, i, c);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double P = 0;
      for (const auto& pr : plan.products) {
        int64_t s = 0;
        const int8_t* d = plan.digits.data() + (pr.position - plan.bottom) * plan.columns;
        for (int64_t c = pr.begin; c < pr.end; ++c) s += y_at(g, plan, i, c) * d[c] * y_at(g, plan, j, c);
        P += std::ldexp(static_cast<double>(s), 7 * pr.position);
      }
      const double got = P + (h[i] + h[j]) + 2 * plan.row_constant;
      long double exact = 0;
      double Di = 0, Dj = 0, A = 0;
      for (int64_t l = 0; l < k; ++l) {
        exact += static_cast<long double>(tab[l][g.view().code(i, l)]) * tab[l][g.view().code(j, l)];
        kernels::affine_form f;
        ASSERT_TRUE(kernels::affine_form_of(tab[l], f));
        const int yi = f.y(g.view().code(i, l)), yj = f.y(g.view().code(j, l));
        const double w = f.beta * f.beta;
        Di += w * yi * yi, Dj += w * yj * yj;
        A += (std::abs(f.alpha) + std::abs(f.beta) * yi) * (std::abs(f.alpha) + std::abs(f.beta) * yj);
      }
      const double tol = std::ldexp(std::sqrt(Di * Dj), -integer_weight_plan::weight_bits) + 1e-13 * A;
      const double err = std::abs(got - static_cast<double>(exact));
      ASSERT_LE(err, tol) << what << " C(" << i << "," << j << ") = " << got << " vs " << static_cast<double>(exact);
      if (tol > 0) worst = std::max(worst, err / tol);
    }
  std::printf("  %s: largest error / bound %.3g\n", what, worst);
}

}  // namespace

TEST(GrmIntegerWeights, DigitsKeepEveryWeight) {
  for (auto kind : {tables_kind::standardized, tables_kind::vanraden, tables_kind::wide_affine}) {
    const auto g = make_genotypes(200, 3000, 0.0, 11);
    const auto tab = make_tables(g, kind, 11);
    integer_weight_plan plan;
    ASSERT_TRUE(kernels::make_integer_weight_plan(tab, plan));
    check_digits(tab, plan);
    if (::testing::Test::HasFatalFailure()) return;
    // A weight takes 7 or 8 digits; the wide tables (w from 2^-24 to 2^24) need more positions
    // than the device's 10 sums, which the route handles by turning sums into doubles early.
    int64_t work = 0;
    for (const auto& pr : plan.products) work += pr.end - pr.begin;
    std::printf("  tables %d: positions %d..%d, %zu products, %lld columns, work %.2f columns' worth\n",
                static_cast<int>(kind), plan.bottom, plan.top, plan.products.size(),
                static_cast<long long>(plan.columns), double(work) / double(plan.columns));
    if (kind == tables_kind::wide_affine) {
      EXPECT_GT(plan.positions(), 10);
    }
  }
}

TEST(GrmIntegerWeights, EmulatedProductMatchesLongDouble) {
  struct spec {
    int64_t n, k;
    tables_kind kind;
    const char* what;
  };
  for (const spec& s : {spec{1, 5, tables_kind::standardized, "1 x 5 standardized"},
                        spec{33, 700, tables_kind::standardized, "33 x 700 standardized"},
                        spec{40, 300, tables_kind::vanraden, "40 x 300 vanraden"},
                        spec{31, 400, tables_kind::wide_affine, "31 x 400 wide affine"}}) {
    const auto g = make_called_genotypes(s.n, s.k, s.n + s.k);
    const auto tab = make_tables(g, s.kind, s.n);
    integer_weight_plan plan;
    ASSERT_TRUE(kernels::make_integer_weight_plan(tab, plan));
    check_emulated_product(g, tab, plan, s.what);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(GrmIntegerWeights, ZeroAndConstantTables) {
  // β = 0: no column; only the constant α²/2 per variant reaches h.
  const std::vector<code_table> tab = {{0.0, 0.0, 0.0, 0.0}, {1.5, 0.0, 1.5, 1.5}, {-2.0, 0.0, -2.0, -2.0}};
  integer_weight_plan plan;
  ASSERT_TRUE(kernels::make_integer_weight_plan(tab, plan));
  EXPECT_EQ(plan.columns, 0);
  EXPECT_TRUE(plan.products.empty());
  EXPECT_DOUBLE_EQ(plan.row_constant, (1.5 * 1.5 + 2.0 * 2.0) / 2);
}

TEST(GrmIntegerWeights, RefusesTablesThatAreNotAffine) {
  integer_weight_plan plan;
  const std::vector<code_table> bent = {{1.0, 0.0, 0.2, -1.0}};
  EXPECT_FALSE(kernels::make_integer_weight_plan(bent, plan));
  const std::vector<code_table> missing_nonzero = {{1.0, 0.5, 0.0, -1.0}};
  EXPECT_FALSE(kernels::make_integer_weight_plan(missing_nonzero, plan));
  const std::vector<code_table> infinite = {{HUGE_VAL, 0.0, 0.0, -1.0}};
  EXPECT_FALSE(kernels::make_integer_weight_plan(infinite, plan));
}
