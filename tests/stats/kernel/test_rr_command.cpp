// `panoramix rr` end to end: fp64 coefficients and predictions equal scikit-learn's
// Ridge(alpha=lambda, fit_intercept=False) on the same X = [centred dosages | standardised
// covariates] and centred Y (simulated data with missing calls, covariates, IDs in other orders, NA
// and -9; and the mice of ../shared/data with X dropped), fp32/adaptive solves agree with fp64
// within their documented bound, and bad input is refused by name with nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ridge_test_data.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

const std::string oracle = std::filesystem::path(PMX_TEST_DIR) / "rr_sklearn_oracle.py";


struct oracle_result {
  double beta = NAN, pred = NAN, cond = NAN;
  int64_t n = 0, columns = 0;
};

oracle_result compare_with_sklearn(const std::string& train, const std::string& test, const std::string& pheno,
                                   const std::string& covar, const std::string& lambda, const std::string& out,
                                   const std::string& traits) {
  const std::string log = out + ".oracle";
  EXPECT_EQ(run(python + " " + shq(oracle) + " " + train + " " + test + " " + pheno + " " + covar + " " + lambda + " " +
                    out + " " + traits,
                log),
            0)
      << read_text(log);
  oracle_result r;
  std::istringstream in(read_text(log));
  std::string k1, k2, k3, k4, k5;
  in >> k1 >> r.beta >> k2 >> r.pred >> k3 >> r.n >> k4 >> r.columns >> k5 >> r.cond;
  return r;
}


TEST(RrCommand, CovariatesMissingCallsAndShuffledIdsEqualScikitLearn) {
  PMX_REQUIRE_PEERS();
  const simulated& d = simulated_data();
  for (const std::string device : {"cpu", "reference"}) {
    const std::string out = d.dir + "/c_" + device;
    ASSERT_EQ(panoramix("rr --bfile " + d.train + " --pheno " + d.pheno + " --pheno-name height,yield --covar " +
                        d.covar + " --lambda 40 --predict " + d.test + " --threads 2 --device " + device + " --out " + out),
              0)
        << read_text(out + ".log");
    const oracle_result r = compare_with_sklearn(d.train, d.test, d.pheno, d.covar, "40", out, "height yield");
    EXPECT_LE(r.beta, 1e-9) << device;
    EXPECT_LE(r.pred, 1e-9) << device;
    EXPECT_EQ(r.columns, 1502);  // 1,500 variants and 2 covariates
    EXPECT_GT(r.n, 200);
    // The TEST sample without a covariate is predicted NA and left out of .eval.
    EXPECT_NE(read_text(out + ".pred").find("\tNA\tNA"), std::string::npos);
    EXPECT_NE(read_text(out + ".eval").find("height\t86\t"), std::string::npos) << read_text(out + ".eval");
    EXPECT_EQ(read_text(out + ".eval").find("NA"), std::string::npos) << read_text(out + ".eval");
  }
}

TEST(RrCommand, WithoutCovariatesEqualsScikitLearn) {
  PMX_REQUIRE_PEERS();
  const simulated& d = simulated_data();
  const std::string out = d.dir + "/nc";
  // λ small enough that the fit is far from the null one (and the system less well conditioned).
  ASSERT_EQ(panoramix("rr --bfile " + d.train + " --pheno " + d.pheno + " --all-pheno --lambda 0.5 --predict " + d.test +
                      " --out " + out),
            0)
      << read_text(out + ".log");
  const oracle_result r = compare_with_sklearn(d.train, d.test, d.pheno, "-", "0.5", out, "height yield");
  EXPECT_LE(r.beta, 1e-9);
  EXPECT_LE(r.pred, 1e-9);
  EXPECT_GT(r.cond, 100);
}

TEST(RrCommand, MiceEqualScikitLearn) {
  PMX_REQUIRE_PEERS();
  PMX_REQUIRE_DATA(bed, "bglr_mice/mice.bed");
  PMX_REQUIRE_DATA(csv, "bglr_mice/mice_pheno.csv");
  const std::string dir = mice_split(bed, csv);
  ASSERT_FALSE(::testing::Test::HasFailure());
  const std::string out = dir + "/r";
  ASSERT_EQ(panoramix("rr --bfile " + dir + "/train --pheno " + dir + "/y.txt --all-pheno --lambda 200 --predict " + dir +
                      "/test --threads 2 --out " + out),
            0)
      << read_text(out + ".log");
  const oracle_result r = compare_with_sklearn(dir + "/train", dir + "/test", dir + "/y.txt", "-", "200", out, "bmi length");
  EXPECT_LE(r.beta, 1e-9);
  EXPECT_LE(r.pred, 1e-9);
  EXPECT_EQ(r.columns, 10074);  // the X chromosome's 272 variants dropped
  EXPECT_NE(read_text(out + ".log").find("X'X of 10074 columns"), std::string::npos);
}


