// genotype_gemm: Y = Z Λ and W = Zᵀ Λ̃ with Z[i][j] = s_j (x_ij − 2 p_j), 0 for missing calls.
// A hand-checked example on the reference backend, then the cpu backend (every instruction set
// this CPU has) against the reference over sizes around multiples of 4/32/64/128, with missing
// calls, an all-missing variant, monomorphic and all-heterozygous variants, observed and arbitrary
// frequencies, with and without scales, β = 0 and β ≠ 0, and leading dimensions larger than l.
//
// Tolerance: componentwise, |got − ref| ≤ 1e-12 · (Σ_j |Z_ij Λ_jc| + |β Y0_ic|) — the bound a
// dgemm satisfies, relative to the terms actually summed. (A norm-wise test relative to max|Y| of
// the column would be weaker where a column mixes large and small entries, and an element-wise
// test relative to |Y| itself cannot be met by any floating-point sum with cancellation.) For
// Zᵀ Λ̃ with l ≥ 2 the documented extra term m_j Σ_{i missing} |Λ̃_ic| is added (genotype_gemm.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "ops/genotype_gemm/cpu_isa.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "test_support.hpp"

using namespace pmx;
namespace isa = pmx::kernels::cpu::gemm_isa;

namespace {

const executor ref = executor::reference();

uint8_t code_of(int x) {
  return x < 0 ? code_missing : x == 2 ? code_hom_a1 : x == 1 ? code_het : code_hom_a2;
}

// 3 samples x 4 variants, dosages (missing = -1):
//   s0:  2  1 -1  0
//   s1:  0  1  2  2
//   s2: -1  2  2  1
// p = (0.5, 0.25, 0.75, 0.5), s = (1, 2, 1, 0.5)  =>
//   Z = [  1  1  0   -0.5 ]
//       [ -1  1  0.5  0.5 ]
//       [  0  3  0.5  0   ]
packed_genotypes hand_genotypes() {
  const int x[3][4] = {{2, 1, -1, 0}, {0, 1, 2, 2}, {-1, 2, 2, 1}};
  packed_genotypes g(3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) g.set(i, j, code_of(x[i][j]));
  return g;
}

}  // namespace

TEST(GenotypeGemmReference, HandExample) {
  const auto g = hand_genotypes();
  const std::vector<double> p = {0.5, 0.25, 0.75, 0.5}, s = {1, 2, 1, 0.5};
  const gemm_centring c{p, s};

  // Λ (4 x 2, ld 3; the third column is padding that must not be read or written).
  const std::vector<double> lambda = {1, 2, 99, 3, -1, 99, 0.5, 4, 99, 2, 0, 99};
  std::vector<double> Y(3 * 3, 7.0);
  gemm(ref, g.view(), c, 2, lambda.data(), 3, 0.0, Y.data(), 3);
  // Y = Z Λ: row 0 = [1+3-1, 2-1], row 1 = [-1+3+0.25+1, -2-1+2], row 2 = [9+0.25, -3+2]
  EXPECT_EQ(Y[0], 3.0);
  EXPECT_EQ(Y[1], 1.0);
  EXPECT_EQ(Y[3], 3.25);
  EXPECT_EQ(Y[4], -1.0);
  EXPECT_EQ(Y[6], 9.25);
  EXPECT_EQ(Y[7], -1.0);
  EXPECT_EQ(Y[2], 7.0);  // padding untouched
  // β = 2 accumulates: Y ← Z Λ + 2 Y
  gemm(ref, g.view(), c, 2, lambda.data(), 3, 2.0, Y.data(), 3);
  EXPECT_EQ(Y[0], 3.0 + 6.0);
  EXPECT_EQ(Y[7], -1.0 - 2.0);

  // Λ̃ (3 x 2): W = Zᵀ Λ̃: j0 = [1-2, -1], j1 = [1+2-3, 1+9], j2 = [1-0.5, 0.5+1.5], j3 = [-0.5+1,
  // 0.5]
  const std::vector<double> lt = {1, 0, 2, 1, -1, 3};
  std::vector<double> W(4 * 2, std::numeric_limits<double>::quiet_NaN());
  gemm_transposed(ref, g.view(), c, 2, lt.data(), 2, 0.0, W.data(), 2);
  const double expect[8] = {-1, -1, 0, 10, 0.5, 2, 0.5, 0.5};
  for (int e = 0; e < 8; ++e) EXPECT_EQ(W[e], expect[e]) << e;

  // The cpu backend gives the same numbers (they are exact here).
  const executor cpu(backend::cpu, 2);
  std::vector<double> Yc(3 * 3, 7.0), Wc(4 * 2, 0.0);
  gemm(cpu, g.view(), c, 2, lambda.data(), 3, 0.0, Yc.data(), 3);
  gemm_transposed(cpu, g.view(), c, 2, lt.data(), 2, 0.0, Wc.data(), 2);
  const double expect_y[6] = {3, 1, 3.25, -1, 9.25, -1};
  for (int i = 0; i < 3; ++i)
    for (int col = 0; col < 2; ++col)
      EXPECT_EQ(Yc[i * 3 + col], expect_y[i * 2 + col]) << i << "," << col;
  for (int e = 0; e < 8; ++e) EXPECT_EQ(Wc[e], expect[e]) << e;
}

