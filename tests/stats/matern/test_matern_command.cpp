// panoramix matern end to end: distances from a file and from genotypes against Arb (the genotype
// distances recomputed here from the decoded dosages), and the named errors of bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "arb_matern.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Rows of PREFIX.matern: the header's columns and the numbers.
std::vector<std::vector<double>> read_matern(const std::string& path, std::string& header) {
  std::ifstream in(path);
  std::getline(in, header);
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::vector<double> r;
    for (double v; s >> v;) r.push_back(v);
    rows.push_back(r);
  }
  return rows;
}

TEST(MaternCommand, DistanceFileAgainstArb) {
  temp_dir d;
  const double hs[] = {0.0, 1e-4, 0.003, 0.25, 1.0, 3.7, 12.0};
  std::string text = "# distances\n";
  for (double h : hs) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g\n", h);
    text += b;
  }
  write_text(d.path("d.txt"), text);
  const double sigma2 = 2.0, rho = 0.7, nu = 1.3;
  ASSERT_EQ(panoramix("matern --distances " + d.path("d.txt") + " --nu 1.3 --rho 0.7 --sigma2 2 --derivatives --threads 2 --out " +
                          d.path("m"),
                      d.path("run.txt")),
            0)
      << read_text(d.path("run.txt"));
  std::string header;
  const auto rows = read_matern(d.path("m.matern"), header);
  EXPECT_EQ(header, "H\tC\tDSIGMA2\tDRHO\tDNU\tD2NU");
  ASSERT_EQ(rows.size(), std::size(hs));
  EXPECT_EQ(rows[0][1], sigma2);
  for (size_t i = 1; i < rows.size(); ++i) {
    const arb_matern_value r = arb_matern(hs[i], nu, rho);
    EXPECT_EQ(rows[i][0], hs[i]);
    EXPECT_NEAR(rows[i][1], sigma2 * r.C, 1e-14 * sigma2 * r.C) << hs[i];
    EXPECT_NEAR(rows[i][2], r.C, 1e-14 * r.C) << hs[i];
    EXPECT_NEAR(rows[i][3], sigma2 * r.drho, 1e-14 * std::fabs(sigma2 * r.drho)) << hs[i];
    EXPECT_NEAR(rows[i][4], sigma2 * r.dnu, 1e-10 * std::fabs(sigma2 * r.dnu)) << hs[i];
    EXPECT_NEAR(rows[i][5], sigma2 * r.d2nu, 1e-8 * std::fabs(sigma2 * r.d2nu)) << hs[i];
  }
  EXPECT_TRUE(std::filesystem::exists(d.path("m.log")));
  // The Bessel route, C only.
  ASSERT_EQ(panoramix("matern --distances " + d.path("d.txt") + " --nu 1.3 --rho 0.7 --sigma2 2 --method bessel --out " +
                      d.path("b")),
            0);
  const auto brows = read_matern(d.path("b.matern"), header);
  EXPECT_EQ(header, "H\tC");
  for (size_t i = 1; i < brows.size(); ++i) {
    const double want = sigma2 * arb_matern(hs[i], nu, rho).C;
    EXPECT_NEAR(brows[i][1], want, 1e-13 * want) << hs[i];
  }
  // The default (--method auto) for C alone on the CPU is the trapezoid route, and says so in the
  // log; --method trapezoid gives the same values.
  for (const char* how : {"--device cpu", "--device cpu --method trapezoid"}) {
    ASSERT_EQ(panoramix("matern --distances " + d.path("d.txt") + " --nu 1.3 --rho 0.7 --sigma2 2 " + how + " --out " +
                        d.path("a")),
              0);
    const auto arows = read_matern(d.path("a.matern"), header);
    ASSERT_EQ(arows.size(), brows.size());
    for (size_t i = 1; i < arows.size(); ++i) {
      const double want = sigma2 * arb_matern(hs[i], nu, rho).C;
      EXPECT_NEAR(arows[i][1], want, 1e-14 * want) << hs[i];
    }
    const bool by_auto = std::string(how).find("--method") == std::string::npos;
    EXPECT_NE(read_text(d.path("a.log")).find(by_auto ? "Method: trapezoid (--method auto)" : "Method: trapezoid"),
              std::string::npos);
  }
}

