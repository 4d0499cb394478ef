// The pieces of PLINK 2's filters below the command line: the exact HWE tests (autosomal and
// chromosome X) against an independent oracle (the whole distribution in long double, normalised)
// to 1e-10 and against plink2 --hardy (to the digits plink2 prints; X also to 1e-10 by bisection on
// plink2's --hwe threshold), the chromosome and --snps selections, and the genotype filters'
// counting rules on hand-made data (each case's expected lists worked out by hand).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "panoramix/error.hpp"
#include "panoramix/hardy_weinberg.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "panoramix/quality_filters.hpp"
#include "panoramix/variant_ranges.hpp"
#include "sexed_filesets.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

// P(het = h | n genotypes, r rare alleles) ∝ n! / (hom_r! het! hom_c!) 2^het, summed in long double
// with every term from lgammal, normalised over the whole support.
struct hwe_oracle {
  long double p = 0, midp = 0;
};
hwe_oracle exact_distribution(int64_t hom1, int64_t het, int64_t hom2) {
  const int64_t n = hom1 + het + hom2, rare = 2 * std::min(hom1, hom2) + het;
  auto log_term = [&](int64_t h) {
    const int64_t r = (rare - h) / 2, c = n - h - r;
    return -lgammal(r + 1.0L) - lgammal(h + 1.0L) - lgammal(c + 1.0L) + h * logl(2.0L);
  };
  const long double obs = log_term(het);
  long double total = 0, tail = 0, ties = 0;
  for (int64_t h = rare % 2; h <= rare && h <= n; h += 2) {
    const long double t = expl(log_term(h) - obs);  // relative to the observed outcome
    total += t;
    if (t <= 1 + 1e-12L) tail += t;
    if (fabsl(t - 1) <= 1e-12L) ties += t;
  }
  return {tail / total, (tail - ties / 2) / total};
}

TEST(HardyWeinberg, EqualsTheWholeDistributionTo1e10) {
  const int64_t cases[][3] = {{0, 0, 0},     {5, 0, 0},      {0, 7, 0},      {0, 0, 9},     {1, 2, 1},
                              {10, 0, 10},   {0, 20, 0},     {25, 50, 25},   {40, 20, 40},  {3, 94, 3},
                              {99, 1, 0},    {344, 929, 541}, {1000, 10, 1000}, {100, 800, 100},
                              {4000, 2000, 500}, {2500, 5000, 2500}, {7, 3, 990}, {0, 1, 999}};
  for (const auto& c : cases)
    for (bool midp : {false, true}) {
      const hwe_oracle o = exact_distribution(c[0], c[1], c[2]);
      const double want = c[0] + c[1] + c[2] == 0 ? (midp ? 0.5 : 1.0) : double(midp ? o.midp : o.p);
      const double got = hwe_exact_p(c[0], c[1], c[2], midp);
      SCOPED_TRACE(std::to_string(c[0]) + " " + std::to_string(c[1]) + " " + std::to_string(c[2]) +
                   (midp ? " midp" : ""));
      if (want < 1e-280) {
        EXPECT_LT(got, 1e-270);
      } else {
        EXPECT_NEAR(got, want, 1e-10 * want);
      }
      EXPECT_EQ(hwe_exact_p(c[2], c[1], c[0], midp), got) << "the two homozygous classes are symmetric";
    }
  // Random counts, n up to 3000.
  std::mt19937_64 rng(11);
  for (int k = 0; k < 300; ++k) {
    const int64_t a = int64_t(rng() % 1500), b = int64_t(rng() % 1500), h = int64_t(rng() % 1500);
    for (bool midp : {false, true}) {
      const hwe_oracle o = exact_distribution(a, h, b);
      const double want = double(midp ? o.midp : o.p);
      if (want < 1e-280) continue;
      EXPECT_NEAR(hwe_exact_p(a, h, b, midp), want, 1e-10 * want) << a << " " << h << " " << b << " " << midp;
    }
  }
}

