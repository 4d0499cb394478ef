// `panoramix assoc --lmm` against GEMMA 0.98.5 (Debian gemma, `-lmm 1`, the same K through -k):
// every row GEMMA tests is ours too, with beta, se, logl_H1 and p_wald within 1e-6 relative (GEMMA
// prints 7 significant digits) and l_remle within 1e-5 relative (GEMMA stops its Newton steps at
// 1e-5). On the mice (BMI, sex as covariate; --loco against GEMMA -loco with the GRM of the other
// chromosomes) and on simulated data with 2 % missing calls, two covariates (one value missing),
// missing phenotypes and the phenotype and covariate files in other orders than the .fam, with K
// read from a GCTA .grm.bin (--grm). --lmm-null against a dense generalised-least-squares oracle
// (lmm_oracle.py: its own REML maximum, and every variant's Wald test at our null λ). Bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

int shell(const std::string& line) { return run("{ " + line + "; }"); }
std::string oracle() { return "/usr/bin/python3 " + shq(std::string(PMX_TEST_DIR) + "/lmm_oracle.py"); }

using table = std::map<std::string, std::vector<std::string>>;  // variant ID -> fields

table read_rows(const std::string& path, int id_column, char sep) {
  table t;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream s(line);
    for (std::string x; std::getline(s, x, sep);) f.push_back(x);
    t[f[id_column]] = f;
  }
  return t;
}

// GEMMA's .assoc.txt (chr rs ps n_miss allele1 allele0 af beta se logl_H1 l_remle p_wald) against
// ours (#CHROM POS ID REF ALT A1 A1_FREQ MISS_CT OBS_CT BETA SE LOGL_H1 LAMBDA P ERRCODE), on the
// rows of GEMMA whose chromosome is `chrom` (all when empty). Returns the rows compared.
int compare_with_gemma(const std::string& gemma, const std::string& ours, const std::string& chrom = "") {
  const table g = read_rows(gemma, 1, '\t'), o = read_rows(ours, 2, '\t');
  int compared = 0;
  for (const auto& [id, y] : g) {
    if (!chrom.empty() && y[0] != chrom) continue;
    const auto it = o.find(id);
    if (it == o.end()) {
      ADD_FAILURE() << id << " missing from ours";
      continue;
    }
    const std::vector<std::string>& x = it->second;
    if (x.size() != 15u || x[14] != ".") {
      ADD_FAILURE() << id << ": not tested by us";
      continue;
    }
    EXPECT_EQ(x[5], y[4]) << id << ": tested allele";
    EXPECT_EQ(x[7], y[3]) << id << ": missing calls";
    EXPECT_NEAR(std::stod(x[6]), std::stod(y[6]), 5e-4 + 1e-12) << id << ": allele frequency (GEMMA: 3 decimals)";
    const auto near = [&](int ours_col, int gemma_col, double rel, const char* what) {
      const double a = std::stod(x[ours_col]), b = std::stod(y[gemma_col]);
      EXPECT_LE(std::fabs(a - b), rel * std::fabs(b)) << id << " " << what << ": ours " << x[ours_col] << ", GEMMA "
                                                      << y[gemma_col];
    };
    near(9, 7, 1e-6, "beta");
    near(10, 8, 1e-6, "se");
    near(11, 9, 1e-6, "logl_H1");
    near(12, 10, 1e-5, "lambda");
    near(13, 11, 1e-6, "p_wald");
    ++compared;
  }
  return compared;
}

// K as GEMMA's -k text and GEMMA's .fam/.cov (from our phenotype and covariate files, matched by
// the oracle script), then `gemma -lmm 1` with `extra` flags; output dir/gout/g.assoc.txt.
void run_gemma(const std::string& dir, const std::string& bfile, const std::string& ktext_args,
               const std::string& pheno, const std::string& covar, const std::string& extra, const std::string& out) {
  ASSERT_EQ(shell(oracle() + " " + ktext_args + " && " + oracle() + " gemma-inputs " + shq(bfile) + " " + shq(pheno) +
                  " " + shq(covar) + " " + shq(dir + "/gm")),
            0);
  ASSERT_EQ(run("cd " + shq(dir) + " && gemma -bfile gm -k k.txt -c gm.cov -lmm 1 " + extra + " -outdir gout -o " + out,
                dir + "/" + out + ".out"),
            0)
      << read_text(dir + "/" + out + ".out");
}

