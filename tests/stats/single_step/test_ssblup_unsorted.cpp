// The single-step models end to end on files as users ship them, against a dense textbook solve
// written here. The data (made here, from the generator's own numbering) are what broke the
// models' agreement once: the pedigree file in random order (children before parents), unknown
// sires coded `0` and unknown dams `NA` (and a few `.`), unknown parents in every generation, the
// genotyped animals listed in the .fam in an order unrelated to the pedigree, records in yet
// another order with a class effect. The oracle: tabular A (generator order), A⁻¹ and H⁻¹ =
// A⁻¹ + [0 0; 0 G̃⁻¹ − A_gg⁻¹] by explicit dense inverses, G̃ = (1−w)G + wA_gg, G = ZZᵀ/(2Σpq) with
// p from the genotyped animals, and the mixed model equations solved densely (LAPACK Cholesky).
// pblup, ssgblup, sssnpblup and ssgtablup (the command line, stopped on --solution-tol) must equal
// it to 1e-8 relative, and the genomic models each other to 1e-9.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

struct unsorted_data {
  int64_t n = 0;                 // animals, numbered in generation order (parents first)
  std::vector<int> generation;
  std::vector<int64_t> sire, dam;  // -1 unknown
  std::vector<int64_t> genotyped;  // animals in .fam order
  std::vector<std::vector<int>> dosage;  // per genotyped animal (.fam order), per variant
  int64_t variants = 0;
  std::vector<int64_t> recorded;  // animals with a record, in file order
  std::vector<int> herd;          // per record
  std::vector<double> y;          // per record
  double sigma2_g = 1.5, sigma2_e = 2.5, w = 0.2;
  std::string id(int64_t a) const { return "A" + std::to_string(a * 7919 % 100003); }  // not sorted by age
};

// 1,500 animals in 7 generations; parents from the two previous generations; ~5 % unknown sires
// and ~10 % unknown dams in every generation after the founders; 300 genotyped animals of
// generations 3+; records for ~70 % of the animals of generations 1+, 8 herds.
unsorted_data make_data(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  unsorted_data d;
  const int generations = 7;
  d.n = 1500;
  const int64_t per = d.n / generations + 1;
  for (int64_t a = 0; a < d.n; ++a) d.generation.push_back(static_cast<int>(a / per));
  std::vector<int> male(d.n);
  for (auto& m : male) m = u(rng) < 0.5;
  d.sire.assign(d.n, -1);
  d.dam.assign(d.n, -1);
  for (int64_t a = 0; a < d.n; ++a) {
    const int g = d.generation[a];
    if (g == 0) continue;
    std::vector<int64_t> sires, dams;
    for (int64_t b = 0; b < a; ++b)
      if (d.generation[b] == g - 1 || d.generation[b] == g - 2) (male[b] ? sires : dams).push_back(b);
    if (sires.size() > 30) sires.resize(30);  // few sires, many offspring each
    if (u(rng) >= 0.05) d.sire[a] = sires[rng() % sires.size()];
    if (u(rng) >= 0.10) d.dam[a] = dams[rng() % dams.size()];
  }
  for (int64_t a = 0; a < d.n; ++a)
    if (d.generation[a] >= 3) d.genotyped.push_back(a);
  std::shuffle(d.genotyped.begin(), d.genotyped.end(), rng);
  d.genotyped.resize(300);
  d.variants = 1500;
  std::vector<double> p(d.variants);
  for (auto& x : p) x = 0.05 + 0.9 * u(rng);
  d.dosage.assign(d.genotyped.size(), std::vector<int>(d.variants));
  for (auto& row : d.dosage)
    for (int64_t j = 0; j < d.variants; ++j) row[j] = (u(rng) < p[j]) + (u(rng) < p[j]);
  std::normal_distribution<double> z(0, 1);
  for (int64_t a = 0; a < d.n; ++a)
    if (d.generation[a] >= 1 && u(rng) < 0.7) d.recorded.push_back(a);
  std::shuffle(d.recorded.begin(), d.recorded.end(), rng);
  std::vector<double> bv(d.n);
  for (auto& b : bv) b = std::sqrt(d.sigma2_g) * z(rng);
  for (int64_t a : d.recorded) {
    d.herd.push_back(1 + static_cast<int>(rng() % 8));
    d.y.push_back(10 + 0.5 * d.herd.back() + bv[a] + std::sqrt(d.sigma2_e) * z(rng));
  }
  return d;
}

