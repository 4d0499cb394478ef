// lmm_search on the reference and cpu backends against the dense oracles of lmm_search_cases.hpp,
// and against each other (the same host search: the same bits on 1 and 2 threads).
#include <gtest/gtest.h>

#include "lmm_search_cases.hpp"
#include "panoramix/error.hpp"

using namespace pmx;

TEST(LmmSearch, EveryCaseMatchesDenseOracleOnReferenceAndCpu) {
  for (const auto& p : lmm_search_cases::every_case()) {
    const auto ref = lmm_search_cases::expect_fits(executor::reference(), p, p.Xt.data());
    const auto cpu = lmm_search_cases::expect_fits(executor(backend::cpu, 2), p, p.Xt.data());
    for (size_t j = 0; j < ref.size(); ++j) {
      EXPECT_EQ(static_cast<int>(cpu[j].status), static_cast<int>(ref[j].status)) << j;
      if (ref[j].status != lmm_fit_status::tested) continue;
      EXPECT_EQ(cpu[j].lambda, ref[j].lambda) << lmm_search_cases::where(p, j);
      EXPECT_EQ(cpu[j].beta, ref[j].beta) << lmm_search_cases::where(p, j);
      EXPECT_EQ(cpu[j].p, ref[j].p) << lmm_search_cases::where(p, j);
    }
  }
}

TEST(LmmSearch, NullModelIsTheDenseMaximum) {
  // The null model [W | y]: its λ maximises the dense likelihood of y on W alone, checked as the
  // variants' λ are (a model with x = the first covariate's copy would be singular, so W's first
  // column stands in as x and the rest as W).
  const auto p = lmm_search_cases::make(300, 3, 3, 9);
  const lmm_search_operand model(executor(backend::cpu, 2), p.n, p.c, p.d.data(), p.Wy.data());
  lmm_search_cases::problem q = p;
  q.c = p.c - 1;
  q.Wy.erase(q.Wy.begin() + (p.c - 1) * p.n, q.Wy.begin() + p.c * p.n);  // W without its last column
  const double* x = p.Wy.data() + (p.c - 1) * p.n;                         // which plays x
  const auto at = lmm_search_cases::dense_fit(q, x, model.null().lambda);
  EXPECT_NEAR(model.null().logl, at.logl, 1e-10 * std::fabs(at.logl));
  for (double step : {0.999, 1.001})
    EXPECT_LE(lmm_search_cases::dense_fit(q, x, model.null().lambda * step).logl, at.logl + 1e-12 * std::fabs(at.logl));
}

TEST(LmmSearch, BadArgumentsAreRefused) {
  const auto p = lmm_search_cases::make(40, 1, 3, 5);
  const executor e(backend::cpu, 1);
  EXPECT_THROW(lmm_search_operand(e, 2, 1, p.d.data(), p.Wy.data()), error);  // n ≤ c + 1
  EXPECT_THROW(lmm_search_operand(e, p.n, 0, p.d.data(), p.Wy.data()), error);  // no intercept
  const lmm_search_operand model(e, p.n, p.c, p.d.data(), p.Wy.data());
  std::vector<lmm_variant_fit> out(3);
  EXPECT_THROW(lmm_fit_variants(model, 3, p.Xt.data(), p.n - 1, p.test.data(), NAN, out.data()), error);
  EXPECT_THROW(lmm_fit_variants(model, 3, p.Xt.data(), p.ldx(), p.test.data(), -1.0, out.data()), error);
}