TEST(Lmm, MiceEqualsGemmaWithAndWithoutLoco) {
  if (!have_program("gemma")) GTEST_SKIP() << "gemma is not installed";
  PMX_REQUIRE_DATA(bed, "bglr_mice/mice.bed");
  PMX_REQUIRE_DATA(csv, "bglr_mice/mice_pheno.csv");
  const std::string mice = bed.substr(0, bed.size() - 4), dir = work().path("lmm_mice");
  std::filesystem::create_directories(dir);
  // BMI and sex, rows in reverse .csv order.
  ASSERT_EQ(run("/usr/bin/python3 -c \"import csv; r=list(csv.reader(open('" + csv +
                "'))); h=r[0]; a,g=h.index('Obesity.BMI'),h.index('GENDER'); "
                "f=open('" + dir + "/y.txt','w'); f.write('FID IID bmi\\n'); "
                "[f.write('%s %s %s\\n'%(x[0],x[0],x[a] or 'NA')) for x in r[:0:-1]]; "
                "c=open('" + dir + "/c.txt','w'); c.write('FID IID male\\n'); "
                "[c.write('%s %s %s\\n'%(x[0],x[0],{'M':1,'F':0}.get(x[g],'NA'))) for x in r[:0:-1]]\""),
            0);
  ASSERT_EQ(panoramix("grm --bfile " + shq(mice) + " --out " + shq(dir + "/k")), 0);
  ASSERT_EQ(panoramix("assoc --lmm --bfile " + shq(mice) + " --pheno " + shq(dir + "/y.txt") + " --covar " +
                      shq(dir + "/c.txt") + " --out " + shq(dir + "/ours")),
            0);
  run_gemma(dir, mice, "ktext " + shq(dir + "/k.rel.bin") + " 1814 " + shq(dir + "/k.txt"), dir + "/y.txt",
            dir + "/c.txt", "", "g");
  // Every variant, chromosome X included (tested as GEMMA does, under the GRM of the autosomes).
  EXPECT_EQ(compare_with_gemma(dir + "/gout/g.assoc.txt", dir + "/ours.bmi.lmm"), 10346);
  // The null model: GEMMA's pve (6 significant digits).
  const std::string log = read_text(dir + "/gout/g.log.txt"), ours = read_text(dir + "/ours.log");
  EXPECT_NE(log.find("pve estimate in the null model = 0.172259"), std::string::npos) << log;
  EXPECT_NE(ours.find("pve = 0.172259"), std::string::npos) << ours;

  // --loco: chromosomes 1 and 11 against GEMMA -loco with K from the other chromosomes; X under
  // the GRM of all autosomes.
  ASSERT_EQ(panoramix("assoc --lmm --loco --bfile " + shq(mice) + " --pheno " + shq(dir + "/y.txt") + " --covar " +
                      shq(dir + "/c.txt") + " --out " + shq(dir + "/loco")),
            0);
  ASSERT_EQ(shell("awk '{print $2, $4, $1}' " + shq(mice + ".bim") + " > " + shq(dir + "/anno.txt")), 0);
  for (const std::string chrom : {"1", "11"}) {
    ASSERT_EQ(panoramix("grm --bfile " + shq(mice) + " --not-chr " + chrom + " --out " + shq(dir + "/k" + chrom)), 0);
    run_gemma(dir, mice, "ktext " + shq(dir + "/k" + chrom + ".rel.bin") + " 1814 " + shq(dir + "/k.txt"),
              dir + "/y.txt", dir + "/c.txt", "-loco " + chrom + " -a anno.txt", "loco" + chrom);
    EXPECT_GT(compare_with_gemma(dir + "/gout/loco" + chrom + ".assoc.txt", dir + "/loco.bmi.lmm", chrom), 300);
  }
  EXPECT_EQ(compare_with_gemma(dir + "/gout/g.assoc.txt", dir + "/loco.bmi.lmm", "X"), 272);
}

