// `mpirun -np N panoramix krr` against the one-process run on the same files: the Gram matrix's
// rows split over the ranks, K's tile-cyclic columns made where those rows lie and exchanged, the
// solve over the ranks (ScaLAPACK on these CPUs) and the predictions of the TEST rows each rank
// holds. Weights and predictions must equal one process's within 1e-12 relative (the same
// equations; only the Cholesky's order of operations differs). The data have the awkward shapes of
// the krr command tests (phenotypes and covariates in other orders, NA, -9, a TEST sample without
// a covariate); a small tile gives every rank several tile columns, and with 4 ranks the last one
// holds TEST rows only. Both kernels (the IBS one's Gram matrix from three tables), and --cv (every
// fold solved over the ranks). What does not split yet is refused by name, nothing written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "ridge_test_data.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

// Largest normwise relative difference of the columns of two `FID IID value...` tables (rows and
// IDs equal; an NA where one has it, the other must too).
double column_difference(const std::string& a, const std::string& b) {
  const auto x = read_columns(a), y = read_columns(b);
  EXPECT_EQ(x.size(), y.size()) << a;
  EXPECT_GT(x.size(), 10u) << a;
  std::vector<double> num, den;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    EXPECT_EQ(x[i].size(), y[i].size()) << a << " row " << i;
    for (size_t c = 0; c < std::min(x[i].size(), y[i].size()); ++c) {
      if (num.size() <= c) num.resize(c + 1), den.resize(c + 1);
      num[c] += (x[i][c] - y[i][c]) * (x[i][c] - y[i][c]), den[c] += x[i][c] * x[i][c];
    }
  }
  double worst = 0;
  for (size_t c = 0; c < num.size(); ++c) worst = std::max(worst, std::sqrt(num[c] / den[c]));
  std::string ids_a, ids_b;
  for (const auto& [path, ids] : {std::pair{a, &ids_a}, std::pair{b, &ids_b}}) {
    std::istringstream in(read_text(path));
    for (std::string line, f, i; std::getline(in, line);) {
      std::istringstream s(line);
      s >> f >> i;
      *ids += f + " " + i + "\n";
    }
  }
  EXPECT_EQ(ids_a, ids_b) << a;
  return worst;
}

