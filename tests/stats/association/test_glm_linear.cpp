// `panoramix assoc --glm` against plink2 --glm (Debian plink2) on the same files: every row present
// in both, the same A1, OBS_CT and ERRCODE, and BETA/SE/T_STAT/P equal to plink2's printed
// precision (6 significant digits: within one unit of the sixth). Simulated data with 2 % missing
// calls, covariates (one missing value), NA and -9 phenotypes, IDs in other orders in each file,
// monomorphic variants and a covariate equal to a variant's dosage (CONST_OMITTED_ALLELE,
// CORR_TOO_HIGH); the mice (BMI and body length, sex as covariate), the wheat (4 environments,
// no covariates) and the rice (two traits, IDs by IID; exact frequency ties, where plink2 2.00a3.5
// sometimes tests the other allele, are compared with the signs of BETA and T_STAT matched).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

// A shell line whose own redirections stand (run() sends the line's output to /dev/null).
int shell(const std::string& line) { return run("{ " + line + "; }"); }

using glm_table = std::map<std::pair<std::string, std::string>, std::vector<std::string>>;  // (ID, TEST) -> fields

glm_table read_glm(const std::string& path, size_t columns = 13) {
  glm_table t;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream s(line);
    for (std::string x; std::getline(s, x, '\t');) f.push_back(x);
    EXPECT_EQ(f.size(), columns) << path << ": " << line;
    if (f.size() == columns) t[{f[2], f[columns - 7]}] = f;
  }
  return t;
}

// Calls check(key, ours, plink2's) for every row of plink2's table, a failure for each row ours lacks.
template <class Check>
void for_each_matched_row(const glm_table& ours, const glm_table& plink, Check check) {
  EXPECT_EQ(ours.size(), plink.size());
  for (const auto& [key, y] : plink) {
    const auto it = ours.find(key);
    if (it == ours.end()) {
      ADD_FAILURE() << "row missing: " << key.first << " " << key.second;
      continue;
    }
    check(key, it->second, y);
  }
}

// |u − v| within one unit of v's sixth significant digit (plink2 prints 6).
bool within_sixth_digit(double u, double v) {
  return std::fabs(u - v) <= 1.01 * std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 5);
}

// Variants whose ALT frequency plink2 reports as exactly 1/2 (its .afreq): ties of the major allele.
std::set<std::string> exact_ties(const std::string& afreq) {
  std::set<std::string> ids;
  std::ifstream in(afreq);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string chrom, id, ref, alt, freq;
    if (s >> chrom >> id >> ref >> alt >> freq && freq == "0.5") ids.insert(id);
  }
  return ids;
}

// Every plink2 row in ours with the same A1/OBS_CT/ERRCODE and numbers within a unit of plink2's
// sixth significant digit; returns the rows compared. For `ties` (exact frequency ties) plink2
// 2.00a3.5 may test the other allele (seen on inbred rice, not on other ties): there A1 may be the
// other allele, with BETA and T_STAT negated and SE and P the same.
size_t expect_same_as_plink2(const std::string& ours, const std::string& plink,
                             const std::set<std::string>& ties = {}) {
  SCOPED_TRACE(ours + " vs " + plink);
  size_t numbers = 0;
  for_each_matched_row(read_glm(ours), read_glm(plink), [&](const auto& key, const auto& x, const auto& y) {
    const bool flipped = x[5] != y[5] && ties.count(key.first) && (x[5] == y[3] || x[5] == y[4]);
    for (int c : {0, 1, 3, 4, 5, 7, 12}) {
      if (flipped && c == 5) continue;
      EXPECT_EQ(x[c], y[c]) << key.first << " " << key.second << " column " << c;
    }
    for (int c : {8, 9, 10, 11}) {
      if (y[c] == "NA") {
        EXPECT_EQ(x[c], "NA") << key.first << " " << key.second;
        continue;
      }
      const double sign = flipped && key.second == "ADD" && (c == 8 || c == 10) ? -1 : 1;
      EXPECT_TRUE(within_sixth_digit(sign * std::stod(x[c]), std::stod(y[c])))
          << key.first << " " << key.second << " column " << c << ": " << x[c] << " vs " << y[c];
      ++numbers;
    }
  });
  return numbers;
}

