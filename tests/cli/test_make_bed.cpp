// PLINK 2's sample and variant filters on the command line: `panoramix make-bed` with a filter
// writes the bytes `plink2 --make-bed` writes with the same flags (so the kept sample and variant
// lists are plink2's), on the real data sets and on simulated data with missing calls, X/Y/MT
// variants, males and non-founders; filters combine in plink2's order; a filter that removes
// everything is a named error with nothing written; other commands see the same filtered data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "panoramix/vcf_files.hpp"
#include "test_support.hpp"
#include "../io/sexed_filesets.hpp"
#include "../io/vcf_test_files.hpp"

namespace pmx::test {
namespace {

class MakeBed : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_program("plink2")) GTEST_SKIP() << "plink2 is not installed";
  }

  /// plink2 --bfile BFILE FLAGS --make-bed and panoramix make-bed with the same flags: the same
  /// exit (0 or not) and, when both succeed, byte-identical .bed, .bim and .fam.
  void expect_like_plink2(const std::string& bfile, const std::string& flags) {
    SCOPED_TRACE(bfile + " " + flags);
    const std::string tag = std::to_string(k_++), ref = work().path("ref" + tag), ours = work().path("ours" + tag);
    const int r = run("plink2 --bfile " + shq(bfile) + " " + flags + " --make-bed --threads 2 --out " + shq(ref),
                      ref + ".txt");
    const int o = panoramix("make-bed --bfile " + shq(bfile) + " " + flags + " --threads 2 --out " + shq(ours),
                            ours + ".txt");
    ASSERT_EQ(o == 0, r == 0) << "plink2:\n" << read_text(ref + ".txt") << "\npanoramix:\n" << read_text(ours + ".txt");
    if (r != 0) return;
    for (const char* ext : {".fam", ".bim"}) EXPECT_EQ(file_bytes(ours + ext), file_bytes(ref + ext)) << ext;
    expect_same_fileset(read_fileset(ours), read_fileset(ref));
    EXPECT_EQ(file_bytes(ours + ".bed"), file_bytes(ref + ".bed"));
  }

  /// The simulated fileset of sexed_filesets.hpp (X/Y/XY/MT, males, females, unknown sex,
  /// non-founders, missing calls).
  std::string simulated() {
    const std::string sim = simulated_with_x();
    EXPECT_FALSE(sim.empty()) << "simulate failed";
    return sim;
  }

  int k_ = 0;
};

TEST_F(MakeBed, EachFilterOnSimulatedDataWithMissingCallsAndSexChromosomes) {
  const std::string sim = simulated();
  const std::string ex = work().path("s.ex");  // --exclude: every 5th variant
  {
    std::ostringstream e;
    const auto bim = field_lines(sim + ".bim");
    for (size_t j = 0; j < bim.size(); j += 5) e << bim[j].substr(bim[j].find('\t') + 1) << "\n";
    write_file(ex, e.str());
  }
  const auto fam = field_lines(sim + ".fam");
  // --keep-fam: the FIDs of every 4th sample; --remove: FID IID of every other sample.
  const std::string kf = work().path("s.kf"), rm = work().path("s.rm");
  {
    std::ostringstream a, r;
    for (size_t i = 0; i < fam.size(); ++i) {
      std::istringstream ss(fam[i]);
      std::string fid, iid;
      ss >> fid >> iid;
      if (i % 4 == 0) a << fid << "\n";
      if (i % 2 == 0) r << fid << " " << iid << "\n";
    }
    write_file(kf, a.str()), write_file(rm, r.str());
  }
  auto id_at = [&](size_t j) {  // the ID of variant j (second .bim field)
    const std::string line = field_lines(sim + ".bim")[j];
    const size_t a = line.find('\t') + 1;
    return line.substr(a, line.find('\t', a) - a);
  };
  for (const std::string& flags : std::vector<std::string>{
           "--maf 0.05", "--maf", "--max-maf 0.2", "--mac 12", "--geno 0.05", "--geno", "--mind 0.05", "--mind 0.045",
        "--chr 1-2,X", "--not-chr 2,Y", "--autosome", "--chr MT,XY", "--chr 1 --from-bp 1000 --to-bp 400000",
        "--snps " + id_at(10) + "-" + id_at(900) + "," + id_at(2950), "--remove " + shq(rm), "--exclude " + shq(ex), "--keep-fam " + shq(kf),
        "--hwe 1e-4 --not-chr X", "--hwe 0.01 midp --autosome", "--hwe 0.05 --chr Y,MT,XY",
        // combinations: --mind before --geno, --maf after --geno, founders in --maf and --hwe
        "--mind 0.045 --geno 0.045", "--geno 0.04 --maf 0.1 --mind 0.05", "--mind 0.04 --geno 0.04 --mac 20 --chr 1-3,Y",
        "--hwe 0.001 --autosome --maf 0.2 --geno 0.05 --mind 0.06", "--nonfounders --maf 0.2 --hwe 0.01 --autosome",
        "--keep-fam " + shq(kf) + " --remove " + shq(rm) + " --exclude " + shq(ex) + " --geno 0.05 --maf 0.05"})
    expect_like_plink2(sim, flags);
}

