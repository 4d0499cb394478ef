// The genotype simulator (determinism, missingness, frequencies, LD, structure) and the PLINK
// writer (round trip through plink_fileset).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "panoramix/error.hpp"
#include "panoramix/plink_write.hpp"
#include "simulate/simulate.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using sim::genotype_params;
using sim::simulate_genotypes;

genotype_params small(int64_t n, int64_t m, uint64_t seed = 7) {
  genotype_params p;
  p.n_samples = n;
  p.n_variants = m;
  p.seed = seed;
  return p;
}

// A1 frequency of a variant over samples [first, last), NaN when all are missing.
double a1_freq(const variant_major_view& g, int64_t j, int64_t first, int64_t last) {
  int64_t sum = 0, called = 0;
  for (int64_t i = first; i < last; ++i) {
    const int d = dosage_of_code(g.code(i, j));
    if (d >= 0) sum += d, ++called;
  }
  return called ? static_cast<double>(sum) / (2.0 * called) : NAN;
}

// Squared correlation of the dosages of two variants over samples called in both; 0 when
// either is constant.
double r2(const variant_major_view& g, int64_t a, int64_t b) {
  double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (int64_t i = 0; i < g.n_samples; ++i) {
    const int x = dosage_of_code(g.code(i, a)), y = dosage_of_code(g.code(i, b));
    if (x < 0 || y < 0) continue;
    n += 1, sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
  }
  const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
  return vx > 1e-9 && vy > 1e-9 ? cxy * cxy / (vx * vy) : 0;
}

TEST(Simulate, IdenticalForAnyThreadCount) {
  genotype_params p = small(203, 1500);  // n not a multiple of 4: padding calls too
  p.missing_rate = 0.02;
  p.monomorphic_fraction = 0.1;
  const sim::dataset a = simulate_genotypes(p, 1), b = simulate_genotypes(p, 2),
                     c = simulate_genotypes(p, 3);
  for (const sim::dataset* other : {&b, &c}) {
    ASSERT_EQ(a.genotypes.row_bytes(), other->genotypes.row_bytes());
    EXPECT_EQ(0, std::memcmp(a.genotypes.row(0), other->genotypes.row(0),
                             a.genotypes.row_bytes() * p.n_variants));
    for (int64_t j = 0; j < p.n_variants; ++j) {
      EXPECT_EQ(a.variants[j].id, other->variants[j].id);
      EXPECT_EQ(a.variants[j].a1, other->variants[j].a1);
    }
  }
  p.seed = 8;
  const sim::dataset d = simulate_genotypes(p, 2);
  EXPECT_NE(0, std::memcmp(a.genotypes.row(0), d.genotypes.row(0),
                           a.genotypes.row_bytes() * p.n_variants));
}

TEST(Simulate, RecordsAreWellFormed) {
  genotype_params p = small(10, 95);
  p.n_chromosomes = 3;
  p.ld_block_length = 7;
  const sim::dataset d = simulate_genotypes(p, 2);
  ASSERT_EQ(d.samples.size(), 10u);
  EXPECT_EQ(d.samples[0].fid, "pop1");
  EXPECT_EQ(d.samples[0].iid, "s000001");
  EXPECT_EQ(d.samples[9].fid, "pop3");
  EXPECT_EQ(d.samples[9].iid, "s000010");
  for (size_t i = 0; i < d.samples.size(); ++i) {
    EXPECT_EQ(d.samples[i].sex, i % 2 == 0 ? 1 : 2);
    EXPECT_EQ(d.samples[i].phenotype, "-9");
    EXPECT_TRUE(d.samples[i].founder());
  }
  std::set<std::string> ids;
  const std::string bases = "ACGT";
  for (size_t j = 0; j < d.variants.size(); ++j) {
    const variant_record& v = d.variants[j];
    EXPECT_TRUE(ids.insert(v.id).second) << v.id;
    EXPECT_NE(v.a1, v.a2);
    EXPECT_EQ(v.a1.size(), 1u);
    EXPECT_NE(bases.find(v.a1), std::string::npos);
    EXPECT_NE(bases.find(v.a2), std::string::npos);
    EXPECT_EQ(v.cm, 0);
    EXPECT_GT(v.pos, 0);
    if (j == 0) continue;
    if (d.variants[j - 1].chrom == v.chrom) {
      EXPECT_GT(v.pos, d.variants[j - 1].pos);
    } else {
      EXPECT_EQ(std::stoi(v.chrom), std::stoi(d.variants[j - 1].chrom) + 1);
    }
  }
  EXPECT_EQ(d.variants.front().chrom, "1");
  EXPECT_EQ(d.variants.back().chrom, "3");
}