// Runs both tools; `plink_flags` adds what plink2 needs beyond --bfile/--pheno/--covar.
void compare(const std::string& dir, const std::string& bfile, const std::string& pheno, const std::string& covar,
             const std::string& ours_flags, const std::string& plink_flags, const std::vector<std::string>& traits,
             bool allow_tie_flips = false) {
  const std::string cov = covar.empty() ? "" : " --covar " + covar;
  ASSERT_EQ(panoramix("assoc --bfile " + bfile + " --pheno " + pheno + cov + " --glm " + ours_flags + " --out " + dir +
                      "/ours"),
            0)
      << read_text(dir + "/ours.log");
  ASSERT_EQ(run("plink2 --bfile " + bfile + " --pheno " + pheno + cov + " --not-chr Y,MT --glm " + plink_flags +
                " --out " + dir + "/plink"),
            0)
      << read_text(dir + "/plink.log");
  std::set<std::string> ties;
  if (allow_tie_flips) {
    EXPECT_EQ(run("plink2 --bfile " + bfile + " --not-chr Y,MT --freq --out " + dir + "/plink"), 0);
    ties = exact_ties(dir + "/plink.afreq");
  }
  for (const auto& t : traits)
    EXPECT_GT(expect_same_as_plink2(dir + "/ours." + t + ".glm.linear", dir + "/plink." + t + ".glm.linear", ties), 0u)
        << t;
}

TEST(GlmLinear, SimulatedWithMissingCallsAndCovariatesEqualsPlink2) {
  PMX_REQUIRE_PLINK2();
  const std::string dir = work().path("glm_sim");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(
      panoramix("simulate --samples 600 --variants 800 --missing 0.02 --traits 2 --qtl 30 --monomorphic 0.02 --seed 12 "
                "--out " +
                dir + "/s"),
      0);
  // Covariates in another order: age, sex, and the dosage of one variant (CORR_TOO_HIGH there);
  // one sample without age. Phenotypes with NA and -9, in a shuffled order too.
  ASSERT_EQ(run("plink2 --bfile " + dir + "/s --export A --out " + dir + "/d"), 0);
  std::ifstream raw(dir + "/d.raw");
  std::string line;
  std::getline(raw, line);
  std::vector<std::string> rows;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  int k = 0;
  while (std::getline(raw, line)) {
    std::istringstream s(line);
    std::vector<std::string> f;
    for (std::string x; s >> x;) f.push_back(x);
    std::ostringstream o;
    o << f[0] << " " << f[1] << " " << (k == 7 ? std::string("NA") : std::to_string(30 + 5 * z(rng))) << " " << k % 2
      << " " << f[6 + 100] << "\n";
    rows.push_back(o.str());
    ++k;
  }
  std::shuffle(rows.begin(), rows.end(), rng);
  std::ofstream(dir + "/c.txt") << "FID IID age sex g100\n";
  {
    std::ofstream c(dir + "/c.txt", std::ios::app);
    for (const auto& r : rows) c << r;
  }
  ASSERT_EQ(shell("awk 'NR == 1 {print; next} NR % 17 == 0 {$3 = \"NA\"} NR % 23 == 0 {$4 = -9} {print}' " + dir +
                  "/s.pheno > " + dir + "/y.txt"),
            0);
  compare(dir, dir + "/s", dir + "/y.txt", dir + "/c.txt", "", "", {"trait1", "trait2"});
  const std::string both = read_text(dir + "/ours.trait1.glm.linear");
  EXPECT_NE(both.find("CONST_OMITTED_ALLELE"), std::string::npos);
  EXPECT_NE(both.find("CORR_TOO_HIGH"), std::string::npos);
  // hide-covar and --covar-variance-standardize, as plink2 spells them.
  compare(dir, dir + "/s", dir + "/y.txt", dir + "/c.txt", "--hide-covar --covar-variance-standardize",
          "hide-covar --covar-variance-standardize", {"trait1", "trait2"});
}

// Chromosome X as plink2 tests it: SEX (1 male, 2 female) added as the last covariate there,
// samples of unknown sex left out of X's regressions only; male heterozygous calls as they are.
TEST(GlmLinear, ChromosomeXWithSexesEqualsPlink2) {
  PMX_REQUIRE_PLINK2();
  const std::string dir = work().path("glm_x");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(panoramix("simulate --samples 500 --variants 3000 --missing 0.02 --chromosomes 3 --traits 2 --seed 5 "
                      "--out " + dir + "/s"),
            0);
  ASSERT_EQ(shell("cd " + dir + " && awk '$1 == 3 {$1 = \"X\"} 1' OFS='\t' s.bim > x.bim && ln -sf s.bed x.bed && "
                  "awk 'BEGIN {srand(7)} {r = rand(); $5 = r < 0.45 ? 1 : (r < 0.95 ? 2 : 0); print}' s.fam > x.fam && "
                  "(echo FID IID c1 c2; awk 'BEGIN {srand(9)} {print $1, $2, rand(), 3 * rand()}' s.fam | "
                  "sort -k2,2r) > c.txt"),
            0);
  compare(dir, dir + "/x", dir + "/s.pheno", dir + "/c.txt", "", "", {"trait1", "trait2"}, true);
  const std::string table = read_text(dir + "/ours.trait1.glm.linear");
  EXPECT_NE(table.find("\tSEX\t"), std::string::npos);
  EXPECT_NE(read_text(dir + "/ours.log").find("variants on chromosome X: SEX (1 male, 2 female) added"), std::string::npos);
}