TEST(GenotypeGemmReference, RejectsBadArguments) {
  const auto g = hand_genotypes();
  const std::vector<double> p = {0.5, 0.25, 0.75, 0.5}, short_p = {0.5};
  std::vector<double> lambda(8), Y(6);
  EXPECT_THROW(gemm(ref, g.view(), {short_p, {}}, 2, lambda.data(), 2, 0, Y.data(), 2),
               logic_error);
  EXPECT_THROW(gemm(ref, g.view(), {p, short_p}, 2, lambda.data(), 2, 0, Y.data(), 2), logic_error);
  EXPECT_THROW(gemm(ref, g.view(), {p, {}}, 2, lambda.data(), 1, 0, Y.data(), 2), logic_error);
  EXPECT_THROW(gemm_transposed(ref, g.view(), {p, {}}, 2, lambda.data(), 2, 0, Y.data(), 1),
               logic_error);
  EXPECT_THROW(
      gemm(executor(backend::cpu, 1), g.view(), {p, {}}, -1, lambda.data(), 2, 0, Y.data(), 2),
      logic_error);
}

namespace {

struct gemm_case {
  int64_t n, k, l;
  double missing;
  bool observed_p, scaled, beta;
  uint64_t seed;
};

struct gemm_data {
  packed_genotypes g;
  std::vector<double> p, s;
  std::vector<double> lambda, lambda_t;  // k x ld_a and n x ld_b
  int64_t ld_a, ld_b;
};

gemm_data make_data(const gemm_case& t) {
  gemm_data d;
  d.g = test::random_genotypes(t.n, t.k, t.missing,
                               t.seed);  // variant 0 all missing, 1 monomorphic (x = 0)
  std::mt19937_64 rng(t.seed * 7 + 1);
  std::uniform_real_distribution<double> u(0, 1);
  // Variant 2 all heterozygous, variant 3 monomorphic x = 2 with the missing calls kept.
  for (int64_t i = 0; i < t.n; ++i) {
    if (t.k > 2 && d.g.view().code(i, 2) != code_missing) d.g.set(i, 2, code_het);
    if (t.k > 3 && d.g.view().code(i, 3) != code_missing) d.g.set(i, 3, code_hom_a1);
  }
  // Padding calls of the last byte of each row set to the missing code (as a writer other than
  // PLINK may leave them): they are not samples and must change nothing.
  if (t.n % 4 && t.seed % 2) {
    const int used = static_cast<int>(t.n % 4);
    for (int64_t j = 0; j < t.k; ++j)
      for (int q = used; q < 4; ++q)
        d.g.row(j)[t.n / 4] = static_cast<uint8_t>((d.g.row(j)[t.n / 4] & ~(3 << (2 * q))) |
                                                   (code_missing << (2 * q)));
  }
  d.p.resize(t.k);
  d.s.resize(t.scaled ? t.k : 0);
  for (int64_t j = 0; j < t.k; ++j) {
    if (t.observed_p) {  // NaN for the all-missing variant, as a frequency routine would give
      int64_t called = 0, copies = 0;
      for (int64_t i = 0; i < t.n; ++i) {
        const int x = test::dosage(d.g, i, j);
        if (x >= 0) ++called, copies += x;
      }
      d.p[j] = called ? static_cast<double>(copies) / (2.0 * called)
                      : std::numeric_limits<double>::quiet_NaN();
    } else {
      d.p[j] = -0.2 + 1.4 * u(rng);
      if (j == 0 && t.k > 4) d.p[j] = 0.5;
    }
    if (t.scaled) d.s[j] = j == 1 ? 0.0 : 0.1 + 3 * u(rng);
  }
  // Rows of Λ span a few binades, so that cancellation and scale differences are exercised.
  auto fill = [&](std::vector<double>& m, int64_t rows, int64_t ld) {
    m.assign(static_cast<size_t>(rows * ld),
             std::numeric_limits<double>::quiet_NaN());  // padding = NaN
    for (int64_t r = 0; r < rows; ++r) {
      const double mag = std::ldexp(1.0, static_cast<int>(u(rng) * 12) - 6);
      for (int64_t c = 0; c < t.l; ++c) m[r * ld + c] = mag * (2 * u(rng) - 1);
    }
  };
  d.ld_a = t.l + (t.seed % 3);
  d.ld_b = t.l + ((t.seed + 1) % 3) * 2;
  fill(d.lambda, t.k, d.ld_a);
  fill(d.lambda_t, t.n, d.ld_b);
  return d;
}

long double z_value(const gemm_data& d, int64_t i, int64_t j) {
  const int x = test::dosage(d.g, i, j);
  if (x < 0) return 0;
  return (d.s.empty() ? 1.0L : d.s[j]) * (x - 2.0L * d.p[j]);
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want,
                  const std::vector<long double>& bound, int64_t rows, int64_t l, int64_t ld,
                  const std::string& what) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < l; ++c) {
      const double g = got[r * ld + c], w = want[r * ld + c];
      const long double tol = 1e-12L * bound[r * l + c];
      ASSERT_FALSE(std::isnan(g)) << what << " (" << r << "," << c << ")";
      ASSERT_LE(std::fabs(static_cast<long double>(g) - w), tol)
          << what << " (" << r << "," << c << ") got " << g << " want " << w << " bound "
          << (double)bound[r * l + c];
    }
}

