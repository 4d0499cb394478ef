// `panoramix krr` end to end: fp64 weights and predictions equal scikit-learn's KernelRidge on the
// same inputs (simulated data with missing calls, covariates, IDs in other orders, NA and -9; and
// the mice of ../shared/data), fp32/adaptive solves agree with fp64 within their documented
// bound, and bad input is refused by name with nothing written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include "ridge_test_data.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

const std::string oracle = std::filesystem::path(PMX_TEST_DIR) / "krr_sklearn_oracle.py";


struct oracle_result {
  double weights = NAN, pred = NAN;
};

oracle_result compare_with_sklearn(const std::string& train, const std::string& test, const std::string& pheno,
                                   const std::string& covar, const std::string& kernel, const std::string& gamma,
                                   const std::string& alpha, const std::string& out, const std::string& traits) {
  const std::string log = out + ".oracle";
  EXPECT_EQ(run(python + " " + shq(oracle) + " " + train + " " + test + " " + pheno + " " + covar + " " + kernel + " " +
                    gamma + " " + alpha + " " + out + " " + traits,
                log),
            0)
      << read_text(log);
  oracle_result r;
  std::istringstream in(read_text(log));
  std::string k1, k2;
  in >> k1 >> r.weights >> k2 >> r.pred;
  return r;
}


TEST(KrrCommand, GaussianWithCovariatesEqualsScikitLearn) {
  PMX_REQUIRE_PEERS();
  const simulated& d = simulated_data();
  const std::string out = d.dir + "/g";
  ASSERT_EQ(panoramix("krr --bfile " + d.train + " --pheno " + d.pheno + " --pheno-name height,yield --covar " +
                      d.covar + " --gamma 2e-4 --alpha 0.7 --predict " + d.test + " --threads 2 --out " + out),
            0)
      << read_text(out + ".log");
  const oracle_result r = compare_with_sklearn(d.train, d.test, d.pheno, d.covar, "gaussian", "2e-4", "0.7", out, "height yield");
  EXPECT_LE(r.weights, 1e-9);
  EXPECT_LE(r.pred, 1e-9);
  EXPECT_TRUE(std::filesystem::exists(out + ".eval"));
}

TEST(KrrCommand, IbsEqualsDirectCountWithScikitLearn) {
  PMX_REQUIRE_PEERS();
  const simulated& d = simulated_data();
  const std::string out = d.dir + "/ibs";
  ASSERT_EQ(panoramix("krr --bfile " + d.train + " --pheno " + d.pheno + " --all-pheno --kernel ibs --alpha 0.05 --predict " +
                      d.test + " --out " + out),
            0)
      << read_text(out + ".log");
  const oracle_result r = compare_with_sklearn(d.train, d.test, d.pheno, "-", "ibs", "0", "0.05", out, "height yield");
  EXPECT_LE(r.weights, 1e-9);
  EXPECT_LE(r.pred, 1e-9);
}

TEST(KrrCommand, MiceEqualScikitLearn) {
  PMX_REQUIRE_PEERS();
  PMX_REQUIRE_DATA(bed, "bglr_mice/mice.bed");
  PMX_REQUIRE_DATA(csv, "bglr_mice/mice_pheno.csv");
  const std::string dir = mice_split(bed, csv);
  ASSERT_FALSE(::testing::Test::HasFailure());
  const std::string out = dir + "/k";
  ASSERT_EQ(panoramix("krr --bfile " + dir + "/train --pheno " + dir + "/y.txt --all-pheno --gamma 5e-5 --alpha 0.5 --predict " +
                      dir + "/test --threads 2 --out " + out),
            0)
      << read_text(out + ".log");
  const oracle_result r =
      compare_with_sklearn(dir + "/train", dir + "/test", dir + "/y.txt", "-", "gaussian", "5e-5", "0.5", out, "bmi length");
  EXPECT_LE(r.weights, 1e-9);
  EXPECT_LE(r.pred, 1e-9);
}


