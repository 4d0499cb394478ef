// crossprod and table products (allele_counts: test_allele_counts.cpp): hand-checked values on the
// reference backend, the sample-major transpose, then the cpu backend against the reference on the
// cases shared with the cuda backend's test (crossprod_cases.hpp on every instruction set,
// table_products_cases.hpp; the AMX table products: test_grm_amx.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crossprod_cases.hpp"
#include "ops/crossprod/popcount_tiles.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/ops/table_products.hpp"
#include "table_products_cases.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

const executor ref = executor::reference();
const executor cpu(backend::cpu, 2);

// The reference is the cpu backend's only oracle. The shared cases whose check costs more than
// these (check_cost in crossprod_cases.hpp, table_case::cost: about 2 ns and 1 ns a unit) run on
// cuda alone (test_cuda_ops.cpp), which keeps this test's time.
const crossprod_cases::oracle crossprod_oracle{.cost_limit = 8'000'000};
const crossprod_cases::oracle long_rows_oracle{.cost_limit = 10'000'000};  // 40,000 calls: 3 chunks
const crossprod_cases::oracle sparse_pairs_oracle{.cost_limit = 60'000'000};
const table_products_cases::oracle table_oracle{.cost_limit = 40'000'000};

const std::vector<int64_t> sample_sizes = {1, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 301};
const std::vector<int64_t> variant_sizes = {1, 2, 5, 31, 32, 33, 64, 65, 129, 700};

// 3 samples x 4 variants, dosages (missing = -1):
//   s0:  2  1 -1  0
//   s1:  0  1  2  2
//   s2: -1  2  2  1
packed_genotypes hand_example() {
  const int x[3][4] = {{2, 1, -1, 0}, {0, 1, 2, 2}, {-1, 2, 2, 1}};
  packed_genotypes g(3, 4);
  for (int i = 0; i < 3; ++i)
    for (int l = 0; l < 4; ++l)
      g.set(i, l, x[i][l] < 0 ? code_missing : x[i][l] == 2 ? code_hom_a1 : x[i][l] == 1 ? code_het : code_hom_a2);
  return g;
}

}  // namespace

// Rows of a few samples gathered alone equal the same rows of the whole transpose, padding words
// included (sample counts not a multiple of 4, variants not a multiple of 32, 1 and 3 threads).
TEST(Transpose, SampleRowsGatheredAloneEqualTheTransposeRows) {
  for (int64_t n : {1, 7, 130}) {
    const auto g = test::random_genotypes(n, 77, 0.1, 3 + n);
    const auto all = transpose_to_sample_major(g.view(), 2);
    const std::vector<int64_t> pick = n == 1 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 3, n / 2, n - 1};
    for (int threads : {1, 3}) {
      const auto some = sample_major_rows(g.view(), pick, threads);
      ASSERT_EQ(some.n_rows(), static_cast<int64_t>(pick.size()));
      ASSERT_EQ(some.row_words(), all.row_words());
      for (size_t r = 0; r < pick.size(); ++r)
        for (int64_t w = 0; w < all.row_words(); ++w)
          ASSERT_EQ(some.view().row(static_cast<int64_t>(r))[w], all.view().row(pick[r])[w])
              << "n = " << n << ", sample " << pick[r] << ", word " << w;
    }
  }
}