// plink2 --hardy [midp] on real data: our p from the counts plink2 printed, to plink2's 6 digits.
TEST(HardyWeinberg, AgreesWithPlink2Hardy) {
  if (!have_program("plink2")) GTEST_SKIP() << "plink2 is not installed";
  const std::string mice = shared_data("bglr_mice/mice"), rice = shared_data("rice44k/UNL"),
                    hm3 = shared_data("hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap");
  if (mice.empty() || rice.empty() || hm3.empty()) GTEST_SKIP() << "data absent";
  int k = 0;
  for (const std::string& set : {mice + " --mouse", rice + " --chr-set 12", hm3 + " --chr 1-22"})
    for (bool midp : {false, true}) {
      const std::string out = work().path("hardy" + std::to_string(k++));
      ASSERT_EQ(run("plink2 --bfile " + set + " --hardy" + (midp ? " midp" : "") + " --threads 2 --out " + shq(out),
                    out + ".txt"),
                0);
      std::ifstream in(out + ".hardy");
      std::string line;
      std::getline(in, line);  // #CHROM ID A1 AX HOM_A1_CT HET_A1_CT TWO_AX_CT O(HET_A1) E(HET_A1) P|MIDP
      int64_t rows = 0;
      while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string chrom, id, a1, ax, o, e, p_text;
        int64_t hom1, het, hom2;
        ss >> chrom >> id >> a1 >> ax >> hom1 >> het >> hom2 >> o >> e >> p_text;
        const double want = std::stod(p_text), got = hwe_exact_p(hom1, het, hom2, midp);
        // plink2 prints 6 significant digits (and clamps below 1e-308 / output-min-p).
        if (want > 1e-300) {
          ASSERT_NEAR(got, want, 6e-6 * want) << line;
        }
        ++rows;
      }
      EXPECT_GT(rows, 1000);
    }
}

// Graffelman and Weir's X test, by enumeration: every table (male allele-1 count m1, female
// heterozygotes h) with the observed allele totals, P ∝ 2^h / (m1! m2! a! h! b!) from lgammal,
// normalised over the whole support in long double.
hwe_oracle exact_x_distribution(int64_t fa, int64_t fh, int64_t fb, int64_t m1, int64_t m2) {
  const int64_t nf = fa + fh + fb, nm = m1 + m2, n1 = 2 * fa + fh + m1, n2 = 2 * fb + fh + m2;
  auto log_p = [&](int64_t r1, int64_t h) {
    const int64_t a = (n1 - r1 - h) / 2, b = (n2 - (nm - r1) - h) / 2;
    return -lgammal(r1 + 1.0L) - lgammal(nm - r1 + 1.0L) - lgammal(a + 1.0L) - lgammal(h + 1.0L) -
           lgammal(b + 1.0L) + h * logl(2.0L);
  };
  const long double obs = log_p(m1, fh);
  long double total = 0, tail = 0, ties = 0;
  for (int64_t r1 = 0; r1 <= nm; ++r1) {
    const int64_t f1 = n1 - r1, f2 = n2 - (nm - r1);
    if (f1 < 0 || f2 < 0 || f1 + f2 != 2 * nf) continue;
    for (int64_t h = f1 % 2; h <= std::min(f1, f2); h += 2) {
      const long double t = expl(log_p(r1, h) - obs);
      total += t;
      if (t <= 1 + 1e-12L) tail += t;
      if (fabsl(t - 1) <= 1e-12L) ties += t;
    }
  }
  return {tail / total, (tail - ties / 2) / total};
}