/// Runs both products of one case on `cpu` and on the reference and compares them.
void check_case(const gemm_case& t, const gemm_data& d, const executor& cpu,
                const std::string& tag) {
  const gemm_centring c{d.p, d.s};
  const double beta = t.beta ? -0.75 : 0.0;
  const int64_t ld_y = t.l + 1, ld_w = t.l + 3;
  std::mt19937_64 rng(t.seed + 99);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> Y0(static_cast<size_t>(t.n * ld_y)), W0(static_cast<size_t>(t.k * ld_w));
  for (auto& v : Y0) v = t.beta ? u(rng) : std::numeric_limits<double>::quiet_NaN();
  for (auto& v : W0) v = t.beta ? u(rng) : std::numeric_limits<double>::quiet_NaN();

  // Σ |terms| per output element (plus |β Y0|), in long double.
  std::vector<long double> by(static_cast<size_t>(t.n * t.l), 0.0L),
      bw(static_cast<size_t>(t.k * t.l), 0.0L);
  for (int64_t i = 0; i < t.n; ++i)
    for (int64_t j = 0; j < t.k; ++j) {
      const long double z = std::fabs(z_value(d, i, j));
      const bool miss = test::dosage(d.g, i, j) < 0;
      long double m = 0;  // documented extra term of Zᵀ Λ̃ for missing calls (l ≥ 2)
      if (miss && t.l >= 2 && !std::isnan(d.p[j])) {
        const long double tp = 2.0L * d.p[j];
        m = (d.s.empty() ? 1.0L : std::fabs((long double)d.s[j])) *
            std::min({std::fabs(tp), std::fabs(1 - tp), std::fabs(2 - tp)});
      }
      for (int64_t col = 0; col < t.l; ++col) {
        by[i * t.l + col] += z * std::fabs((long double)d.lambda[j * d.ld_a + col]);
        bw[j * t.l + col] += (z + m) * std::fabs((long double)d.lambda_t[i * d.ld_b + col]);
      }
    }
  for (int64_t i = 0; i < t.n; ++i)
    for (int64_t col = 0; col < t.l; ++col)
      by[i * t.l + col] += t.beta ? std::fabs(beta * Y0[i * ld_y + col]) : 0;
  for (int64_t j = 0; j < t.k; ++j)
    for (int64_t col = 0; col < t.l; ++col)
      bw[j * t.l + col] += t.beta ? std::fabs(beta * W0[j * ld_w + col]) : 0;

  std::vector<double> Yr = Y0, Yc = Y0, Wr = W0, Wc = W0;
  gemm(ref, d.g.view(), c, t.l, d.lambda.data(), d.ld_a, beta, Yr.data(), ld_y);
  gemm(cpu, d.g.view(), c, t.l, d.lambda.data(), d.ld_a, beta, Yc.data(), ld_y);
  gemm_transposed(ref, d.g.view(), c, t.l, d.lambda_t.data(), d.ld_b, beta, Wr.data(), ld_w);
  gemm_transposed(cpu, d.g.view(), c, t.l, d.lambda_t.data(), d.ld_b, beta, Wc.data(), ld_w);
  const std::string what = tag + " n=" + std::to_string(t.n) + " k=" + std::to_string(t.k) +
                           " l=" + std::to_string(t.l) +
                           (t.observed_p ? " p=observed" : " p=arbitrary") +
                           (t.scaled ? " scaled" : "") + (t.beta ? " beta" : "");
  expect_close(Yc, Yr, by, t.n, t.l, ld_y, "Z*L " + what);
  expect_close(Wc, Wr, bw, t.k, t.l, ld_w, "Zt*L " + what);
  // Padding columns of the outputs are not touched.
  if (!t.beta) {
    for (int64_t i = 0; i < t.n; ++i) EXPECT_TRUE(std::isnan(Yc[i * ld_y + t.l])) << what;
  }
}

