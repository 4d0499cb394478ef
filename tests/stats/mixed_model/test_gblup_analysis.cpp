// The gBLUP analysis entry (run_gblup_analysis: files to results) and its writer (write_gblup):
//  * a GCTA GRM reduced to --keep samples, phenotype and covariate files in another order with
//    missing values and extra IDs: ĝ and β̂ against the GLS/BLUP formulas evaluated directly in
//    long double on the G this test wrote (rounded to float as the file stores it), for fitted and
//    unfitted samples;
//  * the option checks (each message, and that they come before the executor is made);
//  * the order in which the analysis asks its context and log for things;
//  * PREFIX.gebv/.fixef/.vc read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "panoramix/error.hpp"
#include "panoramix/gblup_analysis.hpp"
#include "panoramix/gblup_files.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// Records every call, for the order checks.
struct recording_log final : analysis_log {
  std::vector<std::string> events;
  void message(const std::string& line) override { events.push_back("message " + line); }
  void begin(const std::string& stage) override { events.push_back("begin " + stage); }
  void end() override { events.push_back("end"); }
  void substage(const std::string& name, double) override { events.push_back("substage " + name); }
  void update(std::string_view, double) override {}
};

// A GCTA GRM of n samples "F<i> I<i>" written by hand (float32 lower triangle, row by row).
struct grm_fixture {
  int64_t n = 0;
  std::vector<double> G;  // as stored: each entry rounded to float
  std::string prefix;
};

grm_fixture write_grm(const test::temp_dir& dir, int64_t n) {
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 0.2 + 2.0 * std::pow(0.93, static_cast<double>(i));
  grm_fixture f;
  f.n = n;
  f.G = test::matrix_with_spectrum(lambda, 5);
  f.prefix = dir.path("g");
  std::ofstream id(f.prefix + ".grm.id"), bin(f.prefix + ".grm.bin", std::ios::binary);
  for (int64_t i = 0; i < n; ++i) {
    id << "F" << i << " I" << i << "\n";
    for (int64_t j = 0; j <= i; ++j) {
      const float v = static_cast<float>(f.G[i * n + j]);
      bin.write(reinterpret_cast<const char*>(&v), sizeof v);
      f.G[i * n + j] = f.G[j * n + i] = v;
    }
  }
  return f;
}

// ĝ = h² G_{all,f} H⁻¹ (y − Xβ̂), β̂ = (XᵀH⁻¹X)⁻¹ XᵀH⁻¹ y, H = h² G_ff + (1 − h²) I, in long double.
void gls_blup(const std::vector<double>& G, int64_t n, const std::vector<int64_t>& fit,
              const std::vector<std::vector<double>>& X, const std::vector<double>& y, double h2,
              std::vector<double>& beta, std::vector<double>& g) {
  const int64_t nf = static_cast<int64_t>(fit.size()), p = static_cast<int64_t>(X.size());
  std::vector<long double> H(nf * nf), B(nf * (p + 1));
  for (int64_t a = 0; a < nf; ++a) {
    for (int64_t b = 0; b < nf; ++b) H[a * nf + b] = h2 * static_cast<long double>(G[fit[a] * n + fit[b]]) + (a == b ? 1 - h2 : 0);
    for (int64_t c = 0; c < p; ++c) B[a * (p + 1) + c] = X[c][a];
    B[a * (p + 1) + p] = y[a];
  }
  test::ld_solve(H, B, nf, p + 1);  // B = H⁻¹ [X y]
  std::vector<long double> XtHX(p * p), XtHy(p);
  for (int64_t c = 0; c < p; ++c) {
    for (int64_t d = 0; d < p; ++d)
      for (int64_t a = 0; a < nf; ++a) XtHX[c * p + d] += X[c][a] * B[a * (p + 1) + d];
    for (int64_t a = 0; a < nf; ++a) XtHy[c] += X[c][a] * B[a * (p + 1) + p];
  }
  test::ld_solve(XtHX, XtHy, p, 1);
  beta.assign(XtHy.begin(), XtHy.end());
  std::vector<long double> alpha(nf);  // H⁻¹(y − Xβ̂) = H⁻¹y − H⁻¹X β̂
  for (int64_t a = 0; a < nf; ++a) {
    alpha[a] = B[a * (p + 1) + p];
    for (int64_t c = 0; c < p; ++c) alpha[a] -= B[a * (p + 1) + c] * XtHy[c];
  }
  g.assign(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    long double s = 0;
    for (int64_t a = 0; a < nf; ++a) s += static_cast<long double>(G[i * n + fit[a]]) * alpha[a];
    g[i] = static_cast<double>(h2 * s);
  }
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0, scale = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return worst / scale;
}

