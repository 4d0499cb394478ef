// `assoc --lmm` on the GPU (cuSOLVER eigendecomposition, U'X on the FP64 tensor cores with U
// resident on the device) against the same run on the CPU, and against the dense GLS oracle
// (lmm_oracle.py) with --lmm-null: simulated data with 2 % missing calls, covariates and missing
// phenotypes, files in other orders than the .fam.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "panoramix/executor.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

int shell(const std::string& line) { return run("{ " + line + "; }"); }

std::map<std::string, std::vector<std::string>> rows(const std::string& path) {
  std::map<std::string, std::vector<std::string>> t;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream s(line);
    for (std::string x; std::getline(s, x, '\t');) f.push_back(x);
    t[f[2]] = f;
  }
  return t;
}

TEST(CudaLmm, EqualsCpuAndDenseOracle) {
  PMX_REQUIRE_GPU();
  const std::string dir = work().path("cuda_lmm");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(panoramix("simulate --samples 700 --variants 2500 --missing 0.02 --chromosomes 3 --traits 1 --qtl 20 "
                      "--pheno-missing 0.05 --seed 21 --out " + shq(dir + "/sim")),
            0);
  ASSERT_EQ(shell("cd " + shq(dir) + " && (head -1 sim.pheno; tail -n +2 sim.pheno | sort -k2,2r) > y.txt && "
                  "awk 'BEGIN {srand(5); print \"FID IID age\"} {printf \"%s %s %s\\n\", $1, $2, "
                  "NR == 7 ? \"NA\" : int(20 + 40 * rand())}' sim.fam | sort -k2,2 > c.txt"),
            0);
  const std::string common = "assoc --lmm --bfile " + shq(dir + "/sim") + " --pheno " + shq(dir + "/y.txt") +
                             " --covar " + shq(dir + "/c.txt");
  ASSERT_EQ(panoramix(common + " --device cuda --out " + shq(dir + "/gpu")), 0);
  ASSERT_EQ(panoramix(common + " --device cpu --out " + shq(dir + "/cpu")), 0);
  const auto g = rows(dir + "/gpu.trait1.lmm"), c = rows(dir + "/cpu.trait1.lmm");
  ASSERT_EQ(g.size(), c.size());
  int tested = 0;
  for (const auto& [id, x] : c) {
    const auto& y = g.at(id);
    ASSERT_EQ(y[14], x[14]) << id;
    if (x[14] != ".") continue;
    ++tested;
    // Eigenvectors from another solver: the statistics agree to the conditioning of λ's search.
    for (int col : {9, 10, 11, 12, 13}) {
      const double a = std::stod(y[col]), b = std::stod(x[col]);
      const double scale = col == 9 ? std::fabs(b) + std::stod(x[10]) : std::fabs(b);
      EXPECT_NEAR(a, b, 1e-7 * scale) << id << " column " << col;
    }
  }
  EXPECT_GT(tested, 2400);

  // --lmm-null on the GPU against the dense oracle.
  ASSERT_EQ(panoramix("grm --bfile " + shq(dir + "/sim") + " --out " + shq(dir + "/k")), 0);
  ASSERT_EQ(panoramix(common + " --lmm-null --device cuda --out " + shq(dir + "/null")), 0);
  const std::string python = python_with_scipy();
  if (python.empty()) GTEST_SKIP() << "the GPU = CPU part passed; no Python with numpy and scipy for the dense oracle";
  ASSERT_EQ(run(python + " " + shq(std::string(PMX_TEST_DIR) + "/lmm_oracle.py") + " wald " +
                    shq(dir + "/sim") + " " + shq(dir + "/k.rel.bin") + " " + shq(dir + "/y.txt") + " " +
                    shq(dir + "/c.txt") + " " + shq(dir + "/null.trait1.lmm") + " " + shq(dir + "/oracle.txt"),
                dir + "/oracle.log"),
            0)
      << read_text(dir + "/oracle.log");
  const auto o = rows(dir + "/null.trait1.lmm");
  std::ifstream in(dir + "/oracle.txt");
  std::string id;
  double lambda0 = 0, b, s, p;
  in >> id >> lambda0;
  int compared = 0;
  while (in >> id >> b >> s >> p) {
    const auto& x = o.at(id);
    EXPECT_NEAR(std::stod(x[12]), lambda0, 1e-5 * lambda0) << id;
    EXPECT_NEAR(std::stod(x[9]), b, 1e-8 * (std::fabs(b) + s)) << id << " beta";
    EXPECT_NEAR(std::stod(x[10]), s, 1e-8 * s) << id << " se";
    EXPECT_NEAR(std::stod(x[13]), p, 1e-7 * p + 1e-300) << id << " p";
    ++compared;
  }
  EXPECT_GT(compared, 2400);
}

}  // namespace
}  // namespace pmx
