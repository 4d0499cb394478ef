// GRM statistics against an independent oracle computed here from decoded dosages in long
// double: PLINK's pairwise variance-standardised relationship and VanRaden's method 1. Both
// backends, streaming over several variant blocks, with adversarial content.
#include <gtest/gtest.h>

#include <cmath>

#include "panoramix/grm.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

struct fixture_data {
  test::temp_dir dir;
  std::string prefix;
  packed_genotypes g;
  std::vector<bool> founder;
};

// n samples, k variants, 6 % missing; variant 0 all missing, variant 1 monomorphic; sample 2 a
// nonfounder (excluded from frequencies, as in PLINK); variant 2 called only in sample 2.
void make_data(fixture_data& d, int64_t n, int64_t k) {
  d.g = test::random_genotypes(n, k, 0.06, 1234 + n + k);
  for (int64_t i = 0; i < n; ++i) d.g.set(i, 2, code_missing);
  d.g.set(2, 2, code_hom_a1);
  std::vector<sample_record> s(n);
  d.founder.assign(n, true);
  for (int64_t i = 0; i < n; ++i) {
    s[i] = {"f", "s" + std::to_string(i), "0", "0", 1, "-9"};
    if (i == 2) {
      s[i].father = "s0";
      s[i].mother = "s1";
      d.founder[i] = false;
    }
  }
  std::vector<variant_record> v(k);
  for (int64_t l = 0; l < k; ++l) v[l] = {"1", "v" + std::to_string(l), 0, 100 * l + 1, "A", "C"};
  d.prefix = d.dir.path("data");
  write_plink_fileset(d.prefix, s, v, d.g.view());
}

std::vector<long double> oracle(const fixture_data& d, grm_method method) {
  const int64_t n = d.g.n_samples(), k = d.g.n_variants();
  std::vector<long double> p(k);
  for (int64_t l = 0; l < k; ++l) {
    long double sum = 0, cnt = 0;
    for (int64_t i = 0; i < n; ++i)
      if (d.founder[i] && test::dosage(d.g, i, l) >= 0) sum += test::dosage(d.g, i, l), cnt += 2;
    p[l] = cnt > 0 ? sum / cnt : 0.5L;  // PLINK: no founder call -> 0.5
  }
  std::vector<long double> G(n * n, 0), N(n * n, 0);
  long double denom = 0;
  for (int64_t l = 0; l < k; ++l) denom += 2 * p[l] * (1 - p[l]);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t l = 0; l < k; ++l) {
        const int a = test::dosage(d.g, i, l), b = test::dosage(d.g, j, l);
        if (a < 0 || b < 0) continue;
        N[i * n + j] += 1;
        const long double q = 2 * p[l];
        long double w = 1;
        if (method == grm_method::standardized)
          w = (p[l] > 0 && p[l] < 1) ? 1 / (2 * p[l] * (1 - p[l])) : 0;
        G[i * n + j] += w * (a - q) * (b - q);
      }
      G[i * n + j] /= method == grm_method::standardized ? N[i * n + j] : denom;
    }
  return G;
}

}  // namespace

class GrmOracle : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, grm_method, backend>> {};

TEST_P(GrmOracle, MatchesDirectComputation) {
  const auto [n, k, method, kind] = GetParam();
  fixture_data d;
  make_data(d, n, k);
  plink_fileset data(d.prefix);
  grm_options opt;
  opt.method = method;
  opt.block_variants = 64;  // several blocks: streaming must not change the result
  const grm_result r = compute_grm(executor(kind, 2), data, opt, nullptr);
  const auto G = oracle(d, method);
  ASSERT_EQ(r.G.size(), G.size());
  for (int64_t i = 0; i < n * n; ++i) {
    if (std::isnan(double(G[i]))) ASSERT_TRUE(std::isnan(r.G[i])) << "entry " << i << ": no jointly called variant";
    else ASSERT_NEAR(r.G[i], double(G[i]), 1e-12) << "entry " << i;
  }
  // Pair counts: jointly called variants.
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t c = 0;
      for (int64_t l = 0; l < k; ++l) c += test::dosage(d.g, i, l) >= 0 && test::dosage(d.g, j, l) >= 0;
      ASSERT_EQ(r.N[i * n + j], c);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GrmOracle,
    ::testing::Combine(::testing::Values(3, 33, 70), ::testing::Values(3, 65, 200),
                       ::testing::Values(grm_method::standardized, grm_method::vanraden),
                       ::testing::Values(backend::reference, backend::cpu)));

TEST(Grm, NoMissingUsesConstantCounts) {
  // Without missing calls the counts are the variant count and VanRaden is exact integer + rank one.
  test::temp_dir dir;
  const auto g = test::random_genotypes(40, 100, 0.0, 3, false);
  std::vector<sample_record> s(40);
  for (int i = 0; i < 40; ++i) s[i] = {"f", "s" + std::to_string(i), "0", "0", 1, "-9"};
  std::vector<variant_record> v(100);
  for (int l = 0; l < 100; ++l) v[l] = {"1", "v" + std::to_string(l), 0, l + 1, "A", "C"};
  write_plink_fileset(dir.path("d"), s, v, g.view());
  plink_fileset data(dir.path("d"));
  grm_options opt;
  opt.method = grm_method::vanraden;
  const auto a = compute_grm(executor(backend::cpu, 2), data, opt, nullptr);
  const auto b = compute_grm(executor::reference(), data, opt, nullptr);
  for (size_t i = 0; i < a.G.size(); ++i) {
    ASSERT_EQ(a.N[i], 100);
    ASSERT_NEAR(a.G[i], b.G[i], 1e-12);
  }
}
