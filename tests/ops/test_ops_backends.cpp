// crossprod and table products (allele_counts: test_allele_counts.cpp): hand-checked values on the
// reference backend, then the cpu backend against reference on random and adversarial shapes
// (sizes around multiples of 4/32/64/128, one sample, one variant, all-missing and monomorphic
// variants).
#include <gtest/gtest.h>

#include <cmath>

#include "panoramix/ops/crossprod.hpp"
#include "panoramix/ops/table_products.hpp"
#include "ops/crossprod/popcount_tiles.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

const executor ref = executor::reference();
const executor cpu(backend::cpu, 2);

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

namespace {
struct crossprod_sums {
  std::vector<int32_t> S, N, U, V, Ut, Vt;
  crossprod_sums(int64_t rows, int64_t cols, int32_t init)
      : S(rows * cols, init), N(rows * cols, init), U(rows * cols, init), V(rows * cols, init),
        Ut(rows * cols, init), Vt(rows * cols, init) {}
  crossprod_outputs outputs(int64_t ld, bool transposed = false) {
    return {S.data(), N.data(), U.data(), V.data(), transposed ? Ut.data() : nullptr,
            transposed ? Vt.data() : nullptr, ld};
  }
};
}  // namespace

// Every instruction set the CPU supports (AVX-512, AVX2, scalar) against the reference.
class CrossprodIsa : public ::testing::TestWithParam<std::string> {
 protected:
  const executor cpu = test::cpu_with_isa(GetParam(), 2);  // the tests' `cpu`, on this build
};

TEST_P(CrossprodIsa, SymmetricMatchesReferenceExactly) {
  for (int64_t n : sample_sizes)
    for (int64_t k : variant_sizes) {
      if (n * n * k > 30'000'000) continue;
      const auto g = test::random_genotypes(n, k, 0.07, 31 * n + k);
      const auto t = transpose_to_sample_major(g.view(), 2);
      crossprod_sums r(n, n, 0), c(n, n, 5);
      crossprod_symmetric(ref, t.view(), r.outputs(n));
      crossprod_symmetric(cpu, t.view(), c.outputs(n));  // accumulates onto 5
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const int64_t at = i * n + j;
          if (j <= i) {
            ASSERT_EQ(r.S[at] + 5, c.S[at]) << n << "x" << k << " S(" << i << "," << j << ")";
            ASSERT_EQ(r.N[at] + 5, c.N[at]) << n << "x" << k << " N(" << i << "," << j << ")";
          } else {
            ASSERT_EQ(c.S[at], 5) << "upper triangle of S must stay untouched";
            ASSERT_EQ(c.N[at], 5);
          }
          ASSERT_EQ(r.U[at] + 5, c.U[at]) << n << "x" << k << " U(" << i << "," << j << ")";
          ASSERT_EQ(r.V[at] + 5, c.V[at]) << n << "x" << k << " V(" << i << "," << j << ")";
        }
    }
}

TEST_P(CrossprodIsa, RectangularMatchesReferenceExactly) {
  for (int64_t ra : {1, 5, 33, 70})
    for (int64_t rb : {1, 4, 67, 130})
      for (int64_t cols : {1, 31, 33, 257, 1100}) {
        const auto a = test::random_genotypes(cols, ra, 0.05, ra * 7 + cols);
        const auto b = test::random_genotypes(cols, rb, 0.05, rb * 11 + cols + 1);
        // Rows = variants: the .bed rows re-aligned to words (the LD orientation).
        const auto A = word_aligned_variant_rows(a.view(), 2), B = word_aligned_variant_rows(b.view(), 2);
        crossprod_sums r(ra, rb, 0), c(ra, rb, 0);
        crossprod(ref, A.view(), B.view(), r.outputs(rb, true));
        crossprod(cpu, A.view(), B.view(), c.outputs(rb, true));
        ASSERT_EQ(r.S, c.S) << ra << "x" << rb << " over " << cols;
        ASSERT_EQ(r.N, c.N) << ra << "x" << rb << " over " << cols;
        ASSERT_EQ(r.U, c.U) << ra << "x" << rb << " over " << cols;
        ASSERT_EQ(r.V, c.V) << ra << "x" << rb << " over " << cols;
        ASSERT_EQ(r.Ut, c.Ut) << ra << "x" << rb << " over " << cols;
        ASSERT_EQ(r.Vt, c.Vt) << ra << "x" << rb << " over " << cols;
      }
}