analysis_context cpu_context(analysis_log* log) {
  return {.log = log, .make_executor = [] { return executor(backend::cpu, 2); }, .open_genotypes = nullptr};
}

TEST(GblupAnalysis, GrmKeepPhenotypeAndCovariatesMatchGlsBlup) {
  test::temp_dir dir;
  const int64_t n = 48;
  const grm_fixture grm = write_grm(dir, n);
  // --keep: every sample but those with i % 5 == 2, listed in reverse order (the GRM's order counts).
  std::vector<int64_t> kept;
  {
    std::ofstream keep(dir.path("keep.txt"));
    for (int64_t i = n - 1; i >= 0; --i)
      if (i % 5 != 2) keep << "F" << i << " I" << i << "\n";
    for (int64_t i = 0; i < n; ++i)
      if (i % 5 != 2) kept.push_back(i);
  }
  const int64_t m = static_cast<int64_t>(kept.size());
  // Phenotypes (column "yield", the second of two), covariates ("age", the first of two), shuffled
  // rows, IDs not in the GRM, missing values: y missing for i % 7 == 0, age missing for i % 11 == 3.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> z(0, 1);
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::map<int64_t, double> yv, agev;
  {
    std::ofstream ph(dir.path("ph.txt")), cv(dir.path("cv.txt"));
    ph << "FID IID height yield\nZ1 Z1 1 2\n";
    cv << "FID IID age herd\n";
    for (int64_t i : order) {
      yv[i] = 10 + z(rng), agev[i] = 2 + z(rng);
      ph << "F" << i << " I" << i << " " << z(rng) << " " << (i % 7 == 0 ? std::string("-9") : std::to_string(yv[i])) << "\n";
      cv << "F" << i << " I" << i << " " << (i % 11 == 3 ? std::string("NA") : std::to_string(agev[i])) << " " << i % 3 << "\n";
    }
    cv << "Z2 Z2 1 1\n";
  }
  gblup_analysis_options o;
  o.grm = grm.prefix;
  o.keep = dir.path("keep.txt");
  o.pheno = dir.path("ph.txt");
  o.pheno_name = "yield";
  o.covar = dir.path("cv.txt");
  o.covar_names = {"age"};
  o.h2 = 0.35;
  recording_log log;
  const gblup_analysis r = run_gblup_analysis(o, cpu_context(&log));
  // Samples: the kept ones in the GRM's order.
  ASSERT_EQ(static_cast<int64_t>(r.fid.size()), m);
  for (int64_t a = 0; a < m; ++a) {
    EXPECT_EQ(r.fid[a], "F" + std::to_string(kept[a]));
    EXPECT_EQ(r.iid[a], "I" + std::to_string(kept[a]));
  }
  // The oracle on the kept submatrix; fitted: kept samples with y and age (values as the files
  // hold them: std::to_string's 6 decimals).
  std::vector<double> Gk(m * m);
  for (int64_t a = 0; a < m; ++a)
    for (int64_t b = 0; b < m; ++b) Gk[a * m + b] = grm.G[kept[a] * n + kept[b]];
  std::vector<int64_t> fit;
  std::vector<std::vector<double>> X(2);
  std::vector<double> y;
  for (int64_t a = 0; a < m; ++a) {
    const int64_t i = kept[a];
    if (i % 7 == 0 || i % 11 == 3) continue;
    fit.push_back(a);
    X[0].push_back(1);
    X[1].push_back(std::stod(std::to_string(agev[i])));
    y.push_back(std::stod(std::to_string(yv[i])));
  }
  std::vector<double> beta, g;
  gls_blup(Gk, m, fit, X, y, 0.35, beta, g);
  EXPECT_EQ(r.fit.fixed_names, (std::vector<std::string>{"intercept", "age"}));
  EXPECT_LE(max_rel(r.fit.beta, beta), 1e-10);
  EXPECT_LE(max_rel(r.fit.gebv, g), 1e-10);
  EXPECT_FALSE(r.fit.vc.estimated);
  EXPECT_EQ(r.fit.vc.h2, 0.35);
  EXPECT_EQ(r.pcs.pcs, 0);
  // The log: the GRM read, the --keep subset, the matches, the fit, in that order.
  auto at = [&](const std::string& prefix) {
    const auto it = std::find_if(log.events.begin(), log.events.end(),
                                 [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    EXPECT_NE(it, log.events.end()) << prefix;
    return it - log.events.begin();
  };
  const auto read = at("begin read GRM"), keep = at("message --keep "), pheno = at("message --pheno "),
             covar = at("message --covar "), fitted = at("message " + std::to_string(fit.size()) + " samples fitted; "),
             solve = at("begin gBLUP at the given h2");
  EXPECT_LT(read, keep);
  EXPECT_LT(keep, pheno);
  EXPECT_LT(pheno, covar);
  EXPECT_LT(covar, fitted);
  EXPECT_LT(fitted, solve);
  EXPECT_EQ(log.events[keep], "message --keep " + o.keep + ": " + std::to_string(m) + " of the " + std::to_string(n) +
                                  " samples of the GRM kept");

  // The writer: every number reads back exactly (%.17g).
  output_group out;
  write_gblup(out, dir.path("res"), r);
  out.commit_all();
  std::ifstream gebv(dir.path("res.gebv"));
  std::string line, f, i, v, pev;
  std::getline(gebv, line);
  EXPECT_EQ(line, "FID\tIID\tGEBV\tPEV");
  for (int64_t a = 0; a < m; ++a) {
    ASSERT_TRUE(gebv >> f >> i >> v >> pev);
    EXPECT_EQ(f, r.fid[a]);
    EXPECT_EQ(std::stod(v), r.fit.gebv[a]);
    EXPECT_EQ(std::stod(pev), r.fit.pev[a]);
  }
  std::ifstream fixef(dir.path("res.fixef"));
  std::string name, est, se;
  for (size_t j = 0; j < 2; ++j) {
    ASSERT_TRUE(fixef >> name >> est >> se);
    EXPECT_EQ(name, r.fit.fixed_names[j]);
    EXPECT_EQ(std::stod(est), r.fit.beta[j]);
  }
  EXPECT_EQ(test::read_text(dir.path("res.vc")).substr(0, 9), "sigma2_g\t");
  EXPECT_FALSE(std::ifstream(dir.path("res.eigenval")).good());
}

// REML with PCs and without PEVs: PCs of the kept G (eigenpairs checked by their residual), PEV
// written as NA.
TEST(GblupAnalysis, RemlWithPcsAndNoPev) {
  test::temp_dir dir;
  const int64_t n = 40;
  const grm_fixture grm = write_grm(dir, n);
  std::mt19937_64 rng(4);
  std::normal_distribution<double> z(0, 1);
  {
    std::ofstream ph(dir.path("ph.txt"));
    for (int64_t i = 0; i < n; ++i) ph << "F" << i << " I" << i << " " << z(rng) << "\n";
  }
  gblup_analysis_options o;
  o.grm = grm.prefix;
  o.pheno = dir.path("ph.txt");
  o.pev = false;
  o.pc.pcs = 3;
  o.pc.tolerance = 1e-10;
  o.evaluator = gblup_evaluator_choice::cholesky;
  const gblup_analysis r = run_gblup_analysis(o, cpu_context(nullptr));
  EXPECT_TRUE(r.fit.vc.estimated);
  EXPECT_FALSE(r.pev);
  ASSERT_EQ(r.pcs.pcs, 3);
  for (int c = 0; c < 3; ++c) {
    double res = 0;
    for (int64_t i = 0; i < n; ++i) {
      double gv = 0;
      for (int64_t j = 0; j < n; ++j) gv += grm.G[i * n + j] * r.pcs.vectors[c * n + j];
      res = std::max(res, std::fabs(gv - r.pcs.values[c] * r.pcs.vectors[c * n + i]));
    }
    EXPECT_LE(res, 1e-8 * r.pcs.values[0]) << "PC " << c + 1;
  }
  output_group out;
  write_gblup(out, dir.path("res"), r);
  out.commit_all();
  const std::string gebv = test::read_text(dir.path("res.gebv"));
  EXPECT_NE(gebv.find("\tNA\n"), std::string::npos);
  EXPECT_TRUE(std::ifstream(dir.path("res.eigenval")).good());
  EXPECT_TRUE(std::ifstream(dir.path("res.eigenvec")).good());
}

// Option checks: each refused combination with its message, before the executor is asked for.
TEST(GblupAnalysis, OptionChecksComeFirst) {
  auto refused = [](const gblup_analysis_options& o, const std::string& text) {
    bool made = false;
    analysis_context ctx{.log = nullptr,
                         .make_executor = [&] {
                           made = true;
                           return executor(backend::cpu, 1);
                         },
                         .open_genotypes = nullptr};
    try {
      run_gblup_analysis(o, ctx);
      ADD_FAILURE() << "accepted; expected: " << text;
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()), text);
    }
    EXPECT_THROW(check_gblup_options(o), input_error);
    EXPECT_FALSE(made) << text;
  };
  gblup_analysis_options base;
  base.pheno = "p.txt";
  refused(base, "give exactly one of --bfile (compute the GRM) and --grm (read one)");
  gblup_analysis_options o = base;
  o.bfile = "b", o.grm = "g";
  refused(o, "give exactly one of --bfile (compute the GRM) and --grm (read one)");
  o = base, o.grm = "g", o.extract = "e.txt";
  refused(o, "--extract selects variants and cannot apply to a precomputed --grm");
  o = base, o.bfile = "b", o.h2 = 0.3, o.reml = true;
  refused(o, "--h2 and --reml exclude each other");
  o = base, o.bfile = "b", o.pc.pcs = -1;
  refused(o, "--pcs must be at least 0 (got -1)");
  o = base, o.bfile = "b", o.pc.pcs = 2, o.pc.tolerance = 0;
  refused(o, "--pc-tol must be a finite number > 0 (got 0)");
  o = base, o.bfile = "b", o.pc.pcs = 2, o.pc.tolerance = std::numeric_limits<double>::infinity();
  refused(o, "--pc-tol must be a finite number > 0 (got inf)");
  o = base, o.bfile = "b", o.pc.pcs = 2, o.pc.max_iterations = 0;
  refused(o, "--pc-max-iter must be at least 1 (got 0)");
  o = base, o.bfile = "b", o.pc.pcs = 2, o.pc.oversample = -1;
  refused(o, "--pc-oversample must be at least 0 (got -1)");
  // h² (issue #29: a NaN used to read as "not given" and REML ran instead).
  for (const auto& [h2, text] : std::vector<std::pair<double, std::string>>{
           {std::nan(""), "nan"}, {std::numeric_limits<double>::infinity(), "inf"},
           {-std::numeric_limits<double>::infinity(), "-inf"}, {-0.1, "-0.1"}, {1.0, "1"}, {1.5, "1.5"}}) {
    o = base, o.bfile = "b", o.h2 = h2;
    refused(o, "--h2 must be a finite number in [0, 1) (got " + text + ")");
  }
  o = base, o.bfile = "b", o.h2 = 0.0;
  EXPECT_NO_THROW(check_gblup_options(o));
  o = base, o.bfile = "b", o.mpheno = 0;
  refused(o, "--mpheno must be at least 1 (got 0)");
  o = base, o.grm = "g", o.grm_repair.bend = true, o.grm_repair.add_diagonal = 0.1;
  refused(o, "give at most one of --grm-bend and --grm-add-diagonal");
  for (const auto& [x, text] : std::vector<std::pair<double, std::string>>{
           {0.0, "0"}, {-1.0, "-1"}, {std::nan(""), "nan"}, {std::numeric_limits<double>::infinity(), "inf"}}) {
    o = base, o.grm = "g", o.grm_repair.add_diagonal = x;
    refused(o, "--grm-add-diagonal must be a finite number > 0 (got " + text + ")");
  }
  // PC settings are not checked without PCs.
  o = base, o.bfile = "b", o.pc.pcs = 0, o.pc.tolerance = 0;
  EXPECT_NO_THROW(check_gblup_options(o));
}