// fp32 and adaptive (emulated on the cpu) against fp64 on the same split: the backward error
// reached is at most --accuracy, so ‖W − W64‖/‖W64‖ ≤ κ(A) · 2·accuracy with κ(A) ≤ ‖A‖∞/α.
// fp32 and adaptive (tile accuracy 1e-2, so that BF16/FP16 tiles appear) against fp64 on one split:
// ‖W − W64‖/‖W64‖ within κ(A)·2·accuracy (K entries are at most 1, so ‖A‖∞ ≤ n + α and
// κ(A) ≤ (n + α)/α), and per phenotype |ΔPearson| ≤ 0.002 and an MSPE ratio ≤ 1.005 (the issue's
// bounds) over the TEST samples with a phenotype.
void expect_low_precision_agrees(const std::string& train, const std::string& test, const std::string& pheno,
                                 const std::string& gamma, double alpha, int64_t tile, const std::string& out) {
  SCOPED_TRACE(out);
  char a[32];
  std::snprintf(a, sizeof a, "%g", alpha);
  const std::string common = "krr --bfile " + train + " --pheno " + pheno + " --all-pheno --gamma " + gamma + " --alpha " +
                             a + " --tile " + std::to_string(tile) + " --accuracy 1e-9 --predict " + test + " --threads 2";
  ASSERT_EQ(panoramix(common + " --out " + out + "64"), 0) << read_text(out + "64.log");
  const auto w64 = read_columns(out + "64.weights");
  const auto e64 = read_columns(out + "64.eval");
  ASSERT_FALSE(e64.empty());
  for (const std::string prec : {"fp32", "adaptive"}) {
    const std::string o = out + prec;
    ASSERT_EQ(panoramix(common + " --precision " + prec + " --tile-accuracy 1e-2 --out " + o), 0) << read_text(o + ".log");
    const std::string log = read_text(o + ".log");
    EXPECT_EQ(log.find("fell back"), std::string::npos) << log;
    if (prec == "adaptive") {
      const std::string map = read_text(o + ".precision");
      EXPECT_TRUE(map.find("bf16") != std::string::npos || map.find("fp16") != std::string::npos) << map;
    }
    const auto w = read_columns(o + ".weights");
    ASSERT_EQ(w.size(), w64.size());
    double num = 0, den = 0;
    for (size_t i = 0; i < w.size(); ++i)
      for (size_t c = 0; c < w[i].size(); ++c) num += std::pow(w[i][c] - w64[i][c], 2), den += std::pow(w64[i][c], 2);
    const double kappa = (double(w.size()) + alpha) / alpha;
    EXPECT_LE(std::sqrt(num / den), kappa * 2e-9) << prec;
    const auto e = read_columns(o + ".eval");
    ASSERT_EQ(e.size(), e64.size());
    for (size_t c = 0; c < e.size(); ++c) {
      // read_columns drops the first two fields (trait, n): a row is mspe, pearson_r.
      ASSERT_EQ(e[c].size(), 2u);
      EXPECT_LE(std::fabs(e[c][1] - e64[c][1]), 0.002) << prec << " trait " << c;  // Pearson r
      EXPECT_LE(e[c][0] / e64[c][0], 1.005) << prec << " trait " << c;              // MSPE ratio
    }
  }
}

TEST(KrrCommand, LowPrecisionSolvesAgreeWithFp64) {
  PMX_REQUIRE_PEERS();
  const simulated& d = simulated_data();
  expect_low_precision_agrees(d.train, d.test, d.pheno, "1e-3", 1, 32, d.dir + "/p");
}

TEST(KrrCommand, LowPrecisionAgreesWithFp64OnMiceAndWheat) {
  PMX_REQUIRE_PEERS();
  PMX_REQUIRE_DATA(bed, "bglr_mice/mice.bed");
  PMX_REQUIRE_DATA(csv, "bglr_mice/mice_pheno.csv");
  PMX_REQUIRE_DATA(wheat, "bglr_wheat/wheat_dart.bed");
  PMX_REQUIRE_DATA(wheat_y, "bglr_wheat/wheat_Y_4env_folds.csv");
  const std::string mice = mice_split(bed, csv);
  ASSERT_FALSE(::testing::Test::HasFailure());
  expect_low_precision_agrees(mice + "/train", mice + "/test", mice + "/y.txt", "5e-5", 0.5, 64, mice + "/lp");
  // Wheat: the yields of the 4 environments, every fifth line TEST.
  const std::string dir = work().path("wheat_lp"), w = wheat.substr(0, wheat.size() - 4);
  std::filesystem::create_directories(dir);
  ASSERT_EQ(shell("tr -d '\"' < " + wheat_y + " | awk -F, 'NR == 1 {print \"FID IID e1 e2 e3 e4\"} NR > 1 {print $1, $1, $2, $3, $4, $5}' > " +
                  dir + "/y.txt"),
            0);
  ASSERT_EQ(shell("awk 'NR % 5 == 0 {print $1, $2}' " + w + ".fam > " + dir + "/test.keep && awk 'NR % 5 {print $1, $2}' " + w +
                  ".fam > " + dir + "/train.keep"),
            0);
  for (const char* part : {"train", "test"})
    ASSERT_EQ(panoramix("make-bed --bfile " + w + " --keep " + dir + "/" + part + ".keep --out " + dir + "/" + part), 0);
  expect_low_precision_agrees(dir + "/train", dir + "/test", dir + "/y.txt", "1e-3", 1, 32, dir + "/lp");
}