TEST(GlmLinear, MiceWheatAndRiceEqualPlink2) {
  PMX_REQUIRE_PLINK2();
  PMX_REQUIRE_DATA(mice, "bglr_mice/mice.bed");
  PMX_REQUIRE_DATA(mice_csv, "bglr_mice/mice_pheno.csv");
  PMX_REQUIRE_DATA(wheat, "bglr_wheat/wheat_dart.bed");
  PMX_REQUIRE_DATA(wheat_y, "bglr_wheat/wheat_Y_4env_folds.csv");
  PMX_REQUIRE_DATA(rice, "rice44k/UNL.bed");
  PMX_REQUIRE_DATA(rice_csv, "rice44k/44kPhenos.csv");
  const auto prefix = [](const std::string& bed) { return bed.substr(0, bed.size() - 4); };
  {  // mice: BMI and body length; sex (GENDER F/M) as the covariate
    const std::string dir = work().path("glm_mice");
    std::filesystem::create_directories(dir);
    ASSERT_EQ(run("/usr/bin/python3 -c \"import csv; r=list(csv.reader(open('" + mice_csv +
                  "'))); h=r[0]; "
                  "a,b,g=h.index('Obesity.BMI'),h.index('Obesity.BodyLength'),h.index('GENDER'); "
                  "f=open('" +
                  dir +
                  "/y.txt','w'); f.write('FID IID bmi length\\n'); "
                  "[f.write('%s %s %s %s\\n'%(x[0],x[0],x[a],x[b])) for x in r[1:]]; "
                  "c=open('" +
                  dir +
                  "/c.txt','w'); c.write('FID IID male\\n'); "
                  "[c.write('%s %s %s\\n'%(x[0],x[0],{'M':1,'F':0}.get(x[g],'NA'))) for x in r[1:]]\""),
              0);
    compare(dir, prefix(mice), dir + "/y.txt", dir + "/c.txt", "", "", {"bmi", "length"});
  }
  {  // wheat: the yields of 4 environments, no covariate
    const std::string dir = work().path("glm_wheat");
    std::filesystem::create_directories(dir);
    ASSERT_EQ(shell("tr -d '\"' < " + wheat_y +
                    " | awk -F, 'NR == 1 {print \"FID IID e1 e2 e3 e4\"} NR > 1 {print $1, $1, $2, $3, $4, $5}' > " +
                    dir + "/y.txt"),
              0);
    compare(dir, prefix(wheat), dir + "/y.txt", "", "", "allow-no-covars", {"e1", "e2", "e3", "e4"});
  }
  {  // rice: two traits, rows matched by IID (the .fam's FIDs are not in the CSV)
    const std::string dir = work().path("glm_rice");
    std::filesystem::create_directories(dir);
    ASSERT_EQ(
        run("/usr/bin/python3 -c \"import csv; r=list(csv.reader(open('" + rice_csv +
            "'))); h=r[0]; "
            "a,b=h.index('Na.K.Shoot.LSMEAN'),h.index('Shoot.BM.Ratio'); "
            "fam={l.split()[1]: l.split()[0] for l in open('" +
            prefix(rice) +
            ".fam')}; "
            "f=open('" +
            dir +
            "/y.txt','w'); f.write('FID IID nak ratio\\n'); "
            "[f.write('%s %s %s %s\\n'%(fam[x[1]],x[1],x[a] or 'NA',x[b] or 'NA')) for x in r[1:] if x[1] in fam]\""),
        0);
    compare(dir, prefix(rice), dir + "/y.txt", "", "", "allow-no-covars", {"nak", "ratio"}, true);
  }
}

