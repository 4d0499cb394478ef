// sample_sums (the GRM's accumulator op) against sums written out naively from the dosages:
// several blocks, blocks promised free of missing calls, a flush in the middle, every output.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "panoramix/error.hpp"
#include "panoramix/ops/sample_sums.hpp"
#include "test_support.hpp"

using namespace pmx;

TEST(SampleSums, MatchesNaiveSumsOnEveryHostBackend) {
  const int64_t n = 77;
  const std::vector<int64_t> blocks = {3, 250, 64, 129};
  std::vector<packed_genotypes> g;
  std::vector<std::vector<code_table>> c_tab, a_tab;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (size_t b = 0; b < blocks.size(); ++b) {
    g.push_back(test::random_genotypes(n, blocks[b], b == 1 ? 0.0 : 0.08, 40 + b, b == 0));
    c_tab.emplace_back(blocks[b]), a_tab.emplace_back(blocks[b]);
    for (int64_t l = 0; l < blocks[b]; ++l) {
      c_tab[b][l] = {u(rng), 0.0, u(rng), u(rng)};
      a_tab[b][l] = {u(rng), 0.0, u(rng), u(rng)};
    }
  }
  // Naive sums (long double for C and a).
  std::vector<int64_t> S(n * n, 0), N(n * n, 0);
  std::vector<long double> C(n * n, 0), a(n, 0);
  for (size_t b = 0; b < g.size(); ++b)
    for (int64_t l = 0; l < blocks[b]; ++l)
      for (int64_t i = 0; i < n; ++i) {
        const uint8_t ci = g[b].view().code(i, l);
        const int xi = test::dosage(g[b], i, l);
        a[i] += a_tab[b][l][ci];
        for (int64_t j = 0; j <= i; ++j) {
          const uint8_t cj = g[b].view().code(j, l);
          const int xj = test::dosage(g[b], j, l);
          if (xi >= 0 && xj >= 0) S[i * n + j] += xi * xj, N[i * n + j] += 1;
          C[i * n + j] += static_cast<long double>(c_tab[b][l][ci]) * c_tab[b][l][cj];
        }
      }
  for (const executor& e : {executor::reference(), executor(backend::cpu, 2)}) {
    std::vector<int32_t> gS(n * n, 1), gN(n * n, 1);
    std::vector<double> gC(n * n, 0.25), ga(n, -1.0);
    {
      sample_sums s(e, n, {.S = gS.data(), .N = gN.data(), .C = gC.data(), .ld = n, .a = ga.data()});
      EXPECT_STREQ(s.residence(), "host");
      for (size_t b = 0; b < g.size(); ++b) {
        s.add(g[b].view(), c_tab[b], a_tab[b], b != 1);
        if (b == 1) s.flush();
      }
      s.flush();
    }
    const std::string what = backend_name(e.kind());
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_NEAR(ga[i], static_cast<double>(a[i] - 1), 1e-12 * 64) << what << " a(" << i << ")";
      for (int64_t j = 0; j < n; ++j) {
        const int64_t at = i * n + j;
        if (j > i) {
          ASSERT_EQ(gS[at], 1) << what << ": upper triangle untouched";
          ASSERT_EQ(gC[at], 0.25) << what << ": upper triangle untouched";
          continue;
        }
        ASSERT_EQ(gS[at], S[at] + 1) << what << " S(" << i << "," << j << ")";
        ASSERT_EQ(gN[at], N[at] + 1) << what << " N(" << i << "," << j << ")";
        ASSERT_NEAR(gC[at], static_cast<double>(C[at] + 0.25L), 1e-12 * 64) << what << " C(" << i << "," << j << ")";
      }
    }
  }
}

TEST(SampleSums, RejectsMismatchedInput) {
  std::vector<int32_t> S(16);
  sample_sums s(executor(backend::cpu, 1), 4, {.S = S.data(), .ld = 4});
  const auto g = test::random_genotypes(5, 3, 0.0, 1);
  EXPECT_THROW(s.add(g.view(), {}, {}), pmx::error);
  EXPECT_THROW(sample_sums(executor(backend::cpu, 1), 4, {.S = S.data(), .ld = 3}), pmx::error);
}