TEST(ReferenceOps, HandExample) {
  const auto g = hand_example();
  const auto t = transpose_to_sample_major(g.view(), 1);
  std::vector<int32_t> S(9, 0), N(9, 0);
  crossprod_symmetric(ref, t.view(), {.S = S.data(), .N = N.data(), .ld = 3});
  // S = Σ x_i x_j over jointly called; N = jointly called count (lower triangle).
  EXPECT_EQ(S[0], 4 + 1 + 0);          // s0·s0
  EXPECT_EQ(S[3], 0 + 1 + 0);          // s1·s0
  EXPECT_EQ(S[4], 0 + 1 + 4 + 4);      // s1·s1
  EXPECT_EQ(S[6], 2 + 0);              // s2·s0 (variants 1 and 3)
  EXPECT_EQ(S[7], 2 + 4 + 2);          // s2·s1
  EXPECT_EQ(N[0], 3);
  EXPECT_EQ(N[3], 3);
  EXPECT_EQ(N[6], 2);
  EXPECT_EQ(N[7], 3);
  EXPECT_EQ(N[8], 3);

  // Table crossprod with z = dosage (missing 0) reproduces S.
  std::vector<code_table> tab(4, code_table{2, 0, 1, 0});
  std::vector<double> C(9, 0);
  table_crossprod(ref, g.view(), tab, C.data(), 3);
  EXPECT_DOUBLE_EQ(C[7], 8);
  std::vector<double> y(3, 0);
  table_rowsums(ref, g.view(), tab, y);
  EXPECT_DOUBLE_EQ(y[0], 3);
  EXPECT_DOUBLE_EQ(y[2], 5);
  // missing_crossprod: Y[j][i] = Σ_{l: j missing} z_il; s0 misses variant 2, s2 misses variant 0.
  std::vector<double> Y(9, 0), R(9, 0), r = {10, 20, 30, 40};
  missing_crossprod(ref, g.view(), tab, r, Y.data(), R.data(), 3);
  EXPECT_DOUBLE_EQ(Y[0 * 3 + 1], 2);  // z(s1, v2)
  EXPECT_DOUBLE_EQ(Y[0 * 3 + 2], 2);  // z(s2, v2)
  EXPECT_DOUBLE_EQ(Y[2 * 3 + 0], 2);  // z(s0, v0)
  EXPECT_DOUBLE_EQ(Y[2 * 3 + 1], 0);  // z(s1, v0)
  EXPECT_DOUBLE_EQ(R[0], 30);
  EXPECT_DOUBLE_EQ(R[8], 10);
  EXPECT_DOUBLE_EQ(R[6], 0);
}

TEST(Transpose, MatchesCodesAndPadsWithMissing) {
  for (int64_t n : sample_sizes)
    for (int64_t k : variant_sizes) {
      const auto g = test::random_genotypes(n, k, 0.1, 100 * n + k);
      const auto t = transpose_to_sample_major(g.view(), 2);
      const auto v = t.view();
      ASSERT_EQ(v.n_rows, n);
      ASSERT_EQ(v.n_cols, k);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t l = 0; l < k; ++l) ASSERT_EQ(v.code(i, l), g.view().code(i, l)) << n << "x" << k;
        for (int64_t l = k; l < v.row_words * 32; ++l) ASSERT_EQ(v.code(i, l), code_missing);
      }
    }
}

// Every instruction set the CPU supports (AVX-512, AVX2, scalar) against the reference, on the
// cases of crossprod_cases.hpp.
class CrossprodIsa : public ::testing::TestWithParam<std::string> {
 protected:
  const executor cpu = test::cpu_with_isa(GetParam(), 2);  // the tests' `cpu`, on this build
};

TEST_P(CrossprodIsa, SymmetricMatchesReferenceExactly) {
  RecordProperty("cases", crossprod_cases::every_symmetric_case(cpu, crossprod_oracle));
}

TEST_P(CrossprodIsa, RectangularMatchesReferenceExactly) {
  RecordProperty("cases", crossprod_cases::every_rectangular_case(cpu, crossprod_oracle));
}

TEST_P(CrossprodIsa, SubsetsOfOutputsAndLeadingDimension) {
  RecordProperty("cases", crossprod_cases::every_subset_case(cpu, crossprod_oracle));
}

TEST_P(CrossprodIsa, LongRowsCrossChunks) {
  RecordProperty("cases", crossprod_cases::every_long_rows_case(cpu, long_rows_oracle));
}

TEST_P(CrossprodIsa, SparsePairCountsMatchReference) {
  RecordProperty("cases", crossprod_cases::every_sparse_pairs_case(cpu, sparse_pairs_oracle));
}

std::vector<std::string> isa_names() {
  std::vector<std::string> names;
  for (const auto& t : kernels::cpu::supported_popcount_tiles()) names.push_back(t.isa);
  return names;
}
INSTANTIATE_TEST_SUITE_P(SupportedIsas, CrossprodIsa, ::testing::ValuesIn(isa_names()),
                         [](const auto& info) { return info.param; });

TEST(CpuBackend, TableProductsMatchReference) {
  RecordProperty("cases", table_products_cases::every_case(cpu, table_oracle));
}
