// The cpu AMX-INT8 route of normwise operands (gemm_accuracy::normwise; cpu_amx.hpp) against the
// reference backend (long double), with the route's documented bound taken 4x looser
// (gemm_cases.hpp): partial sample blocks (256) and variant blocks (128), partial 64-item steps
// and chunks (1,024 variants, 2,048 samples), no / some / many missing calls, l = 1 .. 33 (odd
// digit-tile counts padded), mixed magnitudes in Λ, scales, arbitrary p, β, leading dimensions.
// PMX_GEMM_INT8=require makes a silent fallback to the componentwise kernels an error; the tests
// skip, saying so, on CPUs without AMX-INT8 and AVX-512 VBMI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gemm_cases.hpp"
#include "ops/genotype_gemm/cpu_amx.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/genotype_gemm.hpp"

using namespace pmx;
using namespace pmx::gemm_cases;

namespace {

#define PMX_REQUIRE_AMX()                                                                              \
  do {                                                                                                 \
    if (!kernels::cpu::gemm_amx_applies(1)) GTEST_SKIP() << "no usable AMX-INT8 / AVX-512 VBMI here"; \
  } while (0)

// A cpu executor whose normwise products must take the INT8 route (or fail).
executor int8_executor(int threads, tuning::int8 setting = tuning::int8::require) {
  tuning t;
  t.gemm_int8 = setting;
  return executor(backend::cpu, threads, t);
}

void check(const data& d, const gemm_operand& op, bool beta_nonzero, const std::string& tag) {
  const gemm_centring c{d.p, d.s};
  check_normwise_case(d, beta_nonzero ? -1.5 : 0.0, "amx " + tag,
                      [&](double beta, std::vector<double>& Y, int64_t ld_y, std::vector<double>& W, int64_t ld_w) {
                        gemm(op, c, d.l, d.lambda.data(), d.ld_a, beta, Y.data(), ld_y);
                        gemm_transposed(op, c, d.l, d.lambda_t.data(), d.ld_b, beta, W.data(), ld_w);
                      });
}

}  // namespace

TEST(GemmNormwiseCpu, AmxRouteMeetsItsBound) {
  PMX_REQUIRE_AMX();
  struct shape {
    int64_t n, k, l;
    double missing;
  };
  const shape shapes[] = {{1, 1, 1, 0.0},     {7, 5, 2, 0.3},      {65, 63, 3, 0.0},    {513, 129, 10, 0.05},
                          {1000, 1100, 1, 0.6}, {2100, 300, 5, 0.0}, {300, 2100, 33, 0.02}, {4500, 1030, 2, 0.01},
                          // Z·Λ's first block sums > 260,000 sparse missing calls (1.5 % of 256 × 80,000):
                          // its int32 sums move to int64 on the way
                          {300, 80000, 1, 0.015},
                          // and Zᵀ·Λ̃'s sums of a variant, once they have covered 260,000 samples
                          {270000, 40, 2, 0.015}};
  uint64_t seed = 501;
  for (const auto& s : shapes) {
    const data d = make(s.n, s.k, s.l, s.missing, seed % 2 == 0, seed % 3 != 1, seed);
    for (int threads : {1, 2}) {
      const gemm_operand op(int8_executor(threads), d.g.view(), gemm_accuracy::normwise);
      check(d, op, seed % 2 == 1, "threads=" + std::to_string(threads));
      if (HasFatalFailure()) return;
    }
    ++seed;
  }
}

// Integer sums: the same bits whatever the thread count; PMX_GEMM_INT8=0 gives the componentwise
// kernels' results (the same bits as a componentwise operand).
TEST(GemmNormwiseCpu, DeterministicAndSwitchable) {
  PMX_REQUIRE_AMX();
  const data d = make(3000, 1500, 4, 0.02, true, true, 9);
  const gemm_centring c{d.p, d.s};
  auto run = [&](int threads, gemm_accuracy acc, tuning::int8 setting = tuning::int8::automatic) {
    const gemm_operand op(int8_executor(threads, setting), d.g.view(), acc);
    std::vector<double> Y(static_cast<size_t>(d.n * d.l)), W(static_cast<size_t>(d.k * d.l));
    gemm(op, c, d.l, d.lambda.data(), d.ld_a, 0.0, Y.data(), d.l);
    gemm_transposed(op, c, d.l, d.lambda_t.data(), d.ld_b, 0.0, W.data(), d.l);
    Y.insert(Y.end(), W.begin(), W.end());
    return Y;
  };
  const auto a = run(1, gemm_accuracy::normwise), b = run(2, gemm_accuracy::normwise);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * 8));
  const auto off = run(2, gemm_accuracy::normwise, tuning::int8::off);
  const auto cw = run(2, gemm_accuracy::componentwise);
  EXPECT_EQ(0, std::memcmp(off.data(), cw.data(), off.size() * 8));
}