TEST(Simulate, TinyAndDegenerateShapes) {
  sim::dataset d = simulate_genotypes(small(1, 1), 4);
  EXPECT_EQ(d.genotypes.n_samples(), 1);
  EXPECT_EQ(d.genotypes.n_variants(), 1);
  EXPECT_EQ(d.genotypes.row(0)[0] & 0xfc, 0);  // padding calls are zero
  genotype_params p = small(5, 3);
  p.n_chromosomes = 22;  // more chromosomes than variants
  p.ld_block_length = 1;
  p.ld_strength = 1;
  p.fst = 0;
  p.min_maf = 0.5;
  d = simulate_genotypes(p, 2);
  EXPECT_EQ(d.variants.size(), 3u);
  for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(d.genotypes.row(j)[1] & 0xfc, 0);
}

TEST(Simulate, RejectsBadParameters) {
  const auto bad = [](auto edit) {
    genotype_params p = small(10, 10);
    edit(p);
    EXPECT_THROW(simulate_genotypes(p, 1), input_error);
  };
  bad([](genotype_params& p) { p.n_samples = 0; });
  bad([](genotype_params& p) { p.n_variants = -1; });
  bad([](genotype_params& p) { p.missing_rate = 1; });
  bad([](genotype_params& p) { p.missing_rate = -0.1; });
  bad([](genotype_params& p) { p.missing_rate = NAN; });
  bad([](genotype_params& p) { p.n_populations = 0; });
  bad([](genotype_params& p) { p.fst = 1; });
  bad([](genotype_params& p) { p.n_chromosomes = 0; });
  bad([](genotype_params& p) { p.ld_block_length = 0; });
  bad([](genotype_params& p) { p.ld_strength = 1.5; });
  bad([](genotype_params& p) { p.min_maf = 0.6; });
  bad([](genotype_params& p) { p.monomorphic_fraction = -1; });
  try {
    genotype_params p = small(0, 10);
    simulate_genotypes(p, 1);
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("samples"), std::string::npos) << e.what();
  }
}

TEST(Simulate, MissingRateMatches) {
  for (double rate : {0.0, 0.003, 0.05, 0.3}) {
    genotype_params p = small(997, 1200);
    p.missing_rate = rate;
    const sim::dataset d = simulate_genotypes(p, 2);
    const variant_major_view g = d.genotypes.view();
    int64_t missing = 0;
    for (int64_t j = 0; j < g.n_variants; ++j)
      for (int64_t i = 0; i < g.n_samples; ++i) missing += g.code(i, j) == code_missing;
    const double calls = static_cast<double>(g.n_samples * g.n_variants);
    const double sd = std::sqrt(calls * rate * (1 - rate));
    EXPECT_NEAR(static_cast<double>(missing), calls * rate, 5 * sd + 0.5) << "rate " << rate;
  }
}

