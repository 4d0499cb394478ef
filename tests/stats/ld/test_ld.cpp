// LD (panoramix ld): r and r² from the crossprod op against an oracle computed here from decoded
// dosages (Pearson over the jointly called samples), on both backends, with adversarial content;
// the no-missing fast path against the general path; streaming in blocks; the PLINK 1.9 coding
// of X/Y; PLINK 1.9's number formatting; then panoramix ld side by side with plink1.9 on the real
// datasets under ../shared/data and on simulated sets (square r²/r matrices and .ld tables).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "panoramix/error.hpp"
#include "panoramix/ld.hpp"
#include "panoramix/ld_files.hpp"
#include "panoramix/plink_write.hpp"
#include "ops/crossprod/missing_sums.hpp"
#include "ops/crossprod/popcount_tiles.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

// ------------------------------------------------------------------------------------------------
// Oracle: Pearson correlation of two dosage vectors over the samples called in both, in long
// double from centred sums (no shared code or formula with the library). NaN when either
// variance is zero or no sample is called in both.

long double pearson(const std::vector<int>& x, const std::vector<int>& y) {
  long double n = 0, mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] >= 0 && y[i] >= 0) n += 1, mx += x[i], my += y[i];
  if (n == 0) return NAN;
  mx /= n, my /= n;
  long double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] >= 0 && y[i] >= 0) {
      const long double dx = x[i] - mx, dy = y[i] - my;
      sxy += dx * dy, sxx += dx * dx, syy += dy * dy;
    }
  if (sxx == 0 || syy == 0) return NAN;
  return sxy / std::sqrt(sxx * syy);
}

std::vector<int> dosages(const packed_genotypes& g, int64_t variant) {
  std::vector<int> d(static_cast<size_t>(g.n_samples()));
  for (int64_t i = 0; i < g.n_samples(); ++i) d[i] = test::dosage(g, i, variant);
  return d;
}

variant_major_view rows_of(const packed_genotypes& g, int64_t first, int64_t count) {
  const variant_major_view v = g.view();
  return {v.data + first * v.row_bytes, v.n_samples, count, v.row_bytes};
}

/// Expects ours == oracle (r or r²) within tol, NaN exactly where the oracle is NaN.
void expect_matches_oracle(const std::vector<double>& got, const packed_genotypes& g, int64_t a0,
                           int64_t na, int64_t b0, int64_t nb, ld_statistic stat, double tol,
                           const std::string& what) {
  int64_t bad = 0;
  double worst = 0;
  for (int64_t i = 0; i < na; ++i)
    for (int64_t j = 0; j < nb; ++j) {
      long double r = pearson(dosages(g, a0 + i), dosages(g, b0 + j));
      if (stat == ld_statistic::r2) r = r * r;
      const double v = got[static_cast<size_t>(i * nb + j)];
      const bool ok =
          std::isnan(double(r)) ? std::isnan(v) : !std::isnan(v) && std::fabs(v - double(r)) <= tol;
      if (!std::isnan(v) && !std::isnan(double(r)))
        worst = std::max(worst, std::fabs(v - double(r)));
      if (!ok && ++bad <= 5)
        ADD_FAILURE() << what << ": pair (" << a0 + i << ", " << b0 + j << "): got " << v
                      << ", oracle " << double(r);
    }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " pairs differ; worst |diff| " << worst;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i])) && std::memcmp(&a[i], &b[i], sizeof(double)) != 0)
      return false;
  return true;
}

