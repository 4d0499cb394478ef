// The Matérn log-likelihood at given parameters against scikit-learn's GaussianProcessRegressor
// (matern_sklearn_oracle.py, /usr/bin/python3), and the named error of a covariance that is not
// positive definite. The ML/REML estimates of fit_matern and `matern-fit` against a brute-force
// optimisation of the same likelihood written with scipy (matern_fit_oracle.py), on simulated data
// and on 300 mice of bglr_mice; the command's outputs and its named errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <sstream>

#include "panoramix/error.hpp"
#include "panoramix/matern.hpp"
#include "panoramix/matern_fit.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

// Debian's python3 imports the oracles' modules (python3-sklearn pulls numpy and scipy); the GPU
// machine's /usr/bin/python3 has none of them.
bool python_has(const std::string& modules) {
  return have_program("/usr/bin/python3") && run("/usr/bin/python3 -c 'import " + modules + "'") == 0;
}

TEST(MaternFit, LogLikelihoodEqualsScikitLearn) {
  if (!python_has("numpy, scipy, sklearn"))
    GTEST_SKIP() << "/usr/bin/python3 with numpy, scipy and scikit-learn (the oracles) is absent";
  temp_dir d;
  const int64_t n = 60;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 4);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> px(n), py(n), y(n), h(n * n);
  {
    std::ofstream pts(d.path("pts.txt")), ys(d.path("y.txt"));
    pts.precision(17), ys.precision(17);
    for (int64_t i = 0; i < n; ++i) {
      px[i] = u(rng), py[i] = u(rng), y[i] = z(rng) + std::sin(px[i]);
      pts << px[i] << " " << py[i] << "\n";
      ys << y[i] << "\n";
    }
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) h[i * n + j] = std::hypot(px[i] - px[j], py[i] - py[j]);
  const struct { double s2, rho, nu, s2e; } cases[] = {{1.3, 0.8, 0.5, 0.4}, {0.7, 1.7, 1.5, 0.2}, {2.0, 0.5, 2.5, 1.0},
                                                      {1.0, 1.2, 0.73, 0.3}};
  for (const auto& c : cases) {
    char args[256];
    std::snprintf(args, sizeof args, " %.17g %.17g %.17g %.17g", c.s2, c.rho, c.nu, c.s2e);
    ASSERT_EQ(run("/usr/bin/python3 " + shq(std::string(PMX_SOURCE_DIR) + "/matern_sklearn_oracle.py") + " " +
                      d.path("pts.txt") + " " + d.path("y.txt") + args,
                  d.path("sk.txt")),
              0)
        << read_text(d.path("sk.txt"));
    const double want = std::stod(read_text(d.path("sk.txt")));
    const matern_likelihood L = matern_log_likelihood(executor(backend::cpu, 2), h.data(), n, y.data(), nullptr, 0,
                                                      {c.s2, c.rho, c.nu}, c.s2e);
    EXPECT_NEAR(L.ml, want, 1e-9 * std::fabs(want)) << c.nu;
  }
}

TEST(MaternFit, NotPositiveDefiniteIsNamed) {
  // Two samples at distance 0 and no residual variance: V is singular.
  const double h[4] = {0, 0, 0, 0}, y[2] = {1, 2};
  EXPECT_THROW(matern_log_likelihood(executor(backend::cpu, 1), h, 2, y, nullptr, 0, {1, 1, 0.5}, 0.0), numeric_error);
}

// ---- fit_matern and matern-fit against the brute-force oracle

constexpr double fit_rel = 1e-5;  // the brief's agreement of the estimates

std::string oracle_path(const char* script) { return shq(std::string(PMX_SOURCE_DIR) + "/" + script); }

// Points in [0, 4]², y = Xβ + g + ε with g ~ N(0, C(h)) drawn by a Cholesky factor of C (here,
// in plain loops), X = [1, x] with x ~ N(0, 1).
struct simulated_fit_data {
  int64_t n = 0;
  std::vector<double> h, y, X;  // X row-major n × 2
};