TEST(HardyWeinbergX, EqualsTheWholeDistributionTo1e10) {
  const int64_t cases[][5] = {
      {10, 5, 3, 7, 2},   {0, 0, 0, 5, 3},    {0, 12, 0, 0, 9},  {30, 0, 30, 20, 20}, {1, 2, 1, 1, 1},
      {71, 32, 3, 75, 4}, {82, 24, 2, 78, 2}, {0, 1, 0, 1, 0},   {5, 0, 0, 0, 5},     {200, 150, 40, 180, 70},
      {3, 94, 3, 50, 50}, {400, 10, 390, 300, 310}, {0, 0, 7, 6, 0}, {12, 40, 9, 0, 0}};
  for (const auto& c : cases)
    for (bool midp : {false, true}) {
      SCOPED_TRACE(::testing::PrintToString(std::vector<int64_t>(c, c + 5)) + (midp ? " midp" : ""));
      const hwe_oracle o = exact_x_distribution(c[0], c[1], c[2], c[3], c[4]);
      const double want = double(midp ? o.midp : o.p), got = hwe_x_exact_p(c[0], c[1], c[2], c[3], c[4], midp);
      if (want < 1e-280) {
        EXPECT_LT(got, 1e-270);
      } else {
        EXPECT_NEAR(got, want, 1e-10 * want);
      }
      EXPECT_NEAR(hwe_x_exact_p(c[2], c[1], c[0], c[4], c[3], midp), got, 1e-13 * got) << "the alleles are symmetric";
      if (c[3] + c[4] == 0) {
        EXPECT_EQ(got, hwe_exact_p(c[0], c[1], c[2], midp)) << "no males: the autosomal test";
      }
    }
  std::mt19937_64 rng(23);
  for (int k = 0; k < 200; ++k) {
    const int64_t fa = int64_t(rng() % 120), fh = int64_t(rng() % 120), fb = int64_t(rng() % 120),
                  m1 = int64_t(rng() % 150), m2 = int64_t(rng() % 150);
    for (bool midp : {false, true}) {
      const hwe_oracle o = exact_x_distribution(fa, fh, fb, m1, m2);
      const double want = double(midp ? o.midp : o.p);
      if (want < 1e-280) continue;
      EXPECT_NEAR(hwe_x_exact_p(fa, fh, fb, m1, m2, midp), want, 1e-10 * want)
          << fa << " " << fh << " " << fb << " " << m1 << " " << m2 << " " << midp;
    }
  }
}

// plink2's mid-p counts some ties with the observed table and not others (see
// hardy_weinberg_x.cpp); two cases worked by hand from the table weights:
// - females 0/2/109, males 0/110: the four tables (m1, h) = (0, 2), (0, 0), (1, 1), (2, 0) weigh
//   220 : 1 : 220 : 110·109/222 (total 54946/111); (1, 1) ties with the observed (0, 2) but is the
//   first table of a row that is all tail, which plink2 does not count: p = 1, mid-p =
//   (54946/111 - 110) / (54946/111) = 42736/54946 (plink2 prints 0.777782), not 30526/54946;
// - the observed table on the low side of its row's mode, with the next table equal to it (ratio
//   4·35·22 / (56·55) = 1): plink2 does not count that tie either, so mid-p = p - P(observed)/2.
TEST(HardyWeinbergX, MidpCountsTheTiesPlink2Counts) {
  EXPECT_DOUBLE_EQ(hwe_x_exact_p(0, 2, 109, 0, 110, false), 1.0);
  EXPECT_NEAR(hwe_x_exact_p(0, 2, 109, 0, 110, true), 42736.0 / 54946.0, 1e-15);
  // P(observed) from the whole distribution: p - mid-p is half of it.
  const int64_t fa = 35, fh = 54, fb = 22, m1 = 37, m2 = 21;
  const hwe_oracle o = exact_x_distribution(fa, fh, fb, m1, m2);
  const double p = hwe_x_exact_p(fa, fh, fb, m1, m2, false), midp = hwe_x_exact_p(fa, fh, fb, m1, m2, true);
  EXPECT_NEAR(p, double(o.p), 1e-10 * double(o.p));
  EXPECT_NEAR(2 * (p - midp), double(o.p - o.midp), 1e-10) << "one tie of two counted";
}

// The .hardy.x rows of `bfile`: FEMALE_HOM_A1_CT FEMALE_HET_A1_CT FEMALE_TWO_AX_CT MALE_A1_CT
// MALE_AX_CT and the printed p (last column), by ID.
struct hardy_x_row {
  std::string id;
  int64_t fa, fh, fb, m1, m2;
  double p;
};
std::vector<hardy_x_row> plink2_hardy_x(const std::string& bfile, const std::string& flags, bool midp,
                                        const std::string& out) {
  EXPECT_EQ(run("plink2 --bfile " + shq(bfile) + " " + flags + " --hardy" + (midp ? " midp" : "") +
                    " --threads 2 --out " + shq(out),
                out + ".txt"),
            0);
  std::ifstream in(out + ".hardy.x");
  std::string line;
  std::getline(in, line);  // #CHROM ID A1 AX FEMALE_HOM_A1_CT ... FEMALE_A1_FREQ MALE_A1_FREQ P|MIDP
  std::vector<hardy_x_row> rows;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string chrom, a1, ax, field;
    hardy_x_row r;
    ss >> chrom >> r.id >> a1 >> ax >> r.fa >> r.fh >> r.fb >> r.m1 >> r.m2;
    while (ss >> field) r.p = std::stod(field);
    rows.push_back(r);
  }
  return rows;
}