TEST(Simulate, AlleleFrequencySpectrum) {
  genotype_params p = small(1000, 4000);
  const sim::dataset d = simulate_genotypes(p, 2);
  const variant_major_view g = d.genotypes.view();
  double sum_maf = 0;
  int64_t polymorphic = 0, rare = 0, common = 0;
  for (int64_t j = 0; j < g.n_variants; ++j) {
    const double f = a1_freq(g, j, 0, g.n_samples);
    const double maf = std::min(f, 1 - f);
    sum_maf += maf;
    polymorphic += maf > 0;
    rare += maf < 0.05;
    common += maf >= 0.4;
  }
  const double mean_maf = sum_maf / static_cast<double>(g.n_variants);
  EXPECT_GT(mean_maf, 0.12);  // folded arcsine truncated at 0.01 has mean ~0.19
  EXPECT_LT(mean_maf, 0.26);
  EXPECT_GT(polymorphic, g.n_variants * 97 / 100);
  EXPECT_GT(rare, g.n_variants / 10);  // U-shaped: both tails well filled
  EXPECT_GT(common, g.n_variants / 10);

  // A narrow spectrum without structure stays narrow; forced monomorphic variants are.
  p.fst = 0;
  p.min_maf = 0.4;
  p.monomorphic_fraction = 0.3;
  const sim::dataset e = simulate_genotypes(p, 2);
  int64_t mono = 0;
  for (int64_t j = 0; j < p.n_variants; ++j) {
    const double f = a1_freq(e.genotypes.view(), j, 0, p.n_samples);
    const double maf = std::min(f, 1 - f);
    if (maf == 0) {
      ++mono;
    } else {
      EXPECT_GT(maf, 0.3) << "variant " << j;
    }
  }
  EXPECT_NEAR(static_cast<double>(mono) / p.n_variants, 0.3,
              5 * std::sqrt(0.3 * 0.7 / p.n_variants));
}

TEST(Simulate, LinkageInsideBlocksOnly) {
  genotype_params p = small(800, 4000);
  p.fst = 0;  // structure would add long-range LD of its own
  p.n_chromosomes = 4;
  p.ld_block_length = 20;
  const sim::dataset d = simulate_genotypes(p, 2);
  const variant_major_view g = d.genotypes.view();
  double within = 0, between = 0;
  int n_within = 0, n_between = 0;
  for (int64_t j = 0; j + 1 < 1000; ++j)  // chromosome 1: variants 0..999, blocks of 20
    if ((j + 1) % 20 != 0) within += r2(g, j, j + 1), ++n_within;
  for (int64_t j = 0; j < 1000; ++j) between += r2(g, j, j + 2000), ++n_between;  // chrom 1 vs 3
  within /= n_within;
  between /= n_between;
  EXPECT_GT(within, 0.1);
  EXPECT_LT(between, 0.01);
  EXPECT_GT(within, 10 * between);

  p.ld_strength = 0;  // founders redraw every variant: much weaker LD
  const sim::dataset e = simulate_genotypes(p, 2);
  double weak = 0;
  for (int64_t j = 0; j + 1 < 1000; ++j)
    if ((j + 1) % 20 != 0) weak += r2(e.genotypes.view(), j, j + 1);
  EXPECT_LT(weak / n_within, within / 3);
}

TEST(Simulate, PopulationStructure) {
  genotype_params p = small(900, 3000);  // three populations of 300
  p.fst = 0.1;
  const sim::dataset d = simulate_genotypes(p, 2);
  const variant_major_view g = d.genotypes.view();
  double between = 0, within = 0;
  for (int64_t j = 0; j < g.n_variants; ++j) {
    between += std::fabs(a1_freq(g, j, 0, 300) - a1_freq(g, j, 300, 600));
    within += std::fabs(a1_freq(g, j, 0, 150) - a1_freq(g, j, 150, 300));
  }
  EXPECT_GT(between, 2 * within);
  EXPECT_EQ(d.samples[299].fid, "pop1");
  EXPECT_EQ(d.samples[300].fid, "pop2");
  EXPECT_EQ(d.samples[899].fid, "pop3");
}