simulated_fit_data simulate_fit_data(int64_t n, uint64_t seed, const matern_params& prm, double s2e,
                                     const temp_dir& d) {
  simulated_fit_data s;
  s.n = n;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 4);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> px(n), py(n);
  for (int64_t i = 0; i < n; ++i) px[i] = u(rng), py[i] = u(rng);
  s.h.resize(n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) s.h[i * n + j] = std::hypot(px[i] - px[j], py[i] - py[j]);
  std::vector<double> L(n * n);
  matern_covariance(executor(backend::cpu, 2), prm, matern_method::quadrature, s.h.data(), n * n, {.C = L.data()});
  for (int64_t i = 0; i < n; ++i) L[i * n + i] += 1e-10;  // C itself may be near singular for large ν
  for (int64_t j = 0; j < n; ++j) {
    double dj = L[j * n + j];
    for (int64_t k = 0; k < j; ++k) dj -= L[j * n + k] * L[j * n + k];
    dj = std::sqrt(dj);
    L[j * n + j] = dj;
    for (int64_t i = j + 1; i < n; ++i) {
      double v = L[i * n + j];
      for (int64_t k = 0; k < j; ++k) v -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = v / dj;
    }
  }
  std::vector<double> w(n);
  for (double& v : w) v = z(rng);
  s.y.resize(n), s.X.resize(2 * n);
  std::ofstream pts(d.path("pts.txt")), ys(d.path("y.txt")), xs(d.path("X.txt"));
  pts.precision(17), ys.precision(17), xs.precision(17);
  for (int64_t i = 0; i < n; ++i) {
    double g = 0;
    for (int64_t k = 0; k <= i; ++k) g += L[i * n + k] * w[k];
    s.X[2 * i] = 1, s.X[2 * i + 1] = z(rng);
    s.y[i] = 2.0 + 0.5 * s.X[2 * i + 1] + g + std::sqrt(s2e) * z(rng);
    pts << px[i] << " " << py[i] << "\n";
    ys << s.y[i] << "\n";
    xs << s.X[2 * i] << " " << s.X[2 * i + 1] << "\n";
  }
  return s;
}

struct oracle_estimate {
  double sigma2 = 0, rho = 0, nu = 0, sigma2_e = 0, logL = 0;
};

oracle_estimate run_fit_oracle(const std::string& args, const temp_dir& d) {
  const std::string out = d.path("oracle.txt");
  const int rc = run("/usr/bin/python3 " + oracle_path("matern_fit_oracle.py") + " " + args, out);
  EXPECT_EQ(rc, 0) << read_text(out);
  oracle_estimate o;
  std::istringstream s(read_text(out));
  s >> o.sigma2 >> o.rho >> o.nu >> o.sigma2_e >> o.logL;
  return o;
}

void expect_estimate(double got, double want, const char* what) {
  EXPECT_NEAR(got, want, fit_rel * std::fabs(want)) << what;
}

void expect_same_fit(const matern_fit_result& r, const oracle_estimate& o) {
  expect_estimate(r.params.sigma2, o.sigma2, "sigma2");
  expect_estimate(r.params.rho, o.rho, "rho");
  expect_estimate(r.params.nu, o.nu, "nu");
  expect_estimate(r.sigma2_e, o.sigma2_e, "sigma2_e");
  // At two estimates within 1e-5 the likelihoods differ by O(1e-10) relative.
  EXPECT_NEAR(r.logL, o.logL, 1e-9 * std::fabs(o.logL));
  const double rel = std::max({std::fabs(r.params.sigma2 / o.sigma2 - 1), std::fabs(r.params.rho / o.rho - 1),
                               std::fabs(r.params.nu / o.nu - 1), std::fabs(r.sigma2_e / o.sigma2_e - 1)});
  std::printf("estimates vs oracle: largest relative difference %.2g, logL %.2g\n", rel, std::fabs(r.logL / o.logL - 1));
}