// Simulated: 2 % missing calls, 5 % missing phenotypes, two covariates (one value missing), files
// in other orders than the .fam, one phenotype row for a sample without genotypes; K from --grm.
void simulate(const std::string& dir) {
  ASSERT_EQ(panoramix("simulate --samples 400 --variants 3000 --missing 0.02 --chromosomes 3 --traits 1 --qtl 20 "
                      "--pheno-missing 0.05 --seed 11 --out " + shq(dir + "/sim")),
            0);
  ASSERT_EQ(shell("cd " + shq(dir) + " && (head -1 sim.pheno; tail -n +2 sim.pheno | sort -k2,2r; "
                  "echo 'ghost g1 1.5') > y.txt && awk 'BEGIN {srand(5); print \"FID IID age dose\"} "
                  "{printf \"%s %s %s %.4f\\n\", $1, $2, NR == 7 ? \"NA\" : int(20 + 40 * rand()), rand()}' "
                  "sim.fam | sort -k2,2 > c.txt"),
            0);
}

TEST(Lmm, SimulatedWithMissingCallsEqualsGemma) {
  if (!have_program("gemma")) GTEST_SKIP() << "gemma is not installed";
  const std::string dir = work().path("lmm_sim");
  std::filesystem::create_directories(dir);
  simulate(dir);
  ASSERT_EQ(panoramix("grm --bfile " + shq(dir + "/sim") + " --format gcta --out " + shq(dir + "/k")), 0);
  ASSERT_EQ(panoramix("assoc --lmm --bfile " + shq(dir + "/sim") + " --grm " + shq(dir + "/k") + " --pheno " +
                      shq(dir + "/y.txt") + " --covar " + shq(dir + "/c.txt") + " --out " + shq(dir + "/ours")),
            0);
  run_gemma(dir, dir + "/sim", "ktext-gcta " + shq(dir + "/k") + " " + shq(dir + "/k.txt"), dir + "/y.txt",
            dir + "/c.txt", "", "g");
  // GEMMA drops variants with MAF below 0.01 or more than 5 % missing among the analysed samples;
  // all others are compared.
  EXPECT_GT(compare_with_gemma(dir + "/gout/g.assoc.txt", dir + "/ours.trait1.lmm"), 2800);
  const std::string log = read_text(dir + "/ours.log");
  EXPECT_NE(log.find("--grm " + dir + "/k: 400 samples, 400 of the 400 genotyped samples among them"), std::string::npos)
      << log;
}

TEST(Lmm, NullLambdaEqualsDenseGls) {
  const std::string dir = work().path("lmm_null");
  std::filesystem::create_directories(dir);
  simulate(dir);
  ASSERT_EQ(panoramix("grm --bfile " + shq(dir + "/sim") + " --out " + shq(dir + "/k")), 0);
  ASSERT_EQ(panoramix("assoc --lmm --lmm-null --bfile " + shq(dir + "/sim") + " --pheno " + shq(dir + "/y.txt") +
                      " --covar " + shq(dir + "/c.txt") + " --out " + shq(dir + "/ours")),
            0);
  ASSERT_EQ(shell(oracle() + " wald " + shq(dir + "/sim") + " " + shq(dir + "/k.rel.bin") + " " + shq(dir + "/y.txt") +
                  " " + shq(dir + "/c.txt") + " " + shq(dir + "/ours.trait1.lmm") + " " + shq(dir + "/oracle.txt")),
            0);
  const table o = read_rows(dir + "/ours.trait1.lmm", 2, '\t');
  std::ifstream in(dir + "/oracle.txt");
  std::string id;
  double lambda0 = 0;
  in >> id >> lambda0;
  ASSERT_EQ(id, "null");
  int compared = 0;
  double b, s, p;
  while (in >> id >> b >> s >> p) {
    const std::vector<std::string>& x = o.at(id);
    // One λ for every variant: the null model's REML maximum (GEMMA's search stops at 1e-5).
    EXPECT_NEAR(std::stod(x[12]), lambda0, 1e-5 * lambda0) << id;
    // β near 0 is the difference of nearly equal sums: its error is relative to its scale, se.
    EXPECT_NEAR(std::stod(x[9]), b, 1e-8 * (std::fabs(b) + s)) << id << " beta";
    EXPECT_NEAR(std::stod(x[10]), s, 1e-8 * s) << id << " se";
    EXPECT_NEAR(std::stod(x[13]), p, 1e-7 * p + 1e-300) << id << " p";
    ++compared;
  }
  EXPECT_GT(compared, 2900);
}