// plink2 --hardy [midp] on X: our p of the counts plink2 printed, to plink2's 6 digits, on the
// simulated data and on the mice with their recorded sexes.
TEST(HardyWeinbergX, AgreesWithPlink2HardyX) {
  PMX_REQUIRE_PLINK2();
  const std::string sim = simulated_with_x(), mice = mice_with_recorded_sexes();
  ASSERT_FALSE(sim.empty());
  int k = 0;
  for (const auto& [set, flags] : std::vector<std::pair<std::string, std::string>>{{sim, ""}, {mice, "--mouse"}}) {
    if (set.empty()) continue;  // mice absent
    for (bool midp : {false, true}) {
      const auto rows = plink2_hardy_x(set, flags, midp, work().path("hardyx" + std::to_string(k++)));
      ASSERT_GT(rows.size(), 200u);
      for (const hardy_x_row& r : rows) {
        const double got = hwe_x_exact_p(r.fa, r.fh, r.fb, r.m1, r.m2, midp);
        if (r.p > 1e-300) {
          EXPECT_NEAR(got, r.p, 6e-6 * r.p) << r.id << (midp ? " midp" : "");
        }
      }
    }
  }
}

// plink2's X p-values beyond its printed digits: bisection on the --hwe threshold at which plink2
// starts to remove the variant (it keeps p >= threshold) brackets its p within 1e-12 relative;
// ours is within 1e-10 of the bracket. Variants of the simulated data spread over p (from the
// .hardy.x report), plain and midp.
TEST(HardyWeinbergX, EqualsPlink2sHweThresholdTo1e10) {
  PMX_REQUIRE_PLINK2();
  const std::string sim = simulated_with_x();
  ASSERT_FALSE(sim.empty());
  int k = 0;
  for (bool midp : {false, true}) {
    auto rows = plink2_hardy_x(sim, "", midp, work().path("bisect_hardy" + std::to_string(midp)));
    ASSERT_GT(rows.size(), 200u);
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.p < b.p; });
    for (size_t pick : {size_t(0), size_t(3), rows.size() / 5, rows.size() / 2, rows.size() * 4 / 5}) {
      const hardy_x_row& r = rows[pick];
      if (!(r.p > 1e-300 && r.p < 1)) continue;
      SCOPED_TRACE(r.id + (midp ? " midp" : "") + " printed p " + std::to_string(r.p));
      auto kept = [&](double threshold) {
        char t[64];
        std::snprintf(t, sizeof t, "%.17g", threshold);
        const std::string out = work().path("bisect" + std::to_string(k++));
        run("plink2 --bfile " + shq(sim) + " --snp " + r.id + " --hwe " + t + (midp ? " midp" : "") +
                " --write-snplist --threads 1 --out " + shq(out),
            out + ".txt");
        return read_text(out + ".log").find(": 0 variants removed due to Hardy-Weinberg") != std::string::npos;
      };
      double lo = r.p * (1 - 1e-5), hi = r.p * (1 + 1e-5);  // the printed 6 digits bracket it
      ASSERT_TRUE(kept(lo));
      ASSERT_FALSE(kept(hi));
      while (hi / lo - 1 > 1e-12) {
        const double mid = std::sqrt(lo * hi);
        (kept(mid) ? lo : hi) = mid;
      }
      const double got = hwe_x_exact_p(r.fa, r.fh, r.fb, r.m1, r.m2, midp);
      EXPECT_NEAR(got, lo, 1e-10 * lo);
    }
  }
}