// fp32 and adaptive (emulated on the cpu) against fp64 on the same split: the backward error
// reached is at most --accuracy, so ‖β − β64‖/‖β64‖ ≤ κ₂(XᵀX + λI) · 2·accuracy, κ₂ from the oracle.
TEST(RrCommand, LowPrecisionSolvesAgreeWithFp64) {
  PMX_REQUIRE_PEERS();
  const simulated& d = simulated_data();
  const std::string common = "rr --bfile " + d.train + " --pheno " + d.pheno + " --covar " + d.covar +
                             " --all-pheno --lambda 40 --tile 32 --accuracy 1e-9 --predict " + d.test;
  ASSERT_EQ(panoramix(common + " --out " + d.dir + "/p64"), 0);
  const oracle_result o = compare_with_sklearn(d.train, d.test, d.pheno, d.covar, "40", d.dir + "/p64", "height yield");
  ASSERT_TRUE(o.cond >= 1 && std::isfinite(o.cond));
  const auto b64 = read_columns(d.dir + "/p64.beta");
  const auto e64 = read_columns(d.dir + "/p64.eval");
  for (const std::string prec : {"fp32", "adaptive"}) {
    const std::string out = d.dir + "/p" + prec;
    ASSERT_EQ(panoramix(common + " --precision " + prec + " --tile-accuracy 1e-2 --out " + out), 0) << read_text(out + ".log");
    const std::string log = read_text(out + ".log");
    EXPECT_EQ(log.find("fell back"), std::string::npos) << log;
    if (prec == "adaptive") {
      EXPECT_NE(read_text(out + ".precision").find("bf16"), std::string::npos);
    }
    const auto b = read_columns(out + ".beta");
    ASSERT_EQ(b.size(), b64.size());
    double num = 0, den = 0;
    for (size_t i = 0; i < b.size(); ++i)
      for (size_t c = 0; c < b[i].size(); ++c) num += std::pow(b[i][c] - b64[i][c], 2), den += std::pow(b64[i][c], 2);
    EXPECT_LE(std::sqrt(num / den), o.cond * 2e-9) << prec;
    const auto e = read_columns(out + ".eval");
    ASSERT_EQ(e.size(), e64.size());
    for (size_t c = 0; c < e.size(); ++c) {  // read_columns skips `trait n`: the values are mspe, pearson_r
      ASSERT_EQ(e[c].size(), 2u);
      ASSERT_EQ(e64[c].size(), 2u);
      EXPECT_LE(std::fabs(e[c][1] - e64[c][1]), 0.002) << prec;  // Pearson r
      EXPECT_LE(e[c][0] / e64[c][0], 1.005) << prec;              // MSPE ratio
    }
  }
}

// Each bad input: non-zero exit, the reason named, no result file.
TEST(RrCommand, BadInputIsRefusedByName) {
  if (!have_program("plink1.9")) GTEST_SKIP() << "plink1.9 absent: no TEST split";
  const simulated& d = simulated_data();
  const std::string dir = d.dir;
  {
    std::ifstream fam(d.train + ".fam");
    std::ofstream flat(dir + "/flat.txt");
    flat << "FID IID flat\n";
    for (std::string f, i, rest; fam >> f >> i && std::getline(fam, rest);) flat << f << " " << i << " 3.5\n";
  }
  {
    std::ifstream fam(d.train + ".fam");
    std::ofstream flat(dir + "/flat_covar.txt");
    flat << "FID IID sex\n";
    for (std::string f, i, rest; fam >> f >> i && std::getline(fam, rest);) flat << f << " " << i << " 1\n";
  }
  // TEST with other variants: the TEST set with its last 10 variants dropped.
  ASSERT_EQ(shell("head -n 1490 " + d.test + ".bim | awk '{print $2}' > " + dir + "/fewer.txt && plink1.9 --bfile " + d.test +
                " --keep-allele-order --extract " + dir + "/fewer.txt --make-bed --out " + dir + "/rr_fewer"),
            0);
  // TEST with the same variants but one allele pair swapped.
  ASSERT_EQ(shell("cp " + d.test + ".bed " + dir + "/swapped.bed && cp " + d.test + ".fam " + dir +
                "/swapped.fam && awk 'NR==7{t=$5; $5=$6; $6=t} {print}' OFS='\\t' " + d.test + ".bim > " + dir +
                "/swapped.bim"),
            0);
  const std::string base = "rr --bfile " + d.train + " --pheno " + d.pheno + " --all-pheno ";
  struct bad {
    std::string args, says;
  };
  const std::vector<bad> cases = {
      {base + "--lambda -0.5", "--lambda"},
      {base + "--lambda nan", "--lambda"},
      {base + "--lambda inf", "--lambda"},
      {base, "--lambda"},  // required
      {"rr --bfile " + d.train + " --pheno " + dir + "/flat.txt --all-pheno --lambda 1", "no variance"},
      {base + "--lambda 1 --covar " + dir + "/flat_covar.txt", "no variance"},
      {base + "--lambda 1 --predict " + dir + "/rr_fewer", "same variants"},
      {base + "--lambda 1 --predict " + dir + "/swapped", "same variants"},
      {base + "--lambda 1 --pheno-name height", "exactly one"},
      {base + "--lambda 1 --covar-name age", "--covar"},
      {base + "--lambda 1 --precision adaptive --accuracy 0", "--accuracy"},
      {base + "--lambda 1 --tile 4", "--tile"},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string out = dir + "/bad" + std::to_string(k);
    EXPECT_NE(panoramix(cases[k].args + " --out " + out, out + ".stderr"), 0) << cases[k].args;
    EXPECT_NE(read_text(out + ".stderr").find(cases[k].says), std::string::npos)
        << cases[k].args << "\n" << read_text(out + ".stderr");
    EXPECT_FALSE(std::filesystem::exists(out + ".beta")) << cases[k].args;
    EXPECT_FALSE(std::filesystem::exists(out + ".pred")) << cases[k].args;
  }
  // λ = 0 with more variants than samples: XᵀX is singular, refused by name.
  const std::string out = dir + "/singular";
  EXPECT_NE(panoramix(base + "--lambda 0 --out " + out, out + ".stderr"), 0);
  EXPECT_NE(read_text(out + ".stderr").find("X'X + lambda I is not positive definite (raise --lambda"), std::string::npos)
      << read_text(out + ".stderr");
  EXPECT_FALSE(std::filesystem::exists(out + ".beta"));
}

}  // namespace
}  // namespace pmx