std::vector<gemm_case> all_cases() {
  const std::vector<int64_t> sizes = {1, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129};
  const std::vector<int64_t> ls = {1, 2, 10, 32, 64};
  std::vector<gemm_case> cases;
  uint64_t seed = 1;
  for (size_t a = 0; a < sizes.size(); ++a)
    for (size_t b = 0; b < sizes.size(); ++b) {
      const int64_t l = ls[(a + 2 * b + seed) % ls.size()];
      cases.push_back(
          {sizes[a], sizes[b], l, 0.06, seed % 2 == 0, seed % 3 != 0, seed % 4 == 1, seed});
      ++seed;
    }
  // Large odd sizes: several blocks of 32 groups, partial last blocks, every chunk width.
  for (int64_t l : {1, 10, 32, 63})
    cases.push_back({1001, 387, l, 0.03, l % 2 == 0, l != 32, l == 10, seed++});
  cases.push_back({387, 1001, 64, 0.03, true, true, false, seed++});
  cases.push_back({1001, 1001, 7, 0.01, false, true, true, seed++});
  cases.push_back({129, 2049, 2, 0.6, true, false, false, seed++});  // most calls missing
  cases.push_back({257, 517, 10, 0.6, false, true, true, seed++});   // ... also on the pivot path
  cases.push_back({131, 257, 67, 0.05, false, true, true, seed++});  // l beyond 64 works too
  // Wide Λ̃ (eigenbasis rotations): decoded blocks of variants and BLAS dgemm.
  cases.push_back({301, 600, 256, 0.05, false, true, true, seed++});
  cases.push_back({150, 530, 400, 0.03, true, false, false, seed++});
  for (int64_t l : {3, 4, 5, 6})  // entries that carry the missing sums (3 ≤ l < 8)
    cases.push_back({65 + 2 * l, 129 + l, l, 0.1, l % 2 == 1, l != 4, l == 5, seed++});
  return cases;
}

}  // namespace