executor make_exec(backend kind) {
  return kind == backend::reference ? executor::reference() : executor(kind, 2);
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// 1. Statistics level

TEST(LdValue, HandExamples) {
  // x = (0,1,2), y = x: r = 1; y reversed: r = -1; monomorphic: NaN; no sample: NaN.
  EXPECT_EQ(ld_value(3, 3, 3, 5, 5, 5, ld_statistic::r), 1.0);
  EXPECT_EQ(ld_value(3, 3, 3, 5, 5, 1, ld_statistic::r), -1.0);
  EXPECT_EQ(ld_value(3, 3, 3, 5, 5, 1, ld_statistic::r2), 1.0);
  EXPECT_TRUE(std::isnan(ld_value(3, 3, 6, 5, 12, 6, ld_statistic::r)));  // y = (2,2,2)
  EXPECT_TRUE(std::isnan(ld_value(0, 0, 0, 0, 0, 0, ld_statistic::r2)));
  // x = (0,1,2,2), y = (1,0,2,1): cov = 4*6 - 5*4 = 4, var_x = 4*9 - 25 = 11, var_y = 4*6 - 16 = 8.
  EXPECT_DOUBLE_EQ(ld_value(4, 5, 4, 9, 6, 6, ld_statistic::r), 4 / std::sqrt(88.0));
  EXPECT_DOUBLE_EQ(ld_value(4, 5, 4, 9, 6, 6, ld_statistic::r2), 16 / 88.0);
}

class LdOracle : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, backend>> {};

// Random genotypes, 10 % missing; variant 0 all missing, variant 1 monomorphic; n not a multiple
// of 4 or 32; A against itself and a rectangle of sub-ranges.
TEST_P(LdOracle, MatchesPearsonOverJointCalls) {
  const auto [n, k, kind] = GetParam();
  const packed_genotypes g = test::random_genotypes(n, k, 0.10, 777 + n * 31 + k);
  const executor exec = make_exec(kind);
  for (const ld_statistic stat : {ld_statistic::r, ld_statistic::r2}) {
    std::vector<double> out(static_cast<size_t>(k * k));
    ld_matrix(exec, g.view(), g.view(), stat, ld_path::automatic, out.data(), k);
    expect_matches_oracle(out, g, 0, k, 0, k, stat, 1e-12, "square");
    const int64_t a0 = k / 3, na = k - k / 3, b0 = 1, nb = std::max<int64_t>(1, k / 2);
    std::vector<double> rect(static_cast<size_t>(na * nb));
    ld_matrix(exec, rows_of(g, a0, na), rows_of(g, b0, nb), stat, ld_path::general, rect.data(),
              nb);
    expect_matches_oracle(rect, g, a0, na, b0, nb, stat, 1e-12, "rectangle");
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LdOracle,
                         ::testing::Combine(::testing::Values(1, 3, 5, 31, 33, 65, 203),
                                            ::testing::Values(2, 7, 41),
                                            ::testing::Values(backend::reference, backend::cpu)));

TEST(LdPaths, NoMissingFastPathEqualsGeneralPath) {
  for (const int64_t n : {4, 37, 130}) {
    packed_genotypes g = test::random_genotypes(n, 29, 0.0, 99 + n, false);
    for (int64_t i = 0; i < n; ++i) g.set(i, 3, code_het);  // a monomorphic variant: NaN either way
    for (const backend kind : {backend::reference, backend::cpu}) {
      const executor exec = make_exec(kind);
      for (const ld_statistic stat : {ld_statistic::r, ld_statistic::r2}) {
        std::vector<double> fast(29 * 29), general(29 * 29), automatic(29 * 29);
        ld_matrix(exec, g.view(), g.view(), stat, ld_path::no_missing, fast.data(), 29);
        ld_matrix(exec, g.view(), g.view(), stat, ld_path::general, general.data(), 29);
        ld_matrix(exec, g.view(), g.view(), stat, ld_path::automatic, automatic.data(), 29);
        EXPECT_TRUE(same_bits(fast, general))
            << "n = " << n << ": S-only path differs from the general path";
        EXPECT_TRUE(same_bits(fast, automatic)) << "n = " << n;
        expect_matches_oracle(fast, g, 0, 29, 0, 29, stat, 1e-12, "fast path");
      }
    }
  }
  // Asking for the fast path with missing calls is a caller bug.
  const packed_genotypes m = test::random_genotypes(10, 4, 0.3, 5, false);
  std::vector<double> out(16);
  EXPECT_THROW(ld_matrix(executor::reference(), m.view(), m.view(), ld_statistic::r2,
                         ld_path::no_missing, out.data(), 4),
               pmx::logic_error);
}

// With missing calls, N, U, V and their transposes come from the missing calls (sparse sums)
// instead of the op, up to a share of missing calls per block; the oracle (the reference backend
// with ld_path::all_sums) asks the op for all six sums. Every instruction set against it, bit for
// bit: rates on both sides of the threshold, rows without missing calls, rows missing more than
// 1,023 samples (several packed passes), widths around the kernels' column blocks, separate A and
// B sets.
class LdSparseIsa : public ::testing::TestWithParam<std::string> {
 protected:
  const executor cpu = test::cpu_with_isa(GetParam(), 2);
};

TEST_P(LdSparseIsa, CompanionSumsFromMissingCallsMatchReference) {
  const executor ref = executor::reference();
  struct shape {
    int64_t n, k;
    double missing;
  };
  for (const shape sh : {shape{37, 300, 0.01}, shape{130, 150, 0.03}, shape{1500, 70, 0.002},
                         shape{200, 90, 0.3}, shape{65, 277, 0.0005}}) {
    packed_genotypes g = test::random_genotypes(sh.n, sh.k, sh.missing, 4242 + sh.n + sh.k);
    for (int64_t i = 0; i < sh.n; ++i) g.set(i, 2, code_missing);  // a row missing everything
    for (int64_t i = 0; i < sh.n; i += 2) g.set(i, 5, code_missing);  // half
    for (int64_t i = 0; i < sh.n; ++i) g.set(i, 7, code_het);  // monomorphic, no missing call
    for (const ld_statistic stat : {ld_statistic::r, ld_statistic::r2}) {
      std::vector<double> want(static_cast<size_t>(sh.k * sh.k)), got(want.size());
      ld_matrix(ref, g.view(), g.view(), stat, ld_path::all_sums, want.data(), sh.k);
      ld_matrix(cpu, g.view(), g.view(), stat, ld_path::automatic, got.data(), sh.k);
      EXPECT_TRUE(same_bits(want, got)) << sh.n << " x " << sh.k << " missing " << sh.missing;
      // Rectangle from separate sets; the A set has no missing calls at all.
      packed_genotypes clean = test::random_genotypes(sh.n, 19, 0.0, 7 + sh.n, false);
      const int64_t b0 = 3, nb = sh.k - 5;
      for (const packed_genotypes* a : {&g, &clean}) {
        const int64_t na = a->n_variants();
        std::vector<double> w(static_cast<size_t>(na * nb)), h(w.size());
        ld_matrix(ref, a->view(), rows_of(g, b0, nb), stat, ld_path::all_sums, w.data(), nb);
        ld_matrix(cpu, a->view(), rows_of(g, b0, nb), stat, ld_path::general, h.data(), nb);
        EXPECT_TRUE(same_bits(w, h)) << "rectangle " << na << " x " << nb << " over " << sh.n;
        ld_matrix(cpu, rows_of(g, b0, nb), a->view(), stat, ld_path::general, h.data(), na);
        ld_matrix(ref, rows_of(g, b0, nb), a->view(), stat, ld_path::all_sums, w.data(), na);
        EXPECT_TRUE(same_bits(w, h)) << "rectangle " << nb << " x " << na << " over " << sh.n;
      }
    }
  }
}

TEST_P(LdSparseIsa, KernelSumsSelectedRows) {
  // 1,100 rows of a 3 x 300-column table (> 1,023 rows: two passes), widths 0..300.
  const int64_t rows = 1100, ld = 301;
  std::vector<uint8_t> table(static_cast<size_t>(rows * ld));
  uint32_t state = 12345;
  for (auto& b : table) state = state * 1103515245u + 12345u, b = kernels::cpu::missing_code[(state >> 16) & 3];
  std::vector<int32_t> idx;
  for (int64_t r = 0; r < rows; ++r) idx.push_back(static_cast<int32_t>((r * 7) % rows));
  const auto& k = kernels::cpu::active_missing_sums(cpu);
  ASSERT_EQ(std::string(k.isa), GetParam());
  for (const int64_t count : {int64_t{0}, int64_t{1}, int64_t{31}, int64_t{1023}, int64_t{1024}, rows})
    for (const int64_t len : {int64_t{0}, int64_t{1}, int64_t{15}, int64_t{16}, int64_t{63}, int64_t{64},
                              int64_t{129}, int64_t{300}}) {
      std::vector<int32_t> sx(len + 1, -7), sxx(len + 1, -7), sm(len + 1, -7);
      k.sums(table.data() + 1, ld, idx.data(), count, len, sx.data(), sxx.data(), sm.data());
      for (int64_t t = 0; t < len; ++t) {
        int32_t x = 0, xx = 0, m = 0;
        for (int64_t q = 0; q < count; ++q) {
          const uint8_t b = table[static_cast<size_t>(idx[q] * ld + 1 + t)];
          const int v = (b & 1) + (b >> 1 & 1);
          x += v, xx += v * v, m += b >> 2;
        }
        ASSERT_EQ(sx[t], x) << count << " rows, " << len << " columns, column " << t;
        ASSERT_EQ(sxx[t], xx) << count << " rows, " << len << " columns, column " << t;
        ASSERT_EQ(sm[t], m) << count << " rows, " << len << " columns, column " << t;
      }
      ASSERT_EQ(sx[len], -7) << "wrote past len";
    }
}

std::vector<std::string> ld_isa_names() {
  std::vector<std::string> names;
  for (const auto& t : kernels::cpu::supported_missing_sums()) names.push_back(t.isa);
  return names;
}
INSTANTIATE_TEST_SUITE_P(SupportedIsas, LdSparseIsa, ::testing::ValuesIn(ld_isa_names()),
                         [](const auto& info) { return info.param; });

// ------------------------------------------------------------------------------------------------
// File level: founders, X/Y coding, streaming blocks, windows

namespace {

struct sexed_set {
  test::temp_dir dir;
  std::string prefix;
  packed_genotypes g;
  std::vector<sample_record> samples;
  std::vector<variant_record> variants;
};

// 61 samples (sex 1/2/0 in turn, every 7th a nonfounder) × variants on 1, 2, X, Y, XY, MT and 0,
// 10 % missing; variant 3 monomorphic, variant 0 all missing.
void make_sexed_set(sexed_set& s) {
  const char* chroms[] = {"1", "1",  "1",  "1",  "1",  "1",  "2",  "2", "2", "2",
                          "X", "X",  "X",  "X",  "X",  "X",  "X",  "Y", "Y", "Y",
                          "Y", "XY", "XY", "XY", "MT", "MT", "MT", "0", "0"};
  const int64_t n = 61, k = static_cast<int64_t>(std::size(chroms));
  s.g = test::random_genotypes(n, k, 0.10, 4242);
  for (int64_t i = 0; i < n; ++i)
    if (test::dosage(s.g, i, 3) >= 0) s.g.set(i, 3, code_hom_a2);
  s.samples.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    s.samples[i] = {"f", "i" + std::to_string(i),           "0",
                    "0", static_cast<int>((i % 3 + 1) % 3), "-9"};
    if (i % 7 == 6) s.samples[i].father = "i0", s.samples[i].mother = "i1";
  }
  s.variants.resize(k);
  for (int64_t j = 0; j < k; ++j)
    s.variants[j] = {chroms[j], "v" + std::to_string(j), 0, 1000 + 100 * j, "A", "G"};
  s.prefix = s.dir.path("sexed");
  write_plink_fileset(s.prefix, s.samples, s.variants, s.g.view());
}

// Dosages LD uses for variant j under PLINK 1.9's rules (founders only unless ld_nonfounders).
std::vector<int> coded(const sexed_set& s, int64_t j, bool nonfounders) {
  std::vector<int> d;
  const std::string& c = s.variants[j].chrom;
  for (size_t i = 0; i < s.samples.size(); ++i) {
    if (!nonfounders && !s.samples[i].founder()) continue;
    int x = test::dosage(s.g, static_cast<int64_t>(i), j);
    const bool male = s.samples[i].sex == 1;
    if (c == "X" && male && x >= 0) x = x == 1 ? -1 : x / 2;  // het missing, hom A1 one copy
    if (c == "Y" && (!male || x == 1)) x = -1;
    d.push_back(x);
  }
  return d;
}

}  // namespace

TEST(LdSquare, FoundersHaploidCodingAndBlocksMatchOracle) {
  sexed_set s;
  make_sexed_set(s);
  const plink_fileset data(s.prefix);
  const int64_t m = data.n_variants();
  for (const bool nonfounders : {false, true})
    for (const ld_statistic stat : {ld_statistic::r, ld_statistic::r2}) {
      std::vector<long double> want(static_cast<size_t>(m * m));
      for (int64_t a = 0; a < m; ++a)
        for (int64_t b = 0; b < m; ++b) {
          const long double r = pearson(coded(s, a, nonfounders), coded(s, b, nonfounders));
          want[a * m + b] = stat == ld_statistic::r2 ? r * r : r;
        }
      std::vector<double> reference_run;
      // Blocks: automatic (symmetric), symmetric with small row blocks, full rows with B chunks.
      for (const backend kind : {backend::reference, backend::cpu})
        for (const auto& [rows, cols] :
             {std::pair<int64_t, int64_t>{0, 0}, {1, 0}, {5, 0}, {1, 7}, {5, 7}}) {
          ld_options o;
          o.stat = stat;
          o.ld_nonfounders = nonfounders;
          o.nonfounders = !nonfounders;  // frequencies only: must not change the LD
          o.block_rows = rows;
          o.block_cols = cols;
          std::vector<double> got;
          compute_ld_square(
              make_exec(kind), data, o,
              [&](int64_t first, int64_t n_rows, const double* v) {
                ASSERT_EQ(first * m, static_cast<int64_t>(got.size()));
                got.insert(got.end(), v, v + n_rows * m);
              },
              nullptr);
          ASSERT_EQ(static_cast<int64_t>(got.size()), m * m);
          for (int64_t k = 0; k < m * m; ++k) {
            if (std::isnan(double(want[k])))
              ASSERT_TRUE(std::isnan(got[k])) << "entry " << k;
            else
              ASSERT_NEAR(got[k], double(want[k]), 1e-12) << "entry " << k / m << "," << k % m;
          }
          if (reference_run.empty())
            reference_run = got;
          else
            EXPECT_TRUE(same_bits(got, reference_run)) << "blocks/backends change the bits";
        }
    }
}

TEST(LdTable, WindowsThresholdsAndBlocksMatchSquare) {
  sexed_set s;
  make_sexed_set(s);
  const plink_fileset data(s.prefix);
  const int64_t m = data.n_variants();
  ld_options sq;
  std::vector<double> r2;
  compute_ld_square(
      executor::reference(), data, sq,
      [&](int64_t, int64_t n_rows, const double* v) { r2.insert(r2.end(), v, v + n_rows * m); },
      nullptr);
  struct window_case {
    int64_t window, bp;
    double r2;
    bool inter;
  };
  for (const window_case w :
       {window_case{10, 1000000, 0.2, false}, window_case{3, 1000000, 0.0, false},
        window_case{50, 250, 0.0, false}, window_case{2, 1000000, 0.05, true}}) {
    ld_options o;
    o.window_variants = w.window;
    o.window_bp = w.bp;
    o.window_r2 = w.r2;
    o.inter_chr = w.inter;
    // Expected pairs straight from the definition.
    std::vector<ld_pair> want;
    for (int64_t a = 0; a < m; ++a)
      for (int64_t b = a + 1; b < m; ++b) {
        const auto &va = data.variant(a), &vb = data.variant(b);
        if (!w.inter && (va.chrom != vb.chrom || b - a > w.window - 1 || vb.pos > va.pos + w.bp))
          continue;
        const double v = r2[a * m + b];
        if (!std::isnan(v) && v >= w.r2) want.push_back({a, b, v});
      }
    for (const backend kind : {backend::reference, backend::cpu})
      for (const int64_t rows : {0, 1, 4}) {
        o.block_rows = rows;
        o.block_cols = rows ? 3 : 0;
        std::vector<ld_pair> got;
        compute_ld_table(
            make_exec(kind), data, o,
            [&](std::span<const ld_pair> p) { got.insert(got.end(), p.begin(), p.end()); },
            nullptr);
        ASSERT_EQ(got.size(), want.size())
            << "window " << w.window << " bp " << w.bp << " inter " << w.inter;
        for (size_t k = 0; k < got.size(); ++k) {
          EXPECT_EQ(got[k].a, want[k].a);
          EXPECT_EQ(got[k].b, want[k].b);
          EXPECT_EQ(got[k].value, want[k].value);
        }
      }
  }
}

TEST(LdWindow, KilobasesAsPlink) {
  EXPECT_EQ(ld_window_bp_from_kb(1000), 1000000);
  EXPECT_EQ(ld_window_bp_from_kb(0.03), 30);
  EXPECT_EQ(ld_window_bp_from_kb(0.0299), 29);
  EXPECT_EQ(ld_window_bp_from_kb(0.0305), 30);
  EXPECT_EQ(ld_window_bp_from_kb(0.0399999999999999),
            40);  // PLINK's epsilon: 39.9999999999999 -> 40
  EXPECT_EQ(ld_window_bp_from_kb(0.03999999999999), 39);
  EXPECT_EQ(ld_window_bp_from_kb(0), 0);
}

TEST(LdFormat, NumbersAsPlink19) {
  // Expected strings are what plink1.9 1.90b6.26 prints for these values.
  EXPECT_EQ(plink1_format_g(std::nan("")), "nan");
  EXPECT_EQ(plink1_format_g(0.0), "0");
  EXPECT_EQ(plink1_format_g(1.0), "1");
  EXPECT_EQ(plink1_format_g(0.4), "0.4");
  EXPECT_EQ(plink1_format_g(1.0 / 15), "0.0666667");
  EXPECT_EQ(plink1_format_g(1.0 / 21), "0.047619");
  EXPECT_EQ(plink1_format_g(2.0 / 3), "0.666667");
  EXPECT_EQ(plink1_format_g(-0.5007539), "-0.500754");
  EXPECT_EQ(plink1_format_g(0.0001), "0.0001");
  EXPECT_EQ(plink1_format_g(4.321819e-06), "4.32182e-06");
  EXPECT_EQ(plink1_format_g(1e-5), "1e-05");
  EXPECT_EQ(plink1_format_g(1.5e-7), "1.5e-07");
  EXPECT_EQ(plink1_format_g(2.5e-300), "2.5e-300");
  EXPECT_EQ(plink1_format_g(0.99999999), "1");
  EXPECT_EQ(plink1_format_g(12.5), "12.5");
  EXPECT_EQ(plink1_format_g(1234567.0), "1.23457e+06");
  // Decimal ties (within PLINK's 5e-9) go to the even digit: 0.1234565 -> ...56, 0.1234575 ->
  // ...58.
  EXPECT_EQ(plink1_format_g(0.1234565), "0.123456");
  EXPECT_EQ(plink1_format_g(0.1234575), "0.123458");
}

TEST(LdFormat, ChromosomeCodesAsPlink19) {
  const auto human = chromosome_set::human(), cow = chromosome_set::species("cow");
  EXPECT_EQ(plink1_chrom_code(human, "chr1"), "1");
  EXPECT_EQ(plink1_chrom_code(human, "X"), "23");
  EXPECT_EQ(plink1_chrom_code(human, "Y"), "24");
  EXPECT_EQ(plink1_chrom_code(human, "XY"), "25");
  EXPECT_EQ(plink1_chrom_code(human, "MT"), "26");
  EXPECT_EQ(plink1_chrom_code(human, "0"), "0");
  EXPECT_EQ(plink1_chrom_code(cow, "X"), "30");
  EXPECT_EQ(plink1_chrom_code(cow, "29"), "29");
}

// ------------------------------------------------------------------------------------------------
// 2. Side by side with plink1.9

namespace {

namespace fs = std::filesystem;

using test::run_once;
using test::shq;
using test::work;

std::string sci(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3e", x);
  return b;
}

struct ld_dataset {
  std::string name;
  std::string source;    ///< under ../shared/data, or "" for generated
  std::string species;   ///< "--cow" or ""
  std::string extract;   ///< which variants: "first:N", "ends:N" (first N and last N), "" = all
  std::string simulate;  ///< panoramix simulate arguments, or "sexed"
};

void PrintTo(const ld_dataset& d, std::ostream* os) { *os << d.name; }

const std::vector<ld_dataset>& ld_datasets() {
  static const std::vector<ld_dataset> all = {
      {"hapmap3", "hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap", "", "first:2000", ""},
      {"rice44k", "rice44k/UNL", "", "first:2000", ""},
      {"mice", "bglr_mice/mice", "", "ends:1000", ""},  // last 1000 include all 272 X variants
      {"cattle", "synbreed_cattle/cattle", "--cow", "first:2000", ""},
      {"sim_missing", "", "", "",
       "--samples 500 --variants 2000 --missing 0.05 --monomorphic 0.02 --chromosomes 4 --seed 17"},
      {"sexed", "", "", "", "sexed"},
  };
  return all;
}

/// Input prefix ("" when a shared dataset is absent) and the extra input flags.
std::string prepare_input(const ld_dataset& d, std::string& flags) {
  static std::map<std::string, std::pair<std::string, std::string>> made;
  auto it = made.find(d.name);
  if (it != made.end()) {
    flags = it->second.second;
    return it->second.first;
  }
  std::string prefix;
  if (!d.source.empty()) {
    prefix = test::shared_data(d.source);
    if (prefix.empty()) return "";
  } else if (d.simulate == "sexed") {
    static sexed_set s;  // kept for the whole run: its directory holds the files
    make_sexed_set(s);
    prefix = s.prefix;
  } else {
    prefix = work().path(d.name);
    if (test::panoramix("simulate " + d.simulate + " --threads 2 --out " + shq(prefix),
                        prefix + ".sim.txt") != 0)
      throw std::runtime_error("simulate failed: " + test::read_text(prefix + ".sim.txt"));
  }
  flags = d.species;
  if (!d.extract.empty()) {
    std::vector<std::string> ids;
    std::ifstream bim(prefix + ".bim");
    for (std::string line; std::getline(bim, line);) {
      std::istringstream ss(line);
      std::string c, id;
      ss >> c >> id;
      ids.push_back(id);
    }
    const auto colon = d.extract.find(':');
    const size_t k = std::stoul(d.extract.substr(colon + 1));
    const std::string list = work().path(d.name + ".extract");
    std::ofstream out(list);
    for (size_t j = 0; j < ids.size(); ++j)
      if (j < k || (d.extract.rfind("ends", 0) == 0 && j + k >= ids.size())) out << ids[j] << '\n';
    flags += " --extract " + shq(list);
  }
  made.emplace(d.name, std::make_pair(prefix, flags));
  return prefix;
}

/// Runs panoramix ld and plink1.9 with the same LD flags; returns "" or the failure.
std::string run_both(const std::string& input, const std::string& in_flags, const std::string& tag,
                     const std::string& pmx_flags, const std::string& plink_flags,
                     std::string& ours, std::string& theirs) {
  ours = work().path(tag + ".pmx");
  theirs = work().path(tag + ".plink");
  const std::string in = "--bfile " + shq(input) + (in_flags.empty() ? "" : " " + in_flags);
  const std::string a =
      std::string(PMX_BINARY) + " ld " + in + " " + pmx_flags + " --threads 2 --out " + shq(ours);
  const std::string b = "plink1.9 " + in + " --keep-allele-order " + plink_flags +
                        " --threads 2 --out " + shq(theirs);
  if (const int rc = run_once(a, ours + ".txt"); rc != 0)
    return "panoramix failed (" + std::to_string(rc) + "): " + a + "\n" +
           test::read_text(ours + ".txt");
  if (const int rc = run_once(b, theirs + ".txt"); rc != 0)
    return "plink1.9 failed (" + std::to_string(rc) + "): " + b + "\n" +
           test::read_text(theirs + ".txt");
  return "";
}

int64_t count_variants(const std::string& ld_bin) {
  return static_cast<int64_t>(std::sqrt(double(fs::file_size(ld_bin) / 8)) + 0.5);
}

void expect_same_square(const std::string& ours, const std::string& theirs) {
  const auto a = test::read_doubles(ours), b = test::read_doubles(theirs);
  ASSERT_EQ(a.size(), b.size()) << ours << " vs " << theirs;
  const int64_t m = count_variants(theirs);
  ASSERT_EQ(static_cast<size_t>(m * m), b.size());
  int64_t nan_mismatch = 0, nans = 0, where = -1;
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    if (std::isnan(a[k]) || std::isnan(b[k])) {
      nan_mismatch += std::isnan(a[k]) != std::isnan(b[k]);
      nans += std::isnan(b[k]);
      continue;
    }
    const double d = std::fabs(a[k] - b[k]);
    if (d > worst) worst = d, where = static_cast<int64_t>(k);
  }
  EXPECT_EQ(nan_mismatch, 0) << "entries NaN on one side only";
  EXPECT_LE(worst, 1e-10) << "worst at (" << where / m << ", " << where % m << ")";
  ::testing::Test::RecordProperty("variants", std::to_string(m));
  ::testing::Test::RecordProperty("max_abs_diff", sci(worst));
  ::testing::Test::RecordProperty("nan_entries", std::to_string(nans));
  ::testing::Test::RecordProperty("bit_identical", same_bits(a, b) ? "yes" : "no");
  std::error_code ec;  // 30-50 MB each: drop them once compared
  fs::remove(ours, ec);
  fs::remove(theirs, ec);
}

struct table {
  std::string header;
  std::vector<std::string> lines;
  std::map<std::pair<std::string, std::string>, std::string>
      value;  // (SNP_A, SNP_B) -> printed value
};

table read_table(const std::string& path, int snp_a_col, int snp_b_col) {
  table t;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::getline(in, t.header);
  for (std::string line; std::getline(in, line);) {
    t.lines.push_back(line);
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    if (static_cast<int>(f.size()) <= snp_b_col)
      throw std::runtime_error(path + ": short line " + line);
    t.value[{f[snp_a_col], f[snp_b_col]}] = f.back();
  }
  return t;
}

void expect_same_table(const std::string& ours, const std::string& theirs, bool with_freqs) {
  const int a_col = 2, b_col = with_freqs ? 6 : 5;
  const table a = read_table(ours, a_col, b_col), b = read_table(theirs, a_col, b_col);
  EXPECT_EQ(a.header, b.header);
  int64_t only_ours = 0, only_theirs = 0, value_diff = 0;
  std::string first;
  for (const auto& [key, v] : a.value) {
    auto it = b.value.find(key);
    if (it == b.value.end()) {
      if (++only_ours <= 3)
        first += "\n  only panoramix: " + key.first + " " + key.second + " " + v;
    } else if (it->second != v && ++value_diff <= 3) {
      first += "\n  value: " + key.first + " " + key.second + " " + v + " vs " + it->second;
    }
  }
  for (const auto& [key, v] : b.value)
    if (!a.value.count(key) && ++only_theirs <= 3)
      first += "\n  only plink1.9: " + key.first + " " + key.second + " " + v;
  EXPECT_EQ(only_ours + only_theirs + value_diff, 0)
      << a.value.size() << " vs " << b.value.size() << " pairs; " << only_ours
      << " only in panoramix, " << only_theirs << " only in plink1.9, " << value_diff
      << " printed values differ:" << first;
  EXPECT_TRUE(a.lines == b.lines) << "same pairs and values but the lines differ (layout)";
  ::testing::Test::RecordProperty("pairs", std::to_string(b.lines.size()));
}

#define PMX_REQUIRE_PLINK19()          \
  if (!test::have_program("plink1.9")) \
  GTEST_SKIP() << "plink1.9 is not on PATH; cannot compare against it"

class LdVsPlink : public ::testing::TestWithParam<ld_dataset> {
 protected:
  void SetUp() override {
    PMX_REQUIRE_PLINK19();
    input_ = prepare_input(GetParam(), flags_);
    if (input_.empty())
      GTEST_SKIP() << "dataset " << GetParam().source << " not found under " << PMX_SHARED_DATA;
  }
  void square(const std::string& stat) {
    std::string ours, theirs;
    const std::string tag = GetParam().name + ".sq_" + stat;
    ASSERT_EQ(run_both(input_, flags_, tag, "--" + stat + " square", "--" + stat + " square bin",
                       ours, theirs),
              "");
    expect_same_square(ours + ".ld.bin", theirs + ".ld.bin");
  }
  void windowed(const std::string& tag, const std::string& flags, bool with_freqs = false) {
    std::string ours, theirs;
    ASSERT_EQ(run_both(input_, flags_, GetParam().name + "." + tag, flags, flags, ours, theirs),
              "");
    expect_same_table(ours + ".ld", theirs + ".ld", with_freqs);
  }
  std::string input_, flags_;
};

TEST_P(LdVsPlink, SquareR2) { square("r2"); }
TEST_P(LdVsPlink, SquareR) { square("r"); }
TEST_P(LdVsPlink, TableDefaultWindow) { windowed("default", "--r2"); }
TEST_P(LdVsPlink, TableWideWindowAllPairs) {
  windowed("wide", "--r2 --ld-window-r2 0 --ld-window 50 --ld-window-kb 100000");
}
TEST_P(LdVsPlink, TableSignedRWithFreqs) {
  windowed("r_freqs", "--r --with-freqs --ld-window 20 --ld-window-r2 0.05", true);
}

INSTANTIATE_TEST_SUITE_P(Datasets, LdVsPlink, ::testing::ValuesIn(ld_datasets()),
                         [](const ::testing::TestParamInfo<ld_dataset>& i) {
                           return i.param.name;
                         });

// PLINK 1.9's --nonfounders changes the --with-freqs frequencies, not the LD (founders only).
TEST(LdVsPlinkNonfounders, FrequenciesChangeLdDoesNot) {
  PMX_REQUIRE_PLINK19();
  std::string flags;
  const std::string input = prepare_input(ld_datasets().back(), flags);  // sexed: has nonfounders
  std::string ours, theirs;
  ASSERT_EQ(run_both(input, flags, "sexed.nonfounders_sq", "--r2 square --nonfounders",
                     "--r2 square bin --nonfounders", ours, theirs),
            "");
  expect_same_square(ours + ".ld.bin", theirs + ".ld.bin");
  const std::string t = "--r2 --with-freqs --ld-window-r2 0 --nonfounders";
  ASSERT_EQ(run_both(input, flags, "sexed.nonfounders_table", t, t, ours, theirs), "");
  expect_same_table(ours + ".ld", theirs + ".ld", true);
}

// Inter-chromosome tables on small sets (every later variant is a candidate).
TEST(LdVsPlinkInterChr, SimulatedAndSexed) {
  PMX_REQUIRE_PLINK19();
  const ld_dataset small{"sim_small", "", "", "",
                         "--samples 150 --variants 300 --missing 0.05 --chromosomes 3 --seed 3"};
  for (const ld_dataset& d : {small, ld_datasets().back()}) {
    std::string flags;
    const std::string input = prepare_input(d, flags);
    std::string ours, theirs;
    ASSERT_EQ(run_both(input, flags, d.name + ".inter", "--r2 --inter-chr --ld-window-r2 0.05",
                       "--r2 --inter-chr --ld-window-r2 0.05", ours, theirs),
              "");
    expect_same_table(ours + ".ld", theirs + ".ld", false);
  }
}

}  // namespace