TEST(MaternFit, EstimatesEqualBruteForceOnSimulatedData) {
  if (!python_has("numpy, scipy"))
    GTEST_SKIP() << "/usr/bin/python3 with numpy and scipy (the oracle) is absent";
  temp_dir d;
  const simulated_fit_data s = simulate_fit_data(250, 11, {1.5, 0.8, 1.2}, 0.5, d);
  const executor exec(backend::cpu, 2);
  const std::string files = "--points " + d.path("pts.txt") + " --y " + d.path("y.txt") + " --X " + d.path("X.txt");
  {  // REML, ν estimated
    matern_fit_options opt;
    const matern_fit_result r = fit_matern(exec, s.h.data(), s.n, s.y.data(), s.X.data(), 2, opt);
    ASSERT_TRUE(r.converged);
    expect_same_fit(r, run_fit_oracle(files + " --reml", d));
    for (double se : r.se) EXPECT_TRUE(std::isfinite(se) && se > 0);
  }
  {  // ML, ν fixed
    matern_fit_options opt;
    opt.criterion = matern_criterion::ml;
    opt.fixed_nu = 1.5;
    const matern_fit_result r = fit_matern(exec, s.h.data(), s.n, s.y.data(), s.X.data(), 2, opt);
    ASSERT_TRUE(r.converged);
    EXPECT_EQ(r.params.nu, 1.5);
    EXPECT_TRUE(std::isnan(r.se[2]));
    expect_same_fit(r, run_fit_oracle(files + " --fix-nu 1.5", d));
  }
}

// ML without fixed effects is scikit-learn's zero-mean GP: its log_marginal_likelihood at the
// estimate equals ours, and (ν fixed, as scikit-learn keeps it) its gradient there vanishes.
TEST(MaternFit, MlWithoutCovariatesEqualsScikitLearn) {
  if (!python_has("numpy, scipy, sklearn"))
    GTEST_SKIP() << "/usr/bin/python3 with numpy, scipy and scikit-learn (the oracles) is absent";
  temp_dir d;
  const simulated_fit_data s = simulate_fit_data(200, 5, {1.0, 0.6, 1.5}, 0.3, d);
  const executor exec(backend::cpu, 2);
  for (const bool fixed : {true, false}) {
    matern_fit_options opt;
    opt.criterion = matern_criterion::ml;
    opt.tolerance = 1e-10;
    if (fixed) opt.fixed_nu = 1.5;
    const matern_fit_result r = fit_matern(exec, s.h.data(), s.n, s.y.data(), nullptr, 0, opt);
    ASSERT_TRUE(r.converged);
    char args[256];
    std::snprintf(args, sizeof args, " %.17g %.17g %.17g %.17g grad", r.params.sigma2, r.params.rho, r.params.nu,
                  r.sigma2_e);
    ASSERT_EQ(run("/usr/bin/python3 " + oracle_path("matern_sklearn_oracle.py") + " " + d.path("pts.txt") + " " +
                      d.path("y.txt") + args,
                  d.path("sk.txt")),
              0)
        << read_text(d.path("sk.txt"));
    std::istringstream in(read_text(d.path("sk.txt")));
    double value = 0, g[3] = {};
    in >> value >> g[0] >> g[1] >> g[2];
    EXPECT_NEAR(r.logL, value, 1e-9 * std::fabs(value)) << fixed;
    std::printf("nu %s: %d iterations; logL vs scikit-learn %.2g relative\n", fixed ? "fixed" : "free", r.iterations,
                std::fabs(r.logL / value - 1));
    // (With ν free scikit-learn differentiates its Matérn by forward differences of step 1e-10:
    // that gradient is too coarse to check.)
    if (fixed) {
      std::printf("scikit-learn's gradient at the estimate: %.2g %.2g %.2g\n", g[0], g[1], g[2]);
      for (double gk : g) EXPECT_LT(std::fabs(gk), 1e-6) << "scikit-learn's gradient at the estimate";
    }
  }
}

