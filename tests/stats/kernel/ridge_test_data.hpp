// The data and peers of the krr and rr command tests (test_krr_command.cpp, test_rr_command.cpp):
// a simulated training/TEST split with awkward phenotype and covariate files, Debian's python3 with
// scikit-learn, and a reader of the commands' `FID IID value...` tables.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace pmx::test {

// Debian's interpreter (python3-sklearn, python3-numpy), not another python3 first on PATH.
inline const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

// A shell line whose own redirections stand (run() sends the line's output to /dev/null).
inline int shell(const std::string& line) { return run("{ " + line + "; }"); }

inline bool have_sklearn() { return run(python + " -c 'import sklearn, numpy'") == 0; }

// Simulated training and TEST filesets (split with PLINK keeping the allele order), a phenotype
// file with two traits in shuffled order (NA, -9, a sample not genotyped) and a covariate file in
// another order with one missing value (a TEST sample's: its predictions are NA).
struct simulated {
  std::string dir, train, test, pheno, covar;
};

inline const simulated& simulated_data() {
  static simulated s = [] {
    simulated d;
    d.dir = work().path("sim");
    std::filesystem::create_directories(d.dir);
    const std::string all = d.dir + "/all";
    EXPECT_EQ(panoramix("simulate --samples 360 --variants 1500 --missing 0.03 --seed 4 --out " + all), 0);
    std::ifstream fam(all + ".fam");
    std::vector<std::pair<std::string, std::string>> ids;
    for (std::string f, i, rest; fam >> f >> i && std::getline(fam, rest);) ids.emplace_back(f, i);
    std::mt19937_64 rng(9);
    std::normal_distribution<double> z;
    std::ofstream tk(d.dir + "/train.keep"), sk(d.dir + "/test.keep");
    for (size_t k = 0; k < ids.size(); ++k) (k % 4 ? tk : sk) << ids[k].first << " " << ids[k].second << "\n";
    tk.close(), sk.close();
    std::vector<size_t> order(ids.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    d.pheno = d.dir + "/y.txt";
    std::ofstream ph(d.pheno);
    ph << "FID IID height yield\n";
    for (size_t k : order) {
      const double a = z(rng), b = 10 + 2 * z(rng);
      ph << ids[k].first << " " << ids[k].second << " " << (k % 29 == 3 ? std::string("NA") : std::to_string(a)) << " "
         << (k % 31 == 5 ? std::string("-9") : std::to_string(b)) << "\n";
    }
    ph << "ghost ghost 1 2\n";
    ph.close();
    std::shuffle(order.begin(), order.end(), rng);
    d.covar = d.dir + "/c.txt";
    std::ofstream cv(d.covar);
    cv << "FID IID age dose\n";
    for (size_t k : order)
      cv << ids[k].first << " " << ids[k].second << " " << 30 + 10 * z(rng) << " "
         << (k == 8 || k == 13 ? std::string("NA") : std::to_string(z(rng))) << "\n";  // 8: TEST, 13: training
    cv.close();
    d.train = d.dir + "/train", d.test = d.dir + "/test";
    EXPECT_EQ(run("plink1.9 --bfile " + all + " --keep-allele-order --keep " + d.dir + "/train.keep --make-bed --out " + d.train), 0);
    EXPECT_EQ(run("plink1.9 --bfile " + all + " --keep-allele-order --keep " + d.dir + "/test.keep --make-bed --out " + d.test), 0);
    return d;
  }();
  return s;
}

/// Rows of a `FID IID value...` table after its header, without the two IDs (NA reads as a stop).
inline std::vector<std::vector<double>> read_columns(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string f, i;
    s >> f >> i;
    rows.emplace_back();
    for (double v; s >> v;) rows.back().push_back(v);
  }
  return rows;
}

/// The mice of ../shared/data split for the scikit-learn comparisons: DIR/train and DIR/test
/// (every fifth sample, PLINK keeping the allele order) and DIR/y.txt (`FID IID bmi length` from
/// the CSV). Returns DIR; a failed step is a test failure.
inline std::string mice_split(const std::string& bed, const std::string& csv) {
  const std::string dir = work().path("mice"), mice = bed.substr(0, bed.size() - 4);
  std::filesystem::create_directories(dir);
  EXPECT_EQ(shell(python + " -c \"import csv; r=list(csv.reader(open('" + csv + "'))); h=r[0]; "
                  "a,b=h.index('Obesity.BMI'),h.index('Obesity.BodyLength'); "
                  "f=open('" + dir + "/y.txt','w'); f.write('FID IID bmi length\\n'); "
                  "[f.write('%s %s %s %s\\n'%(x[0],x[0],x[a],x[b])) for x in r[1:]]\""),
            0);
  EXPECT_EQ(shell("awk 'NR%5==0{print $1, $2}' " + mice + ".fam > " + dir + "/test.keep && awk 'NR%5{print $1, $2}' " +
                  mice + ".fam > " + dir + "/train.keep"),
            0);
  for (const char* part : {"train", "test"})
    EXPECT_EQ(run("plink1.9 --bfile " + mice + " --keep-allele-order --keep " + dir + "/" + part + ".keep --make-bed --out " +
                  dir + "/" + part),
              0);
  return dir;
}

}  // namespace pmx::test

#define PMX_REQUIRE_PEERS()                                                                 \
  if (!have_sklearn()) GTEST_SKIP() << "python3-sklearn/numpy absent: no scikit-learn oracle"; \
  if (!have_program("plink1.9")) GTEST_SKIP() << "plink1.9 absent: no TEST split"