TEST(PlinkWrite, RoundTrip) {
  test::temp_dir dir;
  for (int64_t n : {1, 4, 203}) {
    genotype_params p = small(n, 301);
    p.missing_rate = 0.05;
    const sim::dataset d = simulate_genotypes(p, 2);
    const std::string prefix = dir.path("sim" + std::to_string(n));
    write_plink_fileset(prefix, d.samples, d.variants, d.genotypes.view());
    EXPECT_EQ(std::filesystem::file_size(prefix + ".bed"),
              static_cast<uintmax_t>(3 + (n + 3) / 4 * p.n_variants));
    const plink_fileset in(prefix);
    ASSERT_EQ(in.n_samples(), n);
    ASSERT_EQ(in.n_variants(), p.n_variants);
    const variant_major_view g = in.bed().view(), want = d.genotypes.view();
    for (int64_t j = 0; j < p.n_variants; ++j)
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(g.code(i, j), want.code(i, j)) << i << "," << j;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(in.sample(i).fid, d.samples[i].fid);
      EXPECT_EQ(in.sample(i).iid, d.samples[i].iid);
      EXPECT_EQ(in.sample(i).sex, d.samples[i].sex);
      EXPECT_EQ(in.sample(i).phenotype, "-9");
    }
    for (int64_t j = 0; j < p.n_variants; ++j) {
      const variant_record &a = in.variant(j), &b = d.variants[j];
      EXPECT_EQ(a.chrom, b.chrom);
      EXPECT_EQ(a.id, b.id);
      EXPECT_EQ(a.cm, b.cm);
      EXPECT_EQ(a.pos, b.pos);
      EXPECT_EQ(a.a1, b.a1);
      EXPECT_EQ(a.a2, b.a2);
    }
  }
}

TEST(PlinkWrite, ZeroesPaddingOfStridedViews) {
  test::temp_dir dir;
  // 5 samples, 2 variants in rows of 4 bytes: the file rows are 2 bytes, padding calls zero.
  std::vector<uint8_t> bytes = {0xe4, 0xff, 0xaa, 0xbb, 0x1b, 0xfe, 0xcc, 0xdd};
  const variant_major_view g{bytes.data(), 5, 2, 4};
  std::vector<sample_record> samples(5);
  for (int i = 0; i < 5; ++i) samples[i] = {"f", "i" + std::to_string(i), "0", "0", 0, "-9"};
  std::vector<variant_record> variants = {{"1", "a", 0.5, 10, "A", "G"},
                                          {"1", "b", 0, 20, "C", "T"}};
  write_plink_fileset(dir.path("s"), samples, variants, g);
  const std::string bed = test::read_text(dir.path("s.bed"));
  EXPECT_EQ(bed, std::string("\x6c\x1b\x01\xe4\x03\x1b\x02", 7));
  EXPECT_EQ(test::read_text(dir.path("s.bim")), "1\ta\t0.5\t10\tA\tG\n1\tb\t0\t20\tC\tT\n");
  EXPECT_EQ(test::read_text(dir.path("s.fam")).substr(0, 14), "f i0 0 0 0 -9\n");
}

TEST(PlinkWrite, FailureLeavesNoFiles) {
  test::temp_dir dir;
  const sim::dataset d = simulate_genotypes(small(3, 2), 1);
  EXPECT_THROW(
      write_plink_fileset(dir.path("missing_dir/x"), d.samples, d.variants, d.genotypes.view()),
      io_error);
  std::vector<sample_record> bad = d.samples;
  bad[1].iid = "has space";
  EXPECT_THROW(write_plink_fileset(dir.path("x"), bad, d.variants, d.genotypes.view()),
               input_error);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path("")));
  EXPECT_THROW(write_plink_fileset(dir.path("y"), d.samples, {}, d.genotypes.view()), logic_error);
}

}  // namespace
}  // namespace pmx