void write_files(const unsorted_data& d, const std::string& prefix) {
  std::mt19937_64 rng(99);
  std::vector<int64_t> order(d.n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::ofstream ped(prefix + ".ped");
  for (int64_t k = 0; k < d.n; ++k) {
    const int64_t a = order[k];
    const char* dam_unknown = k % 17 == 0 ? "." : "NA";
    ped << d.id(a) << ' ' << (d.sire[a] < 0 ? "0" : d.id(d.sire[a])) << ' '
        << (d.dam[a] < 0 ? dam_unknown : d.id(d.dam[a])) << '\n';
  }
  std::ofstream fam(prefix + ".fam"), bim(prefix + ".bim");
  for (int64_t a : d.genotyped) fam << d.id(a) << ' ' << d.id(a) << " 0 0 0 -9\n";
  for (int64_t j = 0; j < d.variants; ++j) bim << "1 snp" << j << " 0 " << (j + 1) * 100 << " A C\n";
  std::ofstream bed(prefix + ".bed", std::ios::binary);
  bed.put(0x6c).put(0x1b).put(0x01);
  const int64_t ng = static_cast<int64_t>(d.genotyped.size());
  for (int64_t j = 0; j < d.variants; ++j)
    for (int64_t b = 0; b < (ng + 3) / 4; ++b) {
      unsigned char byte = 0;
      for (int64_t i = 4 * b; i < std::min(ng, 4 * b + 4); ++i) {
        const int code = d.dosage[i][j] == 2 ? 0 : d.dosage[i][j] == 1 ? 2 : 3;  // A1 = allele counted
        byte |= static_cast<unsigned char>(code << (2 * (i - 4 * b)));
      }
      bed.put(static_cast<char>(byte));
    }
  std::ofstream ph(prefix + ".pheno");
  ph << "ID herd y\n";
  for (size_t r = 0; r < d.recorded.size(); ++r) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", d.y[r]);
    ph << d.id(d.recorded[r]) << " H" << d.herd[r] << ' ' << buf << '\n';
  }
  std::ofstream(prefix + ".vc") << "genetic\n" << d.sigma2_g << "\nresidual\n" << d.sigma2_e << "\n";
}

// Inverse of a symmetric positive definite matrix (row-major m × m) by LAPACK Cholesky.
std::vector<double> spd_inverse(std::vector<double> M, int64_t m) {
  std::vector<double> I(m * m, 0.0);
  for (int64_t i = 0; i < m; ++i) I[i * m + i] = 1;
  cholesky_solve(executor(backend::cpu), m, M.data(), m, m, I.data(), m);
  return I;
}

// EBVs (generator order) of the dense textbook solve; `genomic` false gives pblup (H = A).
std::vector<double> oracle_ebv(const unsorted_data& d, bool genomic) {
  const int64_t n = d.n;
  std::vector<double> A(n * n, 0.0);  // tabular method, parents first
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = d.sire[i], m = d.dam[i];
    for (int64_t j = 0; j < i; ++j) {
      const double v = 0.5 * ((s >= 0 ? A[j * n + s] : 0) + (m >= 0 ? A[j * n + m] : 0));
      A[i * n + j] = A[j * n + i] = v;
    }
    A[i * n + i] = 1 + (s >= 0 && m >= 0 ? 0.5 * A[s * n + m] : 0);
  }
  std::vector<double> Hinv = spd_inverse(A, n);
  if (genomic) {
    const int64_t ng = static_cast<int64_t>(d.genotyped.size()), k = d.variants;
    std::vector<double> p(k, 0.0);
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t i = 0; i < ng; ++i) p[j] += d.dosage[i][j];
      p[j] /= 2.0 * ng;
    }
    double c = 0;
    for (double x : p) c += 2 * x * (1 - x);
    std::vector<double> Gt(ng * ng), Agg(ng * ng);
    for (int64_t i = 0; i < ng; ++i)
      for (int64_t l = 0; l < ng; ++l) {
        double s = 0;
        for (int64_t j = 0; j < k; ++j) s += (d.dosage[i][j] - 2 * p[j]) * (d.dosage[l][j] - 2 * p[j]);
        Agg[i * ng + l] = A[d.genotyped[i] * n + d.genotyped[l]];
        Gt[i * ng + l] = (1 - d.w) * s / c + d.w * Agg[i * ng + l];
      }
    const std::vector<double> Gti = spd_inverse(Gt, ng), Aggi = spd_inverse(Agg, ng);
    for (int64_t i = 0; i < ng; ++i)
      for (int64_t l = 0; l < ng; ++l) Hinv[d.genotyped[i] * n + d.genotyped[l]] += Gti[i * ng + l] - Aggi[i * ng + l];
  }
  // Unknowns: intercept, herds 2..8 (herd 1 the reference), animals. C and rhs scaled by σ²_e.
  const int64_t f = 8, N = f + n;
  std::vector<double> C(N * N, 0.0), b(N, 0.0);
  const double lambda = d.sigma2_e / d.sigma2_g;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) C[(f + i) * N + f + j] = lambda * Hinv[i * n + j];
  for (size_t r = 0; r < d.recorded.size(); ++r) {
    std::vector<int64_t> cols{0, f + d.recorded[r]};
    if (d.herd[r] > 1) cols.push_back(d.herd[r] - 1);
    for (int64_t a : cols) {
      b[a] += d.y[r];
      for (int64_t c2 : cols) C[a * N + c2] += 1;
    }
  }
  cholesky_solve(executor(backend::cpu), N, C.data(), N, 1, b.data(), N);
  return {b.begin() + f, b.end()};
}