TEST_F(MakeBed, FiltersOnRealDataSets) {
  const std::string mice = shared_data("bglr_mice/mice"), rice = shared_data("rice44k/UNL"),
                    hm3 = shared_data("hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap"),
                    cattle = shared_data("synbreed_cattle/cattle"), wheat = shared_data("bglr_wheat/wheat_dart"),
                    maize = shared_data("gapit_maize282/mdp_maize282");
  if (mice.empty() || rice.empty() || hm3.empty()) GTEST_SKIP() << "data absent";
  for (const std::string flags : {"--maf 0.05 --geno 0.02 --mind 0.02", "--autosome --hwe 1e-4",
                                  "--autosome --hwe 1e-4 midp --max-maf 0.3", "--chr 2-4,X --mac 50"})
    expect_like_plink2(mice, "--mouse " + flags);
  for (const std::string flags : {"--mind 0.05 --geno 0.05 --maf 0.05", "--geno 0.03 --hwe 1e-20 --mac 30",
                                  "--mind 0.1", "--geno 0.1 --maf 0.01 --chr 3 --from-bp 100000 --to-bp 9000000"})
    expect_like_plink2(rice, "--chr-set 12 " + flags);
  for (const std::string flags : {"--hwe 1e-3 midp --maf 0.1 --chr 1-5 --not-chr 3", "--hwe 1e-6", "--max-maf 0.1"})
    expect_like_plink2(hm3, flags);
  if (!cattle.empty()) expect_like_plink2(cattle, "--cow --hwe 1e-6 --maf 0.01 --not-chr 1-10");
  if (!wheat.empty()) expect_like_plink2(wheat, "--max-maf 0.3 --mind 0.01");
  if (!maize.empty()) expect_like_plink2(maize, "--chr 3 --from-bp 1000000 --to-bp 100000000 --geno 0.1 --hwe 0.001 midp");
}

// --hwe on X as plink2 tests it (Graffelman and Weir's test of the females' genotypes and the
// males' alleles), with plink2's choice of samples: the simulated data with sexes 1/2/0 in turn, then
// its .fam with no males left (plink2 then counts the unknown-sex samples as females), no females,
// no known sex at all (X untested), and males only among the non-founders; the mice with their
// recorded sexes and with every fifth sex unknown; midp, --nonfounders, and with other filters.
TEST_F(MakeBed, HweOnXAsPlink2WithKnownAndUnknownSexes) {
  const std::string sim = simulated();
  std::vector<std::string> sets = {sim};
  sets.push_back(with_sexes(sim, work().path("x_nomale"), [](size_t, const std::string&, int s) { return s == 1 ? 0 : s; }));
  sets.push_back(with_sexes(sim, work().path("x_nofemale"), [](size_t, const std::string&, int s) { return s == 2 ? 0 : s; }));
  sets.push_back(with_sexes(sim, work().path("x_nosex"), [](size_t, const std::string&, int) { return 0; }));
  // Samples 7k+6 are the non-founders: only they keep sex 1.
  sets.push_back(with_sexes(sim, work().path("x_nfmale"),
                            [](size_t i, const std::string&, int s) { return s == 1 && i % 7 != 6 ? 0 : s; }));
  for (const std::string& set : sets)
    for (const std::string flags : {"--hwe 0.01", "--hwe 0.05 midp", "--hwe 1e-3 --nonfounders",
                                    "--chr X --hwe 0.2 midp --geno 0.05 --maf 0.05"})
      expect_like_plink2(set, flags);
  const std::string mice = mice_with_recorded_sexes();
  if (mice.empty()) GTEST_SKIP() << "mice data absent";
  const std::string mice_some_unknown =
      with_sexes(mice, work().path("mice_x_unknown"), [](size_t i, const std::string&, int s) { return i % 5 == 0 ? 0 : s; });
  for (const std::string& set : {mice, mice_some_unknown})
    for (const std::string flags : {"--mouse --hwe 1e-4", "--mouse --chr X --hwe 0.05 midp", "--mouse --hwe 1e-6 --maf 0.05"})
      expect_like_plink2(set, flags);
}

