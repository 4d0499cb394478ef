// allele_counts on the reference backend (a hand-checked example, counts from the dosages) and the
// cpu backend against the reference on every case of allele_counts_cases.hpp.
#include <gtest/gtest.h>

#include "allele_counts_cases.hpp"
#include "panoramix/error.hpp"

using namespace pmx;

TEST(AlleleCounts, ReferenceHandExample) {
  // 3 samples x 4 variants, dosages (missing = -1):  s0: 2 1 -1 0,  s1: 0 1 2 2,  s2: -1 2 2 1.
  const int x[3][4] = {{2, 1, -1, 0}, {0, 1, 2, 2}, {-1, 2, 2, 1}};
  packed_genotypes g(3, 4);
  for (int i = 0; i < 3; ++i)
    for (int l = 0; l < 4; ++l)
      g.set(i, l, x[i][l] < 0 ? code_missing : x[i][l] == 2 ? code_hom_a1 : x[i][l] == 1 ? code_het : code_hom_a2);
  std::vector<variant_counts> c(4);
  allele_counts(executor::reference(), g.view(), {}, c);
  EXPECT_EQ(c[0], (variant_counts{1, 0, 1, 1}));
  EXPECT_EQ(c[1], (variant_counts{1, 2, 0, 0}));
  EXPECT_EQ(c[2], (variant_counts{2, 0, 0, 1}));
  EXPECT_EQ(c[3], (variant_counts{1, 1, 1, 0}));
  const std::vector<uint8_t> mask = {1, 0, 1};
  allele_counts(executor::reference(), g.view(), mask, c);
  EXPECT_EQ(c[0], (variant_counts{1, 0, 0, 1}));
  EXPECT_EQ(c[3], (variant_counts{0, 1, 1, 0}));
}

TEST(AlleleCounts, ReferenceMatchesCountsFromDosages) {
  for (int64_t n : allele_counts_cases::sample_sizes)
    for (int64_t k : allele_counts_cases::variant_sizes) {
      const auto g = test::random_genotypes(n, k, 0.1, 7 * n + k);
      for (const auto& m : allele_counts_cases::masks(n)) {
        std::vector<variant_counts> c(static_cast<size_t>(k));
        allele_counts(executor::reference(), g.view(), m, c);
        ASSERT_EQ(c, allele_counts_cases::by_dosage(g, m)) << n << "x" << k;
      }
    }
}

TEST(AlleleCounts, CpuMatchesReference) {
  allele_counts_cases::every_case(executor(backend::cpu, 2));
  allele_counts_cases::every_case(executor(backend::cpu, 1));
}

TEST(AlleleCounts, RejectsMismatchedInput) {
  const auto g = test::random_genotypes(5, 3, 0.0, 1);
  std::vector<variant_counts> c(3), short_out(2);
  const std::vector<uint8_t> bad_mask(4, 1);
  for (const executor& e : {executor::reference(), executor(backend::cpu, 1)}) {
    EXPECT_THROW(allele_counts(e, g.view(), bad_mask, c), pmx::error);
    EXPECT_THROW(allele_counts(e, g.view(), {}, short_out), pmx::error);
  }
}