// Column 2 of PREFIX.ebv, keyed by ID.
std::map<std::string, double> read_ebv(const std::string& path) {
  std::map<std::string, double> e;
  std::ifstream in(path);
  std::string line, id, v;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    ss >> id >> v;
    e[id] = std::stod(v);
  }
  return e;
}

// max |a − b| / max |b| over the generator's animals.
double rel_diff(const unsorted_data& d, const std::map<std::string, double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < d.n; ++i) {
    const auto it = a.find(d.id(i));
    if (it == a.end()) {
      ADD_FAILURE() << d.id(i) << " missing from the output";
      return 1;
    }
    num = std::max(num, std::abs(it->second - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / den;
}

class SsblupUnsorted : public ::testing::TestWithParam<uint64_t> {};

TEST_P(SsblupUnsorted, EveryModelEqualsTheDenseTextbookSolve) {
  const unsorted_data d = make_data(GetParam());
  const std::string dir = test::work().path("unsorted" + std::to_string(GetParam()));
  std::filesystem::create_directories(dir);
  const std::string prefix = dir + "/data";
  write_files(d, prefix);
  const std::vector<double> pblup = oracle_ebv(d, false), ssgblup = oracle_ebv(d, true);
  std::map<std::string, std::map<std::string, double>> ebv;
  for (const std::string model : {"pblup", "ssgblup", "sssnpblup", "ssgtablup"}) {
    const std::string out = dir + "/" + model;
    const std::string args = "ssblup --ped " + prefix + ".ped --bfile " + prefix + " --pheno " + prefix +
                             ".pheno --traits y --class herd --vc " + prefix + ".vc --model " + model +
                             " --w 0.2 --solution-tol 1e-11 --threads 2 --out " + out;
    ASSERT_EQ(test::panoramix(args, out + ".out"), 0) << test::read_text(out + ".out");
    ebv[model] = read_ebv(out + ".ebv");
    const double e = rel_diff(d, ebv[model], model == "pblup" ? pblup : ssgblup);
    EXPECT_LE(e, 1e-8) << model << " vs the dense solve";
    std::printf("%s: EBV rel. diff vs dense textbook solve %.2e\n", model.c_str(), e);
  }
  // The genomic models against each other (ssgblup's EBVs as the reference vector).
  std::vector<double> ref(d.n);
  for (int64_t i = 0; i < d.n; ++i) ref[i] = ebv["ssgblup"][d.id(i)];
  for (const std::string model : {"sssnpblup", "ssgtablup"}) {
    const double e = rel_diff(d, ebv[model], ref);
    EXPECT_LE(e, 1e-9) << model << " vs ssgblup";
    std::printf("%s vs ssgblup: %.2e\n", model.c_str(), e);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SsblupUnsorted, ::testing::Values(uint64_t{1}, uint64_t{2}));

// The default stopping rule (BLUPF90's ‖r‖²/‖b‖² < 1e-12) leaves errors far above 1e-8 on these
// equations; the log says so, and its estimate is of the size of the true error.
TEST(SsblupUnsorted, DefaultToleranceLogsTheEstimatedError) {
  const unsorted_data d = make_data(1);
  const std::string dir = test::work().path("unsorted_default");
  std::filesystem::create_directories(dir);
  const std::string prefix = dir + "/data", out = dir + "/ssgblup";
  write_files(d, prefix);
  ASSERT_EQ(test::panoramix("ssblup --ped " + prefix + ".ped --bfile " + prefix + " --pheno " + prefix +
                                ".pheno --traits y --class herd --vc " + prefix + ".vc --model ssgblup --out " + out,
                            out + ".out"),
            0);
  const double e = rel_diff(d, read_ebv(out + ".ebv"), oracle_ebv(d, true));
  const std::string log = test::read_text(out + ".log");
  const size_t at = log.find("Estimated relative error of the solutions: ");
  ASSERT_NE(at, std::string::npos) << log;
  const double estimate = std::stod(log.substr(at + 43));
  std::printf("default --tol: true EBV error %.2e, estimated %.2e\n", e, estimate);
  EXPECT_GT(e, 1e-8);
  EXPECT_GT(estimate, e / 10) << "the estimate must not hide the error";
  EXPECT_LT(estimate, e * 100) << "nor exaggerate it wildly";
}

}  // namespace
}  // namespace pmx
