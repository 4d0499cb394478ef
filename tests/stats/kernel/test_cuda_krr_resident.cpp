// `panoramix krr --device cuda` with K resident in device memory (src/stats/kernel/resident_krr.hpp)
// against the host path's fp64 solve on the cpu (itself equal to scikit-learn: test_krr_command):
// the same weights and TEST predictions, with covariates (one missing: that TEST sample has no
// prediction), IDs in other orders and phenotypes missing for some training samples (so the fitted
// samples are a subset). Data without missing calls, as the device path needs; with missing calls
// `auto` must take the host path and say why. Every test skips, saying why, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "ridge_test_data.hpp"  // read_columns
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

// Relative Frobenius distance of two `FID IID values...` tables (NA rows must agree as NA).
double table_distance(const std::string& a, const std::string& b) {
  const auto x = read_columns(a), y = read_columns(b);
  EXPECT_EQ(x.size(), y.size()) << a << " vs " << b;
  double num = 0, den = 0;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    EXPECT_EQ(x[i].size(), y[i].size()) << a << " row " << i;
    for (size_t k = 0; k < std::min(x[i].size(), y[i].size()); ++k)
      num += std::pow(x[i][k] - y[i][k], 2), den += y[i][k] * y[i][k];
  }
  return den > 0 ? std::sqrt(num / den) : INFINITY;
}

struct complete_data {
  std::string dir, train, test, pheno, covar;
};

// 900 samples × 2,500 variants (missing calls at `missing`); every fourth sample is TEST.
complete_data make_data(const std::string& name, double missing) {
  complete_data d;
  d.dir = work().path(name);
  std::filesystem::create_directories(d.dir);
  const std::string all = d.dir + "/all";
  EXPECT_EQ(panoramix("simulate --samples 900 --variants 2500 --seed 11 --missing " + std::to_string(missing) +
                      " --out " + all),
            0);
  std::ifstream fam(all + ".fam");
  std::vector<std::pair<std::string, std::string>> ids;
  for (std::string f, i, rest; fam >> f >> i && std::getline(fam, rest);) ids.emplace_back(f, i);
  std::ofstream tk(d.dir + "/train.keep"), sk(d.dir + "/test.keep");
  for (size_t k = 0; k < ids.size(); ++k) (k % 4 ? tk : sk) << ids[k].first << " " << ids[k].second << "\n";
  tk.close(), sk.close();
  std::mt19937_64 rng(5);
  std::normal_distribution<double> z;
  std::vector<size_t> order(ids.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), rng);
  d.pheno = d.dir + "/y.txt", d.covar = d.dir + "/c.txt";
  std::ofstream ph(d.pheno), cv(d.covar);
  ph << "FID IID a b c\n";
  for (size_t k : order)
    ph << ids[k].first << " " << ids[k].second << " " << (k % 23 == 1 ? std::string("NA") : std::to_string(z(rng)))
       << " " << 5 + z(rng) << " " << (k % 37 == 2 ? std::string("-9") : std::to_string(z(rng))) << "\n";
  std::shuffle(order.begin(), order.end(), rng);
  cv << "FID IID age dose\n";
  for (size_t k : order)
    cv << ids[k].first << " " << ids[k].second << " " << 40 + 9 * z(rng) << " "
       << (k == 4 ? std::string("NA") : std::to_string(z(rng))) << "\n";  // 4: a TEST sample
  ph.close(), cv.close();
  d.train = d.dir + "/train", d.test = d.dir + "/test";
  EXPECT_EQ(panoramix("make-bed --bfile " + all + " --keep " + d.dir + "/train.keep --out " + d.train), 0);
  EXPECT_EQ(panoramix("make-bed --bfile " + all + " --keep " + d.dir + "/test.keep --out " + d.test), 0);
  return d;
}

const complete_data& data() {
  static const complete_data d = make_data("resident", 0);
  return d;
}

TEST(CudaKrrResident, DevicePathEqualsHostFp64) {
  PMX_REQUIRE_GPU();
  const complete_data& d = data();
  const std::string base = "krr --bfile " + d.train + " --pheno " + d.pheno + " --all-pheno --covar " + d.covar +
                           " --gamma 1e-4 --alpha 0.3 --predict " + d.test + " --threads 2 ";
  const std::string ref = d.dir + "/cpu64", dev = d.dir + "/dev", host = d.dir + "/host";
  ASSERT_EQ(panoramix(base + "--device cpu --precision fp64 --out " + ref), 0) << read_text(ref + ".log");
  for (const std::string precision : {"fp32", "adaptive"}) {
    const std::string flags = "--device cuda --precision " + precision + " --tile 128 --accuracy 1e-12 ";
    ASSERT_EQ(panoramix(base + flags + "--kernel-on device --out " + dev), 0) << read_text(dev + ".log");
    EXPECT_NE(read_text(dev + ".log").find("Build on the device"), std::string::npos) << read_text(dev + ".log");
    ASSERT_EQ(panoramix(base + flags + "--kernel-on host --out " + host), 0) << read_text(host + ".log");
    EXPECT_EQ(read_text(host + ".log").find("Build on the device"), std::string::npos);
    // Both refine to a backward error of 1e-12; κ(K + 0.3 I) is below 1e3 here.
    EXPECT_LE(table_distance(dev + ".weights", ref + ".weights"), 1e-9) << precision;
    EXPECT_LE(table_distance(dev + ".pred", ref + ".pred"), 1e-9) << precision;
    EXPECT_LE(table_distance(host + ".pred", ref + ".pred"), 1e-9) << precision;
  }
}

TEST(CudaKrrResident, MissingCallsTakeTheHostPathAndSayWhy) {
  PMX_REQUIRE_GPU();
  const complete_data d = make_data("resident_missing", 0.02);
  const std::string out = d.dir + "/auto_missing";
  ASSERT_EQ(
      panoramix("krr --bfile " + d.train + " --pheno " + d.pheno + " --all-pheno --gamma 1e-4 --alpha 0.7 --predict " +
                d.test + " --device cuda --precision fp32 --out " + out),
      0)
      << read_text(out + ".log");
  EXPECT_NE(read_text(out + ".log").find("Kernel matrix on the host: the training genotypes have"), std::string::npos)
      << read_text(out + ".log");
  const std::string forced = d.dir + "/forced_missing";
  EXPECT_NE(panoramix("krr --bfile " + d.train + " --pheno " + d.pheno +
                          " --all-pheno --gamma 1e-4 --alpha 0.7 --device cuda "
                          "--precision fp32 --kernel-on device --out " +
                          forced,
                      forced + ".stderr"),
            0);
  EXPECT_NE(read_text(forced + ".stderr").find("missing calls"), std::string::npos) << read_text(forced + ".stderr");
  EXPECT_FALSE(std::filesystem::exists(forced + ".weights"));
}

}  // namespace
}  // namespace pmx