// Each bad input exits non-zero, names the problem (file and line for distances) and leaves no
// output behind.
TEST(MaternCommand, BadInputIsNamedAndNothingIsWritten) {
  temp_dir d;
  write_text(d.path("good.txt"), "0.5\n1\n");
  write_text(d.path("neg.txt"), "0.5\n1\n-2\n");
  write_text(d.path("nan.txt"), "0.5\nnan\n");
  write_text(d.path("word.txt"), "0.5\nabc\n");
  struct bad {
    std::string args, message;
  } cases[] = {
      {"--distances " + d.path("good.txt") + " --nu 0", "--nu must be"},
      {"--distances " + d.path("good.txt") + " --nu -1", "--nu must be"},
      {"--distances " + d.path("good.txt") + " --rho 0", "--rho must be"},
      {"--distances " + d.path("good.txt") + " --rho nan", "--rho"},
      {"--distances " + d.path("good.txt") + " --sigma2 -1", "--sigma2 must be"},
      {"--distances " + d.path("neg.txt"), "neg.txt:3: distance must be >= 0"},
      {"--distances " + d.path("nan.txt"), "nan.txt:2: distance 'nan' is not finite"},
      {"--distances " + d.path("word.txt"), "word.txt:2: distance 'abc' is not a number"},
      {"--distances " + d.path("good.txt") + " --nu 200 --derivatives", "above the quadrature's range"},
      {"--distances " + d.path("good.txt") + " --nu 200 --method quadrature", "above the quadrature's range"},
      {"--nu 1", "exactly one of --distances"},
  };
  for (const bad& b : cases) {
    const std::string out = d.path("bad");
    EXPECT_NE(panoramix("matern " + b.args + " --out " + out, d.path("err.txt")), 0) << b.args;
    EXPECT_NE(read_text(d.path("err.txt")).find(b.message), std::string::npos)
        << b.args << ": " << read_text(d.path("err.txt"));
    EXPECT_FALSE(std::filesystem::exists(out + ".matern")) << b.args;
  }
}

// Genotype distances: the dosages decoded here, missing calls imputed with 2p (p from every
// sample's calls; 0.5 where a variant has none), h_ij = ‖x̃_i − x̃_j‖, C by Arb.
TEST(MaternCommand, GenotypeDistancesAgainstDecodedDosages) {
  temp_dir d;
  const int64_t n = 23, k = 301;
  const auto g = random_genotypes(n, k, 0.05, 17);
  std::vector<sample_record> s(n);
  for (int64_t i = 0; i < n; ++i) s[i] = {"f", "s" + std::to_string(i), "0", "0", 1, "-9"};
  std::vector<variant_record> v(k);
  for (int64_t l = 0; l < k; ++l) v[l] = {"1", "v" + std::to_string(l), 0, 100 * l + 1, "A", "C"};
  write_plink_fileset(d.path("g"), s, v, g.view());
  std::vector<double> p(k), D(n * n, 0.0);
  double scale = 0;
  for (int64_t l = 0; l < k; ++l) {
    double sum = 0, called = 0;
    for (int64_t i = 0; i < n; ++i)
      if (dosage(g, i, l) >= 0) sum += dosage(g, i, l), called += 1;
    p[l] = called > 0 ? sum / (2 * called) : 0.5;
    scale += 2 * p[l] * (1 - p[l]);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double xi = dosage(g, i, l) >= 0 ? dosage(g, i, l) : 2 * p[l];
        const double xj = dosage(g, j, l) >= 0 ? dosage(g, j, l) : 2 * p[l];
        D[i * n + j] += (xi - xj) * (xi - xj);
      }
  }
  const double nu = 0.8, rho = 9.0;
  for (bool standardize : {false, true}) {
    const std::string out = d.path(standardize ? "s" : "r");
    ASSERT_EQ(panoramix("matern --bfile " + d.path("g") + " --nu 0.8 --rho 9 --derivatives --threads 2 " +
                            (standardize ? "--standardize " : "") + "--out " + out,
                        d.path("run.txt")),
              0)
        << read_text(d.path("run.txt"));
    const std::vector<double> C = read_doubles(out + ".matern.bin"), dnu = read_doubles(out + ".matern.dnu.bin");
    ASSERT_EQ(C.size(), size_t(n * n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (i == j) {
          EXPECT_EQ(C[i * n + j], 1.0);
          continue;
        }
        const double h = std::sqrt(D[i * n + j] / (standardize ? scale : 1.0));
        const arb_matern_value r = arb_matern(h, nu, rho);
        // The distance itself carries the rounding of F_ii + F_jj − 2F_ij (≈ 1e-16 · F_ii / D):
        // C moves by |dC/dh| times that; 1e-12 covers it here.
        EXPECT_NEAR(C[i * n + j], r.C, 1e-12 * r.C) << i << " " << j;
        EXPECT_NEAR(dnu[i * n + j], r.dnu, 1e-9 * std::fabs(r.dnu)) << i << " " << j;
      }
    EXPECT_NE(read_text(out + ".matern.id").find("f\ts22"), std::string::npos);
  }
}

}  // namespace
}  // namespace pmx::test