// Rows "name estimate se" of PREFIX.fit.
std::map<std::string, std::pair<double, double>> read_fit(const std::string& path) {
  std::map<std::string, std::pair<double, double>> rows;
  std::ifstream in(path);
  std::string line, name, est, se;
  std::getline(in, line);
  while (in >> name >> est >> se) rows[name] = {std::stod(est), se == "NA" ? NAN : std::stod(se)};
  return rows;
}

// 300 mice (the first with a BMI), distances in GRM units, REML with ν fixed at 2.5, against the
// oracle's own decoding of mice.bed. (With ν free the likelihood of these mice rises towards the
// Gaussian kernel, ν → ∞, for BMI, body length and body weight alike: a boundary the fit names.)
TEST(MaternFit, MiceEqualBruteForce) {
  if (!python_has("numpy, scipy"))
    GTEST_SKIP() << "/usr/bin/python3 with numpy and scipy (the oracle) is absent";
  PMX_REQUIRE_DATA(bed, "bglr_mice/mice.bed");
  PMX_REQUIRE_DATA(csv, "bglr_mice/mice_pheno.csv");
  const std::string prefix = bed.substr(0, bed.size() - 4);
  temp_dir d;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  auto split = [](const std::string& s) {
    std::vector<std::string> f;
    std::stringstream ss(s);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x.size() >= 2 && x.front() == '"' ? x.substr(1, x.size() - 2) : x);
    return f;
  };
  head = split(line);
  const size_t col = std::find(head.begin(), head.end(), "Obesity.BMI") - head.begin();
  ASSERT_LT(col, head.size());
  // mice.fam lists the samples in mice_pheno.csv's order (FID = IID = SUBJECT.NAME).
  std::ofstream ph(d.path("y.txt")), keep(d.path("keep.txt")), idx(d.path("idx.txt")), ys(d.path("yo.txt"));
  ph << "FID IID BMI\n";
  int64_t row = 0, taken = 0;
  for (; taken < 300 && std::getline(in, line); ++row) {
    const auto f = split(line);
    if (f[col] == "NA") continue;
    ph << f[0] << " " << f[0] << " " << f[col] << "\n";
    keep << f[0] << " " << f[0] << "\n";
    idx << row << "\n";
    ys << f[col] << "\n";
    ++taken;
  }
  ph.close(), keep.close(), idx.close(), ys.close();
  {
    std::ifstream fam(prefix + ".fam");
    std::ifstream again(csv);
    std::getline(again, line);
    std::string fid;
    for (int64_t r = 0; r < 5 && fam >> fid && std::getline(again, line); ++r) {
      ASSERT_EQ(fid, split(line)[0]);
      std::getline(fam, line);
    }
  }
  ASSERT_EQ(panoramix("matern-fit --bfile " + shq(prefix) + " --keep " + d.path("keep.txt") + " --pheno " +
                          d.path("y.txt") + " --pheno-name BMI --fix-nu 2.5 --standardize --threads 2 --out " + d.path("m"),
                      d.path("run.txt")),
            0)
      << read_text(d.path("m.log"));
  {  // X = intercept for the oracle
    std::ofstream x(d.path("ones.txt"));
    for (int64_t i = 0; i < taken; ++i) x << "1\n";
  }
  const oracle_estimate o = run_fit_oracle("--bed " + shq(prefix) + " --samples " + d.path("idx.txt") +
                                               " --standardize --y " + d.path("yo.txt") + " --X " + d.path("ones.txt") +
                                               " --reml --fix-nu 2.5",
                                           d);
  const auto fit = read_fit(d.path("m.fit"));
  expect_estimate(fit.at("sigma2").first, o.sigma2, "sigma2");
  expect_estimate(fit.at("rho").first, o.rho, "rho");
  expect_estimate(fit.at("nu").first, o.nu, "nu");
  expect_estimate(fit.at("sigma2_e").first, o.sigma2_e, "sigma2_e");
  EXPECT_NEAR(fit.at("logL").first, o.logL, 1e-9 * std::fabs(o.logL));
  EXPECT_EQ(fit.at("nu").first, 2.5);
  std::printf("mice vs oracle: sigma2 %.2g rho %.2g sigma2_e %.2g logL %.2g (relative)\n",
              std::fabs(fit.at("sigma2").first / o.sigma2 - 1), std::fabs(fit.at("rho").first / o.rho - 1),
              std::fabs(fit.at("sigma2_e").first / o.sigma2_e - 1), std::fabs(fit.at("logL").first / o.logL - 1));
}