TEST_P(CrossprodIsa, LongRowsCrossChunks) {
  // More than one 512-word chunk (16,384 calls), a tile remainder, only some outputs.
  const int64_t n = 9, k = 40'000;
  const auto g = test::random_genotypes(n, k, 0.02, 99);
  const auto t = transpose_to_sample_major(g.view(), 2);
  std::vector<int32_t> S1(n * n, 0), S2(n * n, 0), V1(n * n, 0), V2(n * n, 0);
  crossprod_symmetric(ref, t.view(), {.S = S1.data(), .V = V1.data(), .ld = n});
  crossprod_symmetric(cpu, t.view(), {.S = S2.data(), .V = V2.data(), .ld = n});
  EXPECT_EQ(S1, S2);
  EXPECT_EQ(V1, V2);
}

TEST_P(CrossprodIsa, SparsePairCountsMatchReference) {
  // Few missing calls: the cpu backend counts N from the missing calls (the GRM's pair counts),
  // alone or next to S; one sample misses every variant, one misses none.
  for (int64_t n : {1, 5, 33, 130, 301})
    for (int64_t k : {1, 31, 33, 700, 3000}) {
      if (n * n * k > 60'000'000) continue;
      auto g = test::random_genotypes(n, k, 0.01, 7 * n + k);
      for (int64_t l = 0; l < k; ++l) g.set(n / 2, l, code_missing);
      if (n > 2)
        for (int64_t l = 0; l < k; ++l)
          if (g.view().code(n - 1, l) == code_missing) g.set(n - 1, l, code_het);
      const auto t = transpose_to_sample_major(g.view(), 2);
      std::vector<int32_t> rN(n * n, 0), cN(n * n, 3), rS(n * n, 0), cS(n * n, 0), cN2(n * n, 0);
      crossprod_symmetric(ref, t.view(), {.S = rS.data(), .N = rN.data(), .ld = n});
      crossprod_symmetric(cpu, t.view(), {.N = cN.data(), .ld = n});
      crossprod_symmetric(cpu, t.view(), {.S = cS.data(), .N = cN2.data(), .ld = n});
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const int64_t at = i * n + j;
          ASSERT_EQ(cN[at], j <= i ? rN[at] + 3 : 3) << n << "x" << k << " N(" << i << "," << j << ")";
          ASSERT_EQ(cN2[at], j <= i ? rN[at] : 0) << n << "x" << k << " N(" << i << "," << j << ") with S";
          ASSERT_EQ(cS[at], j <= i ? rS[at] : 0) << n << "x" << k << " S(" << i << "," << j << ") with N";
        }
    }
}

std::vector<std::string> isa_names() {
  std::vector<std::string> names;
  for (const auto& t : kernels::cpu::supported_popcount_tiles()) names.push_back(t.isa);
  return names;
}
INSTANTIATE_TEST_SUITE_P(SupportedIsas, CrossprodIsa, ::testing::ValuesIn(isa_names()),
                         [](const auto& info) { return info.param; });

TEST(CpuBackend, TableProductsMatchReference) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> nd;
  for (int64_t n : {1, 4, 5, 33, 64, 129, 301})
    for (int64_t k : {1, 2, 33, 65, 700}) {
      const auto g = test::random_genotypes(n, k, 0.08, 13 * n + k);
      std::vector<code_table> tab(k);
      std::vector<double> r(k);
      for (int64_t l = 0; l < k; ++l) {
        tab[l] = {nd(rng), 0.0, nd(rng), nd(rng)};
        r[l] = nd(rng);
      }
      std::vector<double> C1(n * n, 0), C2(n * n, 0), y1(n, 0), y2(n, 0);
      table_crossprod(ref, g.view(), tab, C1.data(), n);
      table_crossprod(cpu, g.view(), tab, C2.data(), n);
      table_rowsums(ref, g.view(), tab, y1);
      table_rowsums(cpu, g.view(), tab, y2);
      std::vector<double> Y1(n * n, 0), Y2(n * n, 0), R1(n * n, 0), R2(n * n, 0);
      missing_crossprod(ref, g.view(), tab, r, Y1.data(), R1.data(), n);
      missing_crossprod(cpu, g.view(), tab, r, Y2.data(), R2.data(), n);
      const double scale = std::sqrt(double(k)) + 1;
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_NEAR(y1[i], y2[i], 1e-12 * scale);
        for (int64_t j = 0; j < n; ++j) {
          if (j <= i) {
            ASSERT_NEAR(C1[i * n + j], C2[i * n + j], 1e-12 * k) << n << "x" << k;
            ASSERT_NEAR(R1[i * n + j], R2[i * n + j], 1e-12 * scale);
          }
          ASSERT_NEAR(Y1[i * n + j], Y2[i * n + j], 1e-12 * scale);
        }
      }
    }
}