TEST(ChromosomeRanges, PlinkListsRangesAndNames) {
  const chromosome_set human = chromosome_set::human();
  auto rec = [](const std::string& c, int64_t pos = 100) {
    variant_record v;
    v.chrom = c, v.pos = pos;
    return v;
  };
  const chromosome_ranges a({"1-3,5", "X"}, {"2"}, false, -1, -1, human);
  EXPECT_TRUE(a.keeps(rec("1")) && a.keeps(rec("chr3")) && a.keeps(rec("5")) && a.keeps(rec("23")) &&
              a.keeps(rec("chrX")));
  EXPECT_FALSE(a.keeps(rec("2")) || a.keeps(rec("4")) || a.keeps(rec("Y")) || a.keeps(rec("0")));
  const chromosome_ranges autos({}, {"1"}, true, -1, -1, human);
  EXPECT_TRUE(autos.keeps(rec("22")));
  for (const char* c : {"1", "0", "X", "Y", "XY", "MT", "26", "contig7"}) EXPECT_FALSE(autos.keeps(rec(c))) << c;
  const chromosome_ranges span({"7"}, {}, false, 100, 200, human);
  EXPECT_TRUE(span.keeps(rec("7", 100)) && span.keeps(rec("7", 200)));
  EXPECT_FALSE(span.keeps(rec("7", 99)) || span.keeps(rec("7", 201)) || span.keeps(rec("8", 150)));
  EXPECT_THROW(chromosome_ranges({"X-Y"}, {}, false, -1, -1, human), input_error);
  EXPECT_THROW(chromosome_ranges({"3-1"}, {}, false, -1, -1, human), input_error);
  EXPECT_THROW(chromosome_ranges({"1,2"}, {}, false, 5, -1, human), input_error) << "--from-bp needs one --chr";
  EXPECT_THROW(chromosome_ranges({}, {}, false, -1, 9, human), input_error);
}

// A source with `ids` as variant IDs on chromosome 1 and `n` samples with every call hom A2.
selected_genotypes with_ids(const std::vector<std::string>& ids, int64_t n = 4) {
  packed_genotypes g(n, static_cast<int64_t>(ids.size()));
  for (int64_t j = 0; j < g.n_variants(); ++j)
    for (int64_t i = 0; i < n; ++i) g.set(i, j, code_hom_a2);
  std::vector<variant_record> v;
  for (const std::string& id : ids) v.push_back({"1", id, 0, 1 + static_cast<int64_t>(v.size()), "A", "C"});
  return selected_genotypes(std::make_unique<memory_genotypes>(std::move(g), std::vector<sample_record>{}, v));
}

std::vector<std::string> kept_ids(const selected_genotypes& d) {
  std::vector<std::string> out;
  for (int64_t j = 0; j < d.n_variants(); ++j) out.push_back(d.variant(j).id);
  return out;
}

TEST(Snps, IdsAndFileOrderRanges) {
  selected_genotypes d = with_ids({"a", "b", "c-d", "e", "f", "g"});
  keep_snps(d, {"b-e,g", "c-d"});
  EXPECT_EQ(kept_ids(d), (std::vector<std::string>{"b", "c-d", "e", "g"}));
  selected_genotypes d2 = with_ids({"a", "b", "c"});
  EXPECT_THROW(keep_snps(d2, {"c-a"}), input_error);
  EXPECT_THROW(keep_snps(d2, {"zz"}), input_error);
}

TEST(ThinCount, KeepsExactlyNReproducibly) {
  std::vector<std::string> ids;
  for (int j = 0; j < 500; ++j) ids.push_back("v" + std::to_string(j));
  const executor exec(backend::cpu, 2);
  quality_filter_options q;
  q.thin_count = 37, q.seeds = {9};
  selected_genotypes a = with_ids(ids), b = with_ids(ids), c = with_ids(ids);
  apply_quality_filters(exec, a, q, nullptr);
  apply_quality_filters(exec, b, q, nullptr);
  q.seeds = {10};
  apply_quality_filters(exec, c, q, nullptr);
  EXPECT_EQ(a.n_variants(), 37);
  EXPECT_EQ(kept_ids(a), kept_ids(b));
  EXPECT_NE(kept_ids(a), kept_ids(c));
  EXPECT_TRUE(std::is_sorted(a.variant_index().begin(), a.variant_index().end()));
  q.thin_count = 600;  // more than there are: plink2 warns and keeps all
  selected_genotypes d = with_ids(ids);
  const auto log = apply_quality_filters(exec, d, q, nullptr);
  EXPECT_EQ(d.n_variants(), 500);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("Warning"), std::string::npos);
}