TEST(KrrCommand, LowPrecisionAgreesWithFp64OnEpistaticTraits) {
  PMX_REQUIRE_PEERS();
  // 80 % of the genetic variance in 30 interacting pairs, h² 0.8 (the simulator's --epistasis).
  const std::string dir = work().path("epistatic_lp");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(panoramix("simulate --samples 900 --variants 2000 --traits 3 --qtl 20 --epistasis 30 --h2 0.8 "
                      "--epistatic-share 0.8 --seed 21 --out " + dir + "/all"),
            0);
  ASSERT_EQ(shell("awk 'NR % 4 == 0 {print $1, $2}' " + dir + "/all.fam > " + dir + "/test.keep && awk 'NR % 4 {print $1, $2}' " +
                  dir + "/all.fam > " + dir + "/train.keep"),
            0);
  for (const char* part : {"train", "test"})
    ASSERT_EQ(panoramix("make-bed --bfile " + dir + "/all --keep " + dir + "/" + part + ".keep --out " + dir + "/" + part), 0);
  expect_low_precision_agrees(dir + "/train", dir + "/test", dir + "/all.pheno", "2e-4", 1, 32, dir + "/lp");
}

// Each bad input: non-zero exit, the reason named, no result file.
TEST(KrrCommand, BadInputIsRefusedByName) {
  if (!have_program("plink1.9")) GTEST_SKIP() << "plink1.9 absent: no TEST split";
  const simulated& d = simulated_data();
  const std::string dir = d.dir;
  std::ofstream(dir + "/flat.txt") << "FID IID flat\n";
  {
    std::ifstream fam(d.train + ".fam");
    std::ofstream flat(dir + "/flat.txt", std::ios::app);
    for (std::string f, i, rest; fam >> f >> i && std::getline(fam, rest);) flat << f << " " << i << " 3.5\n";
  }
  // TEST with other variants: the training set with its last 10 variants dropped.
  ASSERT_EQ(shell("head -n 1490 " + d.test + ".bim | awk '{print $2}' > " + dir + "/fewer.txt && plink1.9 --bfile " + d.test +
                " --keep-allele-order --extract " + dir + "/fewer.txt --make-bed --out " + dir + "/fewer"),
            0);
  const std::string base = "krr --bfile " + d.train + " --pheno " + d.pheno + " --all-pheno ";
  struct bad {
    std::string args, says;
  };
  const std::vector<bad> cases = {
      {base + "--gamma 0 --alpha 1", "--gamma"},
      {base + "--gamma -1 --alpha 1", "--gamma"},
      {base + "--gamma nan --alpha 1", "--gamma"},
      {base + "--gamma 1e-3 --alpha -0.5", "--alpha"},
      {base + "--gamma 1e-3 --alpha inf", "--alpha"},
      {"krr --bfile " + d.train + " --pheno " + dir + "/flat.txt --all-pheno --gamma 1e-3 --alpha 1", "no variance"},
      {base + "--gamma 1e-3 --alpha 1 --predict " + dir + "/fewer", "same variants"},
      {base + "--kernel ibs --alpha 1 --covar " + d.covar, "--covar"},
      {base + "--gamma 1e-3 --alpha 1 --precision adaptive --accuracy 0", "--accuracy"},
      {base + "--gamma 1e-3 --alpha 1 --tile 4", "--tile"},
      {base + "--gamma 1e-3 --alpha 1 --pheno-name height", "exactly one"},
      {base + "--gamma 1e-3 --alpha 1 --precision adaptive --kernel-on device --device cpu", "needs --device cuda"},
      {base + "--kernel ibs --alpha 1 --precision fp32 --kernel-on device", "Gaussian kernel only"},
      {base + "--gamma 1e-3 --alpha 1 --precision fp32 --kernel-on device --cv 3", "--cv"},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string out = dir + "/bad" + std::to_string(k);
    EXPECT_NE(panoramix(cases[k].args + " --out " + out, out + ".stderr"), 0) << cases[k].args;
    EXPECT_NE(read_text(out + ".stderr").find(cases[k].says), std::string::npos)
        << cases[k].args << "\n" << read_text(out + ".stderr");
    EXPECT_FALSE(std::filesystem::exists(out + ".weights")) << cases[k].args;
  }
  // Not positive definite: the same samples twice (TEST appended to itself), alpha 0.
  ASSERT_EQ(shell("cat " + d.test + ".fam | awk '{print $1\"_b\", $2\"_b\", $3, $4, $5, $6}' > " + dir + "/twin.fam && cp " +
                d.test + ".bim " + dir + "/twin.bim && cp " + d.test + ".bed " + dir + "/twin.bed && plink1.9 --bfile " +
                d.test + " --bmerge " + dir + "/twin --keep-allele-order --make-bed --out " + dir + "/twins"),
            0);
  ASSERT_EQ(shell("awk '{print $1, $2, 1.0 * NR % 7}' " + dir + "/twins.fam | sed '1i FID IID t' > " + dir + "/twin_y.txt"), 0);
  const std::string out = dir + "/notpd";
  EXPECT_NE(panoramix("krr --bfile " + dir + "/twins --pheno " + dir + "/twin_y.txt --all-pheno --gamma 1e-3 --alpha 0 --out " + out,
                      out + ".stderr"),
            0);
  EXPECT_NE(read_text(out + ".stderr").find("not positive definite"), std::string::npos) << read_text(out + ".stderr");
  EXPECT_FALSE(std::filesystem::exists(out + ".weights"));
}

}  // namespace
}  // namespace pmx