// The log says what each filter removed, in plink2's words.
TEST_F(MakeBed, LogCountsAsPlink2) {
  const std::string rice = shared_data("rice44k/UNL");
  if (rice.empty()) GTEST_SKIP() << "rice data absent";
  const std::string ref = work().path("log_ref"), ours = work().path("log_ours");
  const std::string flags = " --chr-set 12 --mind 0.05 --geno 0.05 --hwe 1e-30 --maf 0.05 --threads 2 --out ";
  ASSERT_EQ(run("plink2 --bfile " + shq(rice) + flags + shq(ref) + " --make-bed", ref + ".txt"), 0);
  ASSERT_EQ(panoramix("make-bed --bfile " + shq(rice) + flags + shq(ours), ours + ".txt"), 0);
  const std::string plink_log = read_text(ref + ".log"), our_log = read_text(ours + ".log");
  for (const char* prefix : {"samples removed due to missing genotype data (--mind).",
                             "--geno: ", "--hwe: ", "variants removed due to allele frequency threshold(s)"}) {
    const size_t a = plink_log.find(prefix), b = our_log.find(prefix);
    ASSERT_NE(a, std::string::npos) << prefix;
    ASSERT_NE(b, std::string::npos) << prefix << "\n" << our_log;
    // The line (its number included), up to the first period or line end.
    auto line_of = [](const std::string& log, size_t at) {
      const size_t start = log.rfind('\n', at) + 1;
      return log.substr(start, log.find_first_of("\n(", start) - start);
    };
    EXPECT_EQ(line_of(our_log, b), line_of(plink_log, a));
  }
}

TEST_F(MakeBed, AFilterThatRemovesEverythingIsANamedErrorAndWritesNothing) {
  const std::string sim = simulated();
  const struct {
    std::string flags, named;
  } cases[] = {{"--mac 100000", "--mac"}, {"--mind 0", "--mind"}, {"--geno 0", "--geno"},
               {"--chr 21", "--chr"}, {"--snps nothere", "--snps"}};
  int k = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.flags);
    const std::string out = work().path("empty" + std::to_string(k++));
    EXPECT_NE(panoramix("make-bed --bfile " + shq(sim) + " " + c.flags + " --out " + shq(out), out + ".txt"), 0);
    for (const char* ext : {".bed", ".bim", ".fam"}) EXPECT_FALSE(std::filesystem::exists(out + ext)) << ext;
    const std::string log = read_text(out + ".log");
    EXPECT_NE(log.find(c.named), std::string::npos) << log;
    EXPECT_NE(log.find("Error"), std::string::npos) << log;
  }
  // What plink2 refuses too.
  const std::string out = work().path("refused");
  EXPECT_EQ(panoramix("make-bed --bfile " + shq(sim) + " --from-bp 5 --out " + shq(out), out + ".txt"), 2);
  EXPECT_EQ(panoramix("make-bed --bfile " + shq(sim) + " --chr 1 --from-bp 5 --snps a --out " + shq(out), out + ".txt"), 2);
  EXPECT_EQ(panoramix("make-bed --bfile " + shq(sim) + " --geno 1.5 --out " + shq(out), out + ".txt"), 2);
}

// Every command reads the filtered data: freq with the filters equals freq of make-bed's output.
TEST_F(MakeBed, OtherCommandsSeeTheFilteredData) {
  const std::string sim = simulated(), made = work().path("made"), a = work().path("fa"), b = work().path("fb");
  const std::string flags = " --mind 0.05 --geno 0.045 --maf 0.05 --autosome --hwe 1e-3 ";
  ASSERT_EQ(panoramix("make-bed --bfile " + shq(sim) + flags + "--out " + shq(made), made + ".txt"), 0);
  ASSERT_EQ(panoramix("freq --bfile " + shq(sim) + flags + "--out " + shq(a), a + ".txt"), 0);
  ASSERT_EQ(panoramix("freq --bfile " + shq(made) + " --out " + shq(b), b + ".txt"), 0);
  EXPECT_EQ(file_bytes(a + ".afreq"), file_bytes(b + ".afreq"));
  ASSERT_EQ(panoramix("grm --bfile " + shq(sim) + flags + "--out " + shq(a), a + ".txt"), 0);
  ASSERT_EQ(panoramix("grm --bfile " + shq(made) + " --out " + shq(b), b + ".txt"), 0);
  EXPECT_EQ(file_bytes(a + ".rel.bin"), file_bytes(b + ".rel.bin"));
  EXPECT_EQ(file_bytes(a + ".rel.id"), file_bytes(b + ".rel.id"));
}