class GenotypeGemmIsa : public ::testing::TestWithParam<std::string> {};

TEST_P(GenotypeGemmIsa, MatchesReference) {
  const executor cpu = test::cpu_with_isa(GetParam(), 2);
  for (const auto& t : all_cases()) {
    const auto d = make_data(t);
    check_case(t, d, cpu, GetParam());
    if (HasFatalFailure()) return;
  }
}

/// Every ISA and thread count gives the same bits as the scalar build with one thread: the
/// order of every sum is fixed by the algorithm, not by the machine.
TEST_P(GenotypeGemmIsa, BitIdenticalAcrossIsaAndThreads) {
  for (const gemm_case& t : {gemm_case{1001, 387, 10, 0.03, true, true, false, 5},
                             gemm_case{257, 1031, 33, 0.02, false, true, true, 6},
                             gemm_case{1037, 1290, 1, 0.02, true, true, false, 7}}) {
    const auto d = make_data(t);
    const gemm_centring c{d.p, d.s};
    auto run = [&](const std::string& isa, int threads) {
      const executor cpu = test::cpu_with_isa(isa, threads);
      std::vector<double> Y(t.n * t.l), W(t.k * t.l);
      gemm(cpu, d.g.view(), c, t.l, d.lambda.data(), d.ld_a, 0.0, Y.data(), t.l);
      gemm_transposed(cpu, d.g.view(), c, t.l, d.lambda_t.data(), d.ld_b, 0.0, W.data(), t.l);
      return std::pair{Y, W};
    };
    const auto mine = run(GetParam(), 3);
    const auto base = run("scalar", 1);
    EXPECT_TRUE(mine.first == base.first) << "Z*L differs from scalar/1 thread";
    EXPECT_TRUE(mine.second == base.second) << "Zt*L differs from scalar/1 thread";
  }
}

INSTANTIATE_TEST_SUITE_P(SupportedIsas, GenotypeGemmIsa, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& k : isa::supported_table_kernels())
                             names.emplace_back(k.isa);
                           return names;
                         }()),
                         [](const auto& info) { return info.param; });

TEST(GenotypeGemmCpu, EmptyShapes) {
  const executor cpu(backend::cpu, 2);
  for (auto [n, k] : {std::pair<int64_t, int64_t>{0, 5}, {5, 0}, {0, 0}}) {
    packed_genotypes g(n, k);
    std::vector<double> p(k, 0.3), lambda(std::max<int64_t>(n, k) * 3, 1.0);
    std::vector<double> Y(n * 3, 5.0), W(k * 3, 5.0);
    for (const executor& e : {ref, cpu}) {
      gemm(e, g.view(), {p, {}}, 3, lambda.data(), 3, 0.0, Y.data(), 3);
      gemm_transposed(e, g.view(), {p, {}}, 3, lambda.data(), 3, 0.0, W.data(), 3);
      for (double v : Y) EXPECT_EQ(v, 0.0);
      for (double v : W) EXPECT_EQ(v, 0.0);
    }
  }
}