// A small fileset with structure and a smooth signal along it: 50 families of 3 at t_f = f/49 on a
// cline (A1 frequency 0.1 + 0.8 t_f on even variants, 0.9 − 0.8 t_f on odd ones; members 2 and 3
// share 90 % of member 1's calls), so genotype distances grow with |t_f − t_f'| and are small within
// families (which separates σ²_ε from C); y = 2 sin(2π t_f) + N(0, 0.7²). 150 samples, 400
// variants; the last 10 samples have no phenotype.
struct command_data {
  temp_dir d;
  command_data() {
    const int64_t n = 150, k = 400;
    packed_genotypes g(n, k);
    {
      std::mt19937_64 r(23);
      std::uniform_real_distribution<double> u(0, 1);
      for (int64_t l = 0; l < k; ++l)
        for (int64_t i = 0; i < n; ++i) {
          const double t = double(i / 3) / double(n / 3 - 1), p = l % 2 ? 0.9 - 0.8 * t : 0.1 + 0.8 * t;
          const int x = (u(r) < p) + (u(r) < p);
          const uint8_t code = x == 2 ? code_hom_a1 : x == 1 ? code_het : code_hom_a2;
          // Families of 3: members 2 and 3 keep 90 % of member 1's calls.
          g.set(i, l, i % 3 && u(r) < 0.9 ? g.view().code(i - i % 3, l) : code);
        }
    }
    std::vector<sample_record> s(n);
    for (int64_t i = 0; i < n; ++i) s[i] = {"f", "s" + std::to_string(i), "0", "0", 1, "-9"};
    std::vector<variant_record> v(k);
    for (int64_t l = 0; l < k; ++l) v[l] = {"1", "v" + std::to_string(l), 0, 100 * l + 1, "A", "C"};
    write_plink_fileset(d.path("g"), s, v, g.view());
    std::mt19937_64 rng(29);
    std::normal_distribution<double> z(0, 1);
    std::ofstream ph(d.path("y.txt")), cv(d.path("c.txt")), flat(d.path("flat.txt"));
    ph.precision(17), cv.precision(17);
    ph << "FID IID T\n", cv << "FID IID age\n", flat << "FID IID T\n";
    for (int64_t i = 0; i < n; ++i) {
      const double y = 2 * std::sin(2 * std::numbers::pi * double(i / 3) / double(n / 3 - 1)) + 0.7 * z(rng);
      ph << "f s" << i << " " << (i >= n - 10 ? std::string("NA") : std::to_string(y)) << "\n";
      cv << "f s" << i << " " << z(rng) << "\n";
      flat << "f s" << i << " 3.5\n";
    }
  }
};