// Case/control: plink2 --glm's logistic regression with Firth fallback. plink2 2.00a3.5 computes it
// in single precision (its SE and P differ from a double-precision fit by up to 1e-4 here, by 7 %
// for one variant), so plink2 is the oracle of the rows, A1, FIRTH?, OBS_CT, ERRCODE and of OR
// where no Firth fit was needed (6 digits), and an independent numpy fit (logistic_oracle.py,
// maximum likelihood to 1e-12, Firth where FIRTH? is Y) of every number to 1e-5 relative (the
// 6 printed digits).
TEST(GlmLogistic, CaseControlEqualsPlink2AndADoublePrecisionFit) {
  PMX_REQUIRE_PLINK2();
  if (run("/usr/bin/python3 -c 'import numpy'") != 0) GTEST_SKIP() << "python3-numpy absent: no oracle";
  const std::string dir = work().path("glm_cc");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(
      panoramix("simulate --samples 700 --variants 600 --missing 0.02 --traits 1 --qtl 30 --min-maf 0.002 --seed 21 "
                "--out " +
                dir + "/s"),
      0);
  // cases: trait above 0.3 (2), controls (1), every 29th missing (-9); covariates age and sex, in
  // another order, one missing.
  ASSERT_EQ(shell("awk 'NR == 1 {print \"FID IID cc\"; next} {v = ($3 > 0.3) ? 2 : 1; if (NR % 29 == 0) v = -9; print "
                  "$1, $2, v}' " +
                  dir + "/s.pheno > " + dir + "/y.txt"),
            0);
  ASSERT_EQ(shell("{ echo FID IID age sex; awk 'BEGIN {srand(5)} {print $1, $2, (NR == 9 ? \"NA\" : 20 + int(rand() * "
                  "40)), NR % 2}' " +
                  dir + "/s.fam | sort -k2,2r; } > " + dir + "/c.txt"),
            0);
  ASSERT_EQ(panoramix("assoc --bfile " + dir + "/s --pheno " + dir + "/y.txt --covar " + dir + "/c.txt --glm --out " +
                      dir + "/ours"),
            0)
      << read_text(dir + "/ours.log");
  ASSERT_EQ(run("plink2 --bfile " + dir + "/s --pheno " + dir + "/y.txt --covar " + dir + "/c.txt --glm --out " + dir +
                "/plink"),
            0);
  const std::string ours = dir + "/ours.cc.glm.logistic.hybrid";
  size_t firth = 0;
  for_each_matched_row(read_glm(ours, 14), read_glm(dir + "/plink.cc.glm.logistic.hybrid", 14),
                       [&](const auto& key, const auto& x, const auto& y) {
                         for (int c : {0, 1, 3, 4, 5, 6, 8, 13}) {
                           EXPECT_EQ(x[c], y[c]) << key.first << " " << key.second << " column " << c;
                         }
                         firth += y[6] == "Y";
                         if (y[6] == "N" && y[9] != "NA") {
                           EXPECT_TRUE(within_sixth_digit(std::stod(x[9]), std::stod(y[9]))) << key.first;
                         }
                       });
  EXPECT_GT(firth, 0u) << "no variant needed Firth's fit: the data do not test the fallback";
  // Every number against the double-precision fit.
  ASSERT_EQ(run("plink2 --bfile " + dir + "/s --export A --out " + dir + "/raw"), 0);
  const std::string log = dir + "/oracle.txt";
  ASSERT_EQ(shell("/usr/bin/python3 " + shq(std::string(PMX_TEST_DIR) + "/logistic_oracle.py") + " " + dir +
                  "/raw.raw " + dir + "/y.txt cc " + dir + "/c.txt " + ours + " > " + log),
            0)
      << read_text(log);
  std::istringstream in(read_text(log));
  double worst = 1;
  size_t compared = 0;
  in >> worst >> compared;
  EXPECT_LE(worst, 1e-5);
  EXPECT_GT(compared, 1000u);
}

TEST(GlmLinear, BadInputIsRefusedByName) {
  const std::string dir = work().path("glm_bad");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(panoramix("simulate --samples 50 --variants 40 --traits 1 --qtl 5 --seed 2 --out " + dir + "/s"), 0);
  std::ofstream(dir + "/flat.txt") << "FID IID flat\n";
  ASSERT_EQ(shell("awk '{print $1, $2, 3}' " + dir + "/s.fam >> " + dir + "/flat.txt"), 0);
  ASSERT_EQ(shell("awk 'NR <= 2 {print $1, $2, NR}' " + dir + "/s.fam | sed '1i FID IID few' > " + dir + "/few.txt"),
            0);
  struct bad {
    std::string args, says;
  };
  const std::string base = "assoc --bfile " + dir + "/s ";
  for (const bad& b :
       std::vector<bad>{{base + "--pheno " + dir + "/s.pheno", "--glm"},
                        {base + "--pheno " + dir + "/flat.txt --glm", "constant"},
                        {base + "--pheno " + dir + "/few.txt --glm", "samples have the phenotype"},
                        {base + "--pheno " + dir + "/s.pheno --glm --covar-name x", "--covar-name needs"},
                        {base + "--pheno " + dir + "/s.pheno --pheno-name nope --glm", "nope"}}) {
    const std::string out = dir + "/bad";
    EXPECT_NE(panoramix(b.args + " --out " + out, out + ".stderr"), 0) << b.args;
    EXPECT_NE(read_text(out + ".stderr").find(b.says), std::string::npos) << b.args << "\n"
                                                                          << read_text(out + ".stderr");
    EXPECT_FALSE(std::filesystem::exists(out + ".trait1.glm.linear")) << b.args;
  }
}

}  // namespace
}  // namespace pmx