// With bfile the analysis asks for the executor first, then for the genotypes; an empty fileset
// is refused naming it.
TEST(GblupAnalysis, AsksForExecutorThenGenotypes) {
  test::temp_dir dir;
  std::vector<std::string> asked;
  gblup_analysis_options o;
  o.bfile = dir.path("none");
  o.pheno = dir.path("p.txt");
  analysis_context ctx{.log = nullptr,
                       .make_executor = [&] {
                         asked.push_back("executor");
                         return executor(backend::cpu, 1);
                       },
                       .open_genotypes = [&]() -> std::unique_ptr<genotype_source> {
                         asked.push_back("genotypes");
                         throw input_error("no such fileset");
                       }};
  EXPECT_THROW(run_gblup_analysis(o, ctx), input_error);
  EXPECT_EQ(asked, (std::vector<std::string>{"executor", "genotypes"}));
}

// Issue #29: bad numbers in the inputs are refused by name, before any fit.
std::string analysis_refusal(const gblup_analysis_options& o) {
  try {
    run_gblup_analysis(o, cpu_context(nullptr));
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

// A GCTA GRM with exactly the given float entries (row-major n × n, lower triangle written).
void write_grm_entries(const std::string& prefix, int64_t n, const std::vector<double>& G) {
  std::ofstream id(prefix + ".grm.id"), bin(prefix + ".grm.bin", std::ios::binary);
  for (int64_t i = 0; i < n; ++i) {
    id << "F" << i << " I" << i << "\n";
    for (int64_t j = 0; j <= i; ++j) {
      const float v = static_cast<float>(G[i * n + j]);
      bin.write(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
}

TEST(GblupAnalysis, ConstantPhenotypeOrCovariateIsNamed) {
  test::temp_dir dir;
  const grm_fixture grm = write_grm(dir, 12);
  {
    std::ofstream ph(dir.path("ph.txt")), cv(dir.path("cv.txt"));
    ph << "FID IID bw flat\n";
    cv << "FID IID age sex\n";
    for (int i = 0; i < 12; ++i) {
      ph << "F" << i << " I" << i << " " << 1 + i % 5 << " " << (i == 3 ? "NA" : "2.5") << "\n";
      cv << "F" << i << " I" << i << " " << 20 + i << " 1\n";
    }
  }
  gblup_analysis_options o;
  o.grm = grm.prefix, o.pheno = dir.path("ph.txt"), o.pheno_name = "flat", o.h2 = 0.3;
  EXPECT_EQ(analysis_refusal(o), "--pheno " + o.pheno + ": phenotype 'flat' has no variance: all 11 fitted sample(s) "
                                 "have the value 2.5");
  o.pheno_name = "bw", o.covar = dir.path("cv.txt"), o.covar_names = {"age", "sex"};
  EXPECT_EQ(analysis_refusal(o), "--covar " + o.covar + ": covariate 'sex' is constant (1) over the 12 fitted "
                                 "sample(s): it duplicates the intercept; leave it out with --covar-name");
  o.covar_names = {"age"};
  EXPECT_EQ(analysis_refusal(o), "accepted");
  // Finite values whose squares overflow.
  {
    std::ofstream ph(dir.path("huge.txt"));
    for (int i = 0; i < 12; ++i) ph << "F" << i << " I" << i << " " << (i == 4 ? "1e200" : "1") << "\n";
  }
  o = {}, o.grm = grm.prefix, o.pheno = dir.path("huge.txt"), o.h2 = 0.3;
  EXPECT_EQ(analysis_refusal(o), "--pheno " + o.pheno + ": phenotype '1' has values too large to square in double "
                                 "precision (rescale it)");
}

TEST(GblupAnalysis, GrmThatIsNotACovarianceIsRefusedUnlessRepaired) {
  test::temp_dir dir;
  const int64_t n = 16;
  // Eigenvalues exactly representable; one negative. Stored as float: the spectrum moves by ~1e-7.
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 0.25 + 0.125 * static_cast<double>(i);
  lambda[5] = -0.25;
  const std::vector<double> G = test::matrix_with_spectrum(lambda, 3);
  const std::string prefix = dir.path("bad");
  write_grm_entries(prefix, n, G);
  std::vector<double> y(n);
  {
    std::ofstream ph(dir.path("ph.txt"));
    for (int64_t i = 0; i < n; ++i) {
      y[i] = std::sin(1.0 + static_cast<double>(i)) * 3;
      ph << "F" << i << " I" << i << " " << std::to_string(y[i]) << "\n";
    }
  }
  gblup_analysis_options o;
  o.grm = prefix, o.pheno = dir.path("ph.txt"), o.h2 = 0.4;
  const std::string said = analysis_refusal(o);
  EXPECT_EQ(said.rfind("--grm file '" + prefix + ".grm.bin': G is not positive semi-definite: its smallest "
                       "eigenvalue is -0.2",
                       0),
            0u)
      << said;
  EXPECT_NE(said.find("leading minor of order"), std::string::npos) << said;
  // --grm-add-diagonal 0.5: the fit is that of G + 0.5 I (the oracle: GLS/BLUP in long double).
  o.grm_repair.add_diagonal = 0.5;
  recording_log log;
  const gblup_analysis r = run_gblup_analysis(o, cpu_context(&log));
  std::vector<double> Gf(n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      Gf[i * n + j] = static_cast<double>(static_cast<float>(G[std::max(i, j) * n + std::min(i, j)])) + (i == j ? 0.5 : 0);
  std::vector<int64_t> fit(n);
  std::iota(fit.begin(), fit.end(), 0);
  std::vector<std::vector<double>> X{std::vector<double>(n, 1.0)};
  std::vector<double> yf;
  for (int64_t i = 0; i < n; ++i) yf.push_back(std::stod(std::to_string(y[i])));
  std::vector<double> beta, g;
  gls_blup(Gf, n, fit, X, yf, 0.4, beta, g);
  EXPECT_LE(max_rel(r.fit.beta, beta), 1e-10);
  EXPECT_LE(max_rel(r.fit.gebv, g), 1e-10);
  EXPECT_NE(std::find(log.events.begin(), log.events.end(),
                      "message --grm-add-diagonal: 0.5 added to each of the 16 diagonal entries of G"),
            log.events.end());
  // --grm-bend: accepted, logged.
  o.grm_repair = {.bend = true, .add_diagonal = std::nullopt};
  recording_log bent;
  EXPECT_NO_THROW(run_gblup_analysis(o, cpu_context(&bent)));
  EXPECT_NE(std::find_if(bent.events.begin(), bent.events.end(),
                         [](const std::string& e) { return e.rfind("message --grm-bend: 1 of 16 eigenvalues", 0) == 0; }),
            bent.events.end());
  // All zeros: refused even with a repair.
  write_grm_entries(dir.path("zero"), n, std::vector<double>(n * n, 0.0));
  o.grm = dir.path("zero"), o.grm_repair = {};
  EXPECT_EQ(analysis_refusal(o), "--grm file '" + o.grm + ".grm.bin': every entry of the 16 x 16 GRM is 0: it carries "
                                 "no relationship to fit");
}

}  // namespace
}  // namespace pmx