TEST(KrrRanks, SplitOverRanksEqualsOneProcess) {
  if (std::string(PMX_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI (Debian: libopenmpi-dev)";
  if (!have_program("plink1.9")) GTEST_SKIP() << "plink1.9 absent: no TEST split";
  const simulated& d = simulated_data();
  const std::string dir = work().path("krr_ranks");
  std::filesystem::create_directories(dir);
  const std::string args = " --bfile " + d.train + " --pheno " + d.pheno + " --pheno-name height,yield --covar " + d.covar +
                           " --gamma 2e-4 --alpha 0.7 --predict " + d.test + " --tile 16";
  const std::string one = dir + "/one";
  ASSERT_EQ(panoramix("krr" + args + " --threads 1 --out " + one), 0) << read_text(one + ".log");
  for (int np : {2, 3, 4})
    for (const std::string precision : {"fp64", "adaptive"}) {
      const std::string split = dir + "/np" + std::to_string(np) + precision;
      ASSERT_EQ(run(mpirun_panoramix(np) + " krr" + args + " --precision " + precision + " --out " + split, split + ".out"), 0)
          << read_text(split + ".out") << read_text(split + ".log");
      EXPECT_LE(column_difference(one + ".weights", split + ".weights"), 1e-12) << np << " ranks, " << precision;
      EXPECT_LE(column_difference(one + ".pred", split + ".pred"), 1e-12) << np << " ranks, " << precision;
      EXPECT_TRUE(std::filesystem::exists(split + ".eval"));
      const std::string log = read_text(split + ".log");
      EXPECT_NE(log.find("rows split over " + std::to_string(np) + " ranks"), std::string::npos) << log;
      if (precision == "adaptive") {  // on CPUs the low-precision tile Cholesky over ranks is FP64's (named)
        EXPECT_NE(log.find("over ranks runs on GPUs"), std::string::npos) << log;
      }
    }
  // The IBS kernel: its Gram matrix's three indicator tables summed over the ranks' variants.
  const std::string ibs = " --bfile " + d.train + " --pheno " + d.pheno + " --pheno-name height --kernel ibs --alpha 0.3 --predict " +
                          d.test + " --tile 24";
  ASSERT_EQ(panoramix("krr" + ibs + " --threads 1 --out " + one + "_ibs"), 0) << read_text(one + "_ibs.log");
  for (int np : {2, 3}) {
    const std::string split = dir + "/ibs_np" + std::to_string(np);
    ASSERT_EQ(run(mpirun_panoramix(np) + " krr" + ibs + " --out " + split, split + ".out"), 0) << read_text(split + ".out");
    EXPECT_LE(column_difference(one + "_ibs.weights", split + ".weights"), 1e-12) << np << " ranks, ibs";
    EXPECT_LE(column_difference(one + "_ibs.pred", split + ".pred"), 1e-12) << np << " ranks, ibs";
  }
  // Cross-validation: every fold's K split and solved over the ranks, its held-out samples
  // predicted where their rows lie; the same grid of MSPEs (.cv) and the same chosen fits.
  const std::string cv = " --bfile " + d.train + " --pheno " + d.pheno + " --pheno-name height,yield --covar " + d.covar +
                         " --cv 3 --gamma-grid 1e-4,4e-4 --alpha-grid 0.3,1 --tile 16";
  ASSERT_EQ(panoramix("krr" + cv + " --threads 1 --out " + one + "_cv"), 0) << read_text(one + "_cv.log");
  for (int np : {2, 3}) {
    const std::string split = dir + "/cv_np" + std::to_string(np);
    ASSERT_EQ(run(mpirun_panoramix(np) + " krr" + cv + " --out " + split, split + ".out"), 0) << read_text(split + ".out");
    EXPECT_LE(column_difference(one + "_cv.weights", split + ".weights"), 1e-12) << np << " ranks, cv";
    // .cv: trait gamma alpha n mspe pearson_r chosen — the same lines, numbers within 1e-12.
    std::istringstream a(read_text(one + "_cv.cv")), b(read_text(split + ".cv"));
    std::string la, lb;
    int lines = 0;
    while (std::getline(a, la)) {
      ASSERT_TRUE(static_cast<bool>(std::getline(b, lb))) << "line " << lines;
      std::istringstream x(la), y(lb);
      for (std::string u, v; x >> u && y >> v;) {
        char* end = nullptr;
        const double du = std::strtod(u.c_str(), &end);
        if (*end || u.empty()) EXPECT_EQ(u, v);
        else EXPECT_LE(std::fabs(du - std::stod(v)), 1e-12 * std::max(1.0, std::fabs(du))) << la << " | " << lb;
      }
      ++lines;
    }
    EXPECT_EQ(lines, 1 + 2 * 4) << read_text(split + ".cv");
    EXPECT_FALSE(static_cast<bool>(std::getline(b, lb)));
  }
  for (const auto& f : std::filesystem::directory_iterator(dir))  // no temporary left behind
    EXPECT_EQ(f.path().string().find(".tmp."), std::string::npos) << f.path();
}

TEST(KrrRanks, RefusesWhatDoesNotSplitByName) {
  if (std::string(PMX_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI (Debian: libopenmpi-dev)";
  if (!have_program("plink1.9")) GTEST_SKIP() << "plink1.9 absent: no TEST split";
  const simulated& d = simulated_data();
  const std::string out = work().path("krr_ranks_refused");
  // K kept in device memory: each rank builds its kernel rows on the host.
  EXPECT_NE(run(mpirun_panoramix(2) + " krr --bfile " + d.train + " --pheno " + d.pheno +
                    " --pheno-name height --gamma 2e-4 --alpha 1 --kernel-on device --out " + out,
                out + ".out"),
            0);
  EXPECT_NE(read_text(out + ".out").find("each rank builds its kernel rows"), std::string::npos) << read_text(out + ".out");
  EXPECT_FALSE(std::filesystem::exists(out + ".weights"));
}

}  // namespace
}  // namespace pmx