// Hand-made: 10 samples (0-4 male, 5-9 female; 8 and 9 non-founders), 6 variants. --mind before
// --geno: sample 0 misses 3 of 6 calls and goes at --mind 0.4; with it gone, variant v_m (missing
// only at sample 0 and 1) has 1 of 9 missing.
TEST(QualityFilters, OrderCountsAndFounders) {
  const char* calls[] = {
      // samples 0..9 (A1 dosage, '.' missing)
      "..2222221.",  // v_m: missing at 0, 1, 9
      ".000000000",  // v_mono: monomorphic A2
      ".111111122",  // v_het: every founder het
      "2000000000",  // v_rare: sample 0 hom A1
      "0000000022",  // v_nf: A1 only in non-founders
      "1100000000",  // v_mac2
  };
  const int64_t n = 10, m = 6;
  packed_genotypes g(n, m);
  for (int64_t j = 0; j < m; ++j)
    for (int64_t i = 0; i < n; ++i) {
      const char c = calls[j][i];
      g.set(i, j, c == '.' ? code_missing : c == '2' ? code_hom_a1 : c == '1' ? code_het : code_hom_a2);
    }
  std::vector<sample_record> s(n);
  for (int64_t i = 0; i < n; ++i)
    s[i] = {"f", "i" + std::to_string(i), i >= 8 ? "i0" : "0", i >= 8 ? "i5" : "0", i < 5 ? 1 : 2, "-9"};
  std::vector<variant_record> v;
  for (const char* id : {"v_m", "v_mono", "v_het", "v_rare", "v_nf", "v_mac2"}) v.push_back({"1", id, 0, 1, "A", "C"});
  const executor exec(backend::cpu, 2);
  auto run_filters = [&](const quality_filter_options& q) {
    selected_genotypes d(std::make_unique<memory_genotypes>(packed_genotypes(g), s, v));
    const auto log = apply_quality_filters(exec, d, q, nullptr);
    return std::make_pair(d.n_samples(), kept_ids(d));
  };
  quality_filter_options q;
  q.mind = 0.4, q.geno = 0.2;  // sample 0 (3/6 missing) goes; then v_m has 2/9 missing > 1.8
  auto r = run_filters(q);
  EXPECT_EQ(r.first, 9);
  EXPECT_EQ(r.second, (std::vector<std::string>{"v_mono", "v_het", "v_rare", "v_nf", "v_mac2"}));
  q = {}, q.geno = 0.3;  // without --mind: v_m 3/10 = 0.3 stays (not above), nothing else misses more
  EXPECT_EQ(run_filters(q).second.size(), 6u);
  q = {}, q.mind = 0.5;  // 3/6 = 0.5: kept (a rate equal to the threshold stays)
  EXPECT_EQ(run_filters(q).first, 10);
  // Founders only (0-7): v_m's founders are all hom A1 (MAF 0; with sample 8 it is 1/14); v_rare
  // has 2 A1 copies in 16 founder alleles (0.125; 2/20 = 0.1 with all, not below 0.1); v_nf's
  // copies are all in non-founders (0; 4/20 with --nonfounders).
  q = {}, q.maf = 0.1;
  EXPECT_EQ(run_filters(q).second, (std::vector<std::string>{"v_het", "v_rare", "v_mac2"}));
  q.nonfounders = true;
  EXPECT_EQ(run_filters(q).second, (std::vector<std::string>{"v_het", "v_rare", "v_nf", "v_mac2"}));
  q = {}, q.mac = 3;
  EXPECT_EQ(run_filters(q).second, (std::vector<std::string>{"v_het"}));
  q = {}, q.max_maf = 0.05;
  EXPECT_EQ(run_filters(q).second, (std::vector<std::string>{"v_m", "v_mono", "v_nf"}));
  // HWE on founders: v_het (7 founder hets, no homozygote) p = 2^7 7!/... is small.
  q = {}, q.hwe = 0.05;
  const double p_het = hwe_exact_p(0, 7, 0, false);
  ASSERT_LT(p_het, 0.05);
  r = run_filters(q);
  EXPECT_EQ(std::count(r.second.begin(), r.second.end(), "v_het"), 0);
  // A filter that removes everything is an error naming it.
  q = {}, q.mac = 100;
  try {
    run_filters(q);
    ADD_FAILURE() << "no error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("--mac"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pmx::test