// The filters act on what a VCF import reads, as plink2's do after --max-alleles 2 --snps-only.
TEST_F(MakeBed, FiltersOnVcfInput) {
  if (!vcf_compiled_in()) GTEST_SKIP() << "this build has no htslib";
  const std::string maize = shared_data("gapit_maize282/mdp_maize282");
  if (maize.empty()) GTEST_SKIP() << "maize data absent";
  const std::string vcf = work().path("mz"), ref = work().path("mz_ref"), ours = work().path("mz_ours");
  ASSERT_EQ(run("plink2 --bfile " + shq(maize) + " --export vcf bgz --out " + shq(vcf), vcf + ".txt"), 0);
  const std::string flags = "--maf 0.1 --geno 0.05 --hwe 1e-3 midp --mind 0.1 --not-chr 5";
  ASSERT_EQ(plink2_make_bed("--vcf", vcf + ".vcf.gz", flags, ref), 0);
  ASSERT_EQ(panoramix("make-bed --vcf " + shq(vcf + ".vcf.gz") + " " + flags + " --out " + shq(ours), ours + ".txt"), 0);
  for (const char* ext : {".bed", ".bim", ".fam"}) EXPECT_EQ(file_bytes(ours + ext), file_bytes(ref + ext)) << ext;
}

// --thin-count and --thin-indiv-count keep plink2's variants and samples: seeds one value or
// several, counts below and above half (plink2 draws the kept or the dropped items), after the ID
// and place filters and before --mind/--geno/--maf as plink2 applies them, on simulated and real
// data; a count of at least what is left keeps all (plink2's warning).
TEST_F(MakeBed, ThinCountKeepsPlink2sVariantsAndSamples) {
  const std::string sim = simulated(), rm = work().path("thin.rm");  // --remove: every third sample
  {
    std::ostringstream r;
    const auto fam = field_lines(sim + ".fam");
    for (size_t i = 0; i < fam.size(); i += 3) {
      std::istringstream ss(fam[i]);
      std::string fid, iid;
      ss >> fid >> iid;
      r << fid << " " << iid << "\n";
    }
    write_file(rm, r.str());
  }
  for (const std::string& flags : std::vector<std::string>{
           "--thin-count 500 --seed 3", "--thin-count 500 --seed 4", "--thin-count 1 --seed 0", "--thin-count 2999 --seed 9",
           "--thin-count 1500 --seed 4294967295", "--thin-count 1499 --seed 12 34 56", "--thin-count 2000 --seed 77",
           "--thin-count 5000 --seed 3", "--thin-indiv-count 100 --seed 5", "--thin-indiv-count 399 --seed 5",
           "--thin-count 700 --thin-indiv-count 250 --seed 11 12",
           "--chr 1-3,X --thin-count 300 --seed 8 --geno 0.05 --maf 0.05",
           "--remove " + shq(rm) + " --thin-indiv-count 150 --thin-count 900 --mind 0.05 --seed 21",
           "--autosome --thin-count 1000 --hwe 1e-3 --mac 5 --seed 6"})
    expect_like_plink2(sim, flags);
  const std::string mice = shared_data("bglr_mice/mice"), rice = shared_data("rice44k/UNL"),
                    hm3 = shared_data("hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap");
  if (mice.empty() || rice.empty() || hm3.empty()) GTEST_SKIP() << "data absent";
  expect_like_plink2(mice, "--mouse --thin-count 100 --seed 7");
  expect_like_plink2(mice, "--mouse --thin-count 9000 --thin-indiv-count 1000 --seed 123 --maf 0.05");
  expect_like_plink2(rice, "--chr-set 12 --chr 2-5 --thin-count 4000 --seed 2024 --mind 0.05 --geno 0.05");
  expect_like_plink2(hm3, "--thin-count 7000 --thin-indiv-count 300 --seed 1 2 3 4 5 --hwe 1e-6");
}

}  // namespace
}  // namespace pmx::test