TEST(Lmm, BadInputIsNamed) {
  const std::string dir = work().path("lmm_bad");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(panoramix("simulate --samples 60 --variants 200 --chromosomes 2 --traits 1 --seed 3 --out " +
                      shq(dir + "/s")),
            0);
  const std::string base = "assoc --bfile " + shq(dir + "/s") + " --pheno " + shq(dir + "/s.pheno") + " --out " +
                           shq(dir + "/o");
  const auto fails_with = [&](const std::string& args, const std::string& message) {
    EXPECT_NE(panoramix(base + " " + args, dir + "/err.txt"), 0) << args;
    EXPECT_NE(read_text(dir + "/err.txt").find(message), std::string::npos) << args << ": " << read_text(dir + "/err.txt");
    EXPECT_FALSE(std::filesystem::exists(dir + "/o.trait1.lmm")) << args;
  };
  fails_with("--lmm --glm", "--glm and --lmm are separate runs");
  fails_with("--lmm --loco --grm " + shq(dir + "/none"), "--loco computes each chromosome's GRM");
  fails_with("--loco", "--loco needs --lmm");
  fails_with("--lmm --grm " + shq(dir + "/none"), "none.grm.id");
  // Two samples with the phenotype.
  ASSERT_EQ(shell("head -3 " + shq(dir + "/s.pheno") + " > " + shq(dir + "/two.txt")), 0);
  EXPECT_NE(panoramix("assoc --lmm --bfile " + shq(dir + "/s") + " --pheno " + shq(dir + "/two.txt") + " --out " +
                      shq(dir + "/o"), dir + "/err.txt"), 0);
  EXPECT_NE(read_text(dir + "/err.txt").find("2 samples have the phenotype"), std::string::npos) << read_text(dir + "/err.txt");
  // A constant phenotype.
  ASSERT_EQ(shell("awk 'NR == 1 {print; next} {print $1, $2, 3}' " + shq(dir + "/s.pheno") + " > " +
                  shq(dir + "/const.txt")), 0);
  EXPECT_NE(panoramix("assoc --lmm --bfile " + shq(dir + "/s") + " --pheno " + shq(dir + "/const.txt") + " --out " +
                      shq(dir + "/o"), dir + "/err.txt"), 0);
  EXPECT_NE(read_text(dir + "/err.txt").find("the phenotype is constant"), std::string::npos) << read_text(dir + "/err.txt");
  // A GRM without any of the genotyped samples.
  ASSERT_EQ(panoramix("simulate --samples 30 --variants 100 --seed 4 --out " + shq(dir + "/other")), 0);
  ASSERT_EQ(shell("sed -i 's/s0000/t0000/' " + shq(dir + "/other.fam")), 0);
  ASSERT_EQ(panoramix("grm --bfile " + shq(dir + "/other") + " --format gcta --out " + shq(dir + "/ok")), 0);
  fails_with("--lmm --grm " + shq(dir + "/ok"), "none of its samples is in the genotype data");
}

}  // namespace
}  // namespace pmx