TEST(MaternFitCommand, OutputsAndLog) {
  command_data c;
  const temp_dir& d = c.d;
  const std::string out = d.path("m");
  ASSERT_EQ(panoramix("matern-fit --bfile " + d.path("g") + " --pheno " + d.path("y.txt") + " --pheno-name T --covar " +
                          d.path("c.txt") + " --ml --fix-nu 1.5 --standardize --threads 2 --out " + out,
                      d.path("run.txt")),
            0)
      << read_text(out + ".log");
  const auto fit = read_fit(out + ".fit");
  for (const char* k : {"sigma2", "rho", "sigma2_e", "beta_intercept", "beta_age"}) {
    ASSERT_TRUE(fit.count(k)) << k;
    EXPECT_TRUE(std::isfinite(fit.at(k).first) && fit.at(k).second > 0) << k;
  }
  EXPECT_EQ(fit.at("nu").first, 1.5);
  EXPECT_TRUE(std::isnan(fit.at("nu").second));
  EXPECT_EQ(fit.at("converged").first, 1);
  EXPECT_GE(fit.at("iterations").first, 1);
  EXPECT_TRUE(std::isfinite(fit.at("logL").first));
  // Every genotyped sample gets a BLUP, those without a phenotype too.
  std::ifstream blup(out + ".blup");
  std::string line;
  std::getline(blup, line);
  EXPECT_EQ(line, "FID\tIID\tBLUP");
  int64_t rows = 0;
  for (std::string f, i, v; blup >> f >> i >> v; ++rows) EXPECT_TRUE(std::isfinite(std::stod(v))) << i;
  EXPECT_EQ(rows, 150);
  const std::string log = read_text(out + ".log");
  EXPECT_NE(log.find("140 of the 150 training samples"), std::string::npos) << log;
  EXPECT_NE(log.find("Converged after"), std::string::npos) << log;
  // REML on the same data (ν fixed: estimated, ν falls to ~0.6 and σ²_ε to the boundary 0).
  ASSERT_EQ(panoramix("matern-fit --bfile " + d.path("g") + " --pheno " + d.path("y.txt") +
                          " --reml --fix-nu 1.5 --standardize --out " + d.path("r"),
                      d.path("run.txt")),
            0)
      << read_text(d.path("r.log"));
  EXPECT_GT(read_fit(d.path("r.fit")).at("sigma2_e").second, 0);
}

TEST(MaternFitCommand, BadInputIsNamedAndNothingIsWritten) {
  command_data c;
  const temp_dir& d = c.d;
  const std::string base = "matern-fit --bfile " + d.path("g") + " --standardize ";
  const struct {
    std::string args, message;
  } cases[] = {
      {"--pheno " + d.path("y.txt") + " --fix-nu 0", "--fix-nu must be"},
      {"--pheno " + d.path("y.txt") + " --fix-nu -1", "--fix-nu must be"},
      {"--pheno " + d.path("y.txt") + " --fix-nu 200", "--fix-nu must be"},
      {"--pheno " + d.path("y.txt") + " --pheno-name BMI", "BMI"},
      {"--pheno " + d.path("absent.txt"), "absent.txt"},
      {"--pheno " + d.path("flat.txt"), "has no variance"},
      {"--pheno " + d.path("y.txt") + " --covar-name age", "--covar-name needs --covar"},
      {"--pheno " + d.path("y.txt") + " --ml --reml", "at most one of --ml and --reml"},
      {"--pheno " + d.path("y.txt") + " --max-iter 1", "did not converge"},
      {"--pheno " + d.path("y.txt") + " --pheno-name T --covar " + d.path("c.txt") + " --covar-name age,age2", "age2"},
  };
  for (const auto& b : cases) {
    const std::string out = d.path("bad");
    EXPECT_NE(panoramix(base + b.args + " --out " + out, d.path("err.txt")), 0) << b.args;
    EXPECT_NE(read_text(d.path("err.txt")).find(b.message), std::string::npos)
        << b.args << ": " << read_text(d.path("err.txt"));
    EXPECT_FALSE(std::filesystem::exists(out + ".fit")) << b.args;
    EXPECT_FALSE(std::filesystem::exists(out + ".blup")) << b.args;
    EXPECT_NE(read_text(out + ".log").find(b.message), std::string::npos) << b.args;
  }
}

}  // namespace
}  // namespace pmx::test
