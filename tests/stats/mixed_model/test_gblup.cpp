// gBLUP against direct solves of Henderson's mixed-model equations in long double: β̂, ĝ for
// fitted and unphenotyped samples, PEV from the inverse coefficient matrix; one wheat CV fold run
// through the binary against the same oracle; the command's input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/gblup.hpp"
#include "panoramix/grm_files.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "panoramix/reml.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using test::ld_solve;


// max_i |a_i − b_i| ≤ tol · max_i |b_i|: relative in the vector's max norm.
void expect_close(const std::vector<double>& a, const std::vector<double>& b, double tol,
                  const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 0, worst = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    ASSERT_TRUE(std::isfinite(a[i]) && std::isfinite(b[i])) << what << " element " << i;
    scale = std::max(scale, std::fabs(b[i]));
    worst = std::max(worst, std::fabs(a[i] - b[i]));
  }
  EXPECT_LE(worst, tol * scale) << what << ": max difference " << worst << " of max " << scale;
  std::printf("%s: max |difference| / max |oracle| = %.2e\n", what.c_str(), worst / scale);
}

struct mme_solution {
  std::vector<double> beta, g, pev, se_beta;
};

// Henderson's MME for y_f = Xβ + Zg + e, g ~ N(0, σ²_g G), λ = σ²_e/σ²_g:
//   [XᵀX  XᵀZ          ] [β]   [Xᵀy]
//   [ZᵀX  ZᵀZ + λG⁻¹   ] [g] = [Zᵀy],  PEV_i = σ²_e (C⁻¹)_gg,ii,  Var β̂ = σ²_e (C⁻¹)_ββ.
mme_solution henderson(int64_t n, const std::vector<double>& G, const std::vector<int64_t>& fit,
                       const std::vector<std::vector<double>>& X, const std::vector<double>& y,
                       double s2g, double s2e) {
  const int64_t p = static_cast<int64_t>(X.size()), k = p + n, nf = static_cast<int64_t>(fit.size());
  std::vector<long double> Ginv(n * n, 0), Gm(G.begin(), G.end());
  for (int64_t i = 0; i < n; ++i) Ginv[i * n + i] = 1;
  ld_solve(Gm, Ginv, n, n);
  const long double lambda = static_cast<long double>(s2e) / s2g;
  std::vector<long double> C(k * k, 0), rhs(k, 0);
  for (int64_t r = 0; r < nf; ++r) {
    const int64_t gi = p + fit[r];
    for (int64_t a = 0; a < p; ++a) {
      for (int64_t b = 0; b < p; ++b) C[a * k + b] += static_cast<long double>(X[a][r]) * X[b][r];
      C[a * k + gi] += X[a][r];
      C[gi * k + a] += X[a][r];
      rhs[a] += static_cast<long double>(X[a][r]) * y[r];
    }
    C[gi * k + gi] += 1;
    rhs[gi] += y[r];
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) C[(p + i) * k + p + j] += lambda * Ginv[i * n + j];
  std::vector<long double> Cinv(k * k, 0);
  for (int64_t i = 0; i < k; ++i) Cinv[i * k + i] = 1;
  ld_solve(C, Cinv, k, k);
  ld_solve(C, rhs, k, 1);
  mme_solution s;
  for (int64_t a = 0; a < p; ++a) {
    s.beta.push_back(static_cast<double>(rhs[a]));
    s.se_beta.push_back(static_cast<double>(std::sqrt(s2e * Cinv[a * k + a])));
  }
  for (int64_t i = 0; i < n; ++i) {
    s.g.push_back(static_cast<double>(rhs[p + i]));
    s.pev.push_back(static_cast<double>(s2e * Cinv[(p + i) * k + p + i]));
  }
  return s;
}

// Issue #29: a NaN or infinite phenotype or covariate from a library caller is refused by name
// before the fit (the command line's readers refuse them earlier).
TEST(Gblup, NonFiniteDataIsRefused) {
  const int64_t n = 8;
  const auto G = test::matrix_with_spectrum({3, 2, 1.5, 1, 0.75, 0.5, 0.25, 0.125}, 3);
  gblup_data d;
  d.n = n;
  d.G = G.data();
  for (int64_t i = 0; i < n; ++i) d.fitted.push_back(i), d.y.push_back(static_cast<double>(i % 3));
  d.covariates = {std::vector<double>(n, 0.0)};
  for (int64_t i = 0; i < n; ++i) d.covariates[0][i] = static_cast<double>(i);
  d.covariate_names = {"x"};
  gblup_options o;
  o.h2 = 0.5;
  const executor exec(backend::cpu, 1);
  auto refusal = [&](const gblup_data& data) -> std::string {
    try {
      fit_gblup(exec, data, o);
    } catch (const input_error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal(d), "accepted");
  gblup_data bad = d;
  bad.y[1] = std::nan("");
  EXPECT_EQ(refusal(bad), "phenotype of fitted sample 2 is not finite");
  bad = d;
  bad.covariates[0][6] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(refusal(bad), "covariate 1 of fitted sample 7 is not finite");
}

TEST(Gblup, MatchesHendersonMixedModelEquations) {
  const int64_t n = 110;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 0.1 + 2.5 * std::pow(0.96, static_cast<double>(i));
  const auto G = test::matrix_with_spectrum(lambda, 17);
  std::mt19937_64 rng(2);
  std::normal_distribution<double> z(0, 1);
  gblup_data d;
  d.n = n;
  d.G = G.data();
  d.covariates.resize(1);
  d.covariate_names = {"x"};
  std::vector<std::vector<double>> X(2);
  std::vector<double> e(n), gv(n, 0.0);
  for (auto& v : e) v = z(rng);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) gv[i] += G[i * n + j] * e[j];  // a genetic signal through G
  for (int64_t i = 0; i < n; ++i) {
    if (i % 4 == 1) continue;  // a quarter unphenotyped: predicted through G only
    const double x = z(rng);
    d.fitted.push_back(i);
    d.covariates[0].push_back(x);
    d.y.push_back(50 + 2 * x + gv[i] + 0.8 * z(rng));
    X[0].push_back(1);
    X[1].push_back(x);
  }
  for (int k = 0; k < 4; ++k) {
    gblup_options opt;
    opt.evaluator = k % 2 ? h2_evaluator_kind::cholesky : h2_evaluator_kind::eigen;
    if (k < 2) opt.h2 = 0.4;
    const auto r = fit_gblup(executor(backend::cpu, 2), d, opt);
    if (k >= 2) {  // an interior REML estimate, so that every term of the oracle is exercised
      EXPECT_GT(r.vc.h2, 0.05);
      EXPECT_LT(r.vc.h2, 0.95);
    }
    const auto o = henderson(n, G, d.fitted, X, d.y, r.vc.sigma2_g, r.vc.sigma2_e);
    const std::string tag = std::string(k < 2 ? "h2=0.4 " : "REML ") + r.evaluator + " ";
    expect_close(r.beta, o.beta, 1e-8, tag + "beta");
    expect_close(r.se_beta, o.se_beta, 1e-8, tag + "se(beta)");
    expect_close(r.gebv, o.g, 1e-8, tag + "GEBV");
    expect_close(r.pev, o.pev, 1e-8, tag + "PEV");
  }
}

// G shared as a prepared operand (gblup --pcs: the resident copy serves the Cholesky evaluator and
// the ĝ product), every sample fitted: the same fit as without it, and Henderson's MME.
TEST(Gblup, SharedOperandMatchesMixedModelEquations) {
  const int64_t n = 90;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 0.05 + 3.0 * std::pow(0.95, static_cast<double>(i));
  const auto G = test::matrix_with_spectrum(lambda, 23);
  std::mt19937_64 rng(4);
  std::normal_distribution<double> z(0, 1);
  gblup_data d;
  d.n = n;
  d.G = G.data();
  std::vector<std::vector<double>> X(1);
  std::vector<double> e(n), gv(n, 0.0);
  for (auto& v : e) v = z(rng);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) gv[i] += G[i * n + j] * e[j];
  for (int64_t i = 0; i < n; ++i) {
    d.fitted.push_back(i);
    d.y.push_back(3 + gv[i] + z(rng));
    X[0].push_back(1);
  }
  const executor cpu(backend::cpu, 2);
  for (const bool given : {true, false}) {
    gblup_options opt;
    opt.evaluator = h2_evaluator_kind::cholesky;
    if (given) opt.h2 = 0.3;
    gblup_data shared = d;
    shared.resident = std::make_shared<const shifted_operand>(cpu, n, G.data(), n);
    const auto a = fit_gblup(cpu, d, opt), b = fit_gblup(cpu, shared, opt);
    const std::string tag = given ? "shared operand, h2=0.3 " : "shared operand, REML ";
    expect_close(b.gebv, a.gebv, 1e-12, tag + "GEBV vs own operand");
    expect_close(b.pev, a.pev, 1e-12, tag + "PEV vs own operand");
    const auto o = henderson(n, G, d.fitted, X, d.y, b.vc.sigma2_g, b.vc.sigma2_e);
    expect_close(b.beta, o.beta, 1e-8, tag + "beta");
    expect_close(b.gebv, o.g, 1e-8, tag + "GEBV");
    expect_close(b.pev, o.pev, 1e-8, tag + "PEV");
  }
}

// The large-n REML path of `gblup` (Cholesky evaluator, Brent alone on an 8-interval grid,
// tolerance 1e-7 on h²) against the eigen evaluator with the Newton polish (ĥ² to ~1e-12): the
// difference is far below SE(ĥ²).
TEST(Gblup, BrentAloneMatchesNewtonPolish) {
  const int64_t n = 400, k = 1500;
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(0.05, 0.95);
  std::vector<double> Zm(n * k);
  for (int64_t l = 0; l < k; ++l) {
    const double p = u(rng);
    std::binomial_distribution<int> b(2, p);
    for (int64_t i = 0; i < n; ++i) Zm[i * k + l] = (b(rng) - 2 * p) / std::sqrt(2 * p * (1 - p));
  }
  std::vector<double> G(n * n), A(2 * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += Zm[i * k + l] * Zm[j * k + l];
      G[i * n + j] = G[j * n + i] = s / k;
    }
  std::normal_distribution<double> z(0, 1);
  for (int64_t i = 0; i < n; ++i) {
    double g = 0;
    for (int64_t l = 0; l < 40; ++l) g += Zm[i * k + l] * 0.15;
    A[i] = 1, A[n + i] = g + z(rng);
  }
  const executor cpu(backend::cpu, 2);
  const auto ref = fit_reml(*make_eigen_evaluator(cpu, n, G.data(), 2, A.data()), reml_options{});
  reml_options o;
  o.newton = false;
  o.grid = 8;
  o.tolerance = 1e-7;
  const auto r = fit_reml(*make_cholesky_evaluator(cpu, n, G.data(), 2, A.data()), o);
  ASSERT_GT(ref.h2, 0.05);
  ASSERT_LT(ref.h2, 0.95);
  std::printf("Brent alone (tol 1e-7): h2 %.12f, Newton %.12f, SE %.3g, %d vs %d evaluations\n", r.h2, ref.h2,
              ref.se_h2, r.evaluations, ref.evaluations);
  EXPECT_LE(std::fabs(r.h2 - ref.h2), 1e-4 * ref.se_h2);
  EXPECT_NEAR(r.logl, ref.logl, 1e-9 * std::fabs(ref.logl));
}

// ---- one wheat CV fold through the binary (--grm path), against the MME in the form that
// needs no G⁻¹ (the standardised G of 599 lines is singular): ĝ = Gα with
//   [XᵀX  XᵀZG      ] [β]   [Xᵀy]
//   [ZᵀX  ZᵀZG + λI ] [α] = [Zᵀy].
TEST(Gblup, WheatFoldMatchesDenseMixedModelSolve) {
  const std::string wheat = test::shared_data("bglr_wheat/wheat_dart");
  if (wheat.empty()) GTEST_SKIP() << "bglr_wheat not found under ../shared/data";
  auto& w = test::work();
  const std::string dir = wheat.substr(0, wheat.rfind('/'));
  // Environment "1", fold 1 masked (NA).
  {
    std::ifstream csv(dir + "/wheat_Y_4env_folds.csv");
    std::ofstream ph(w.path("wy.txt"));
    std::string line;
    std::getline(csv, line);
    ph << "FID IID env1\n";
    while (std::getline(csv, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      std::string x;
      while (std::getline(ss, x, ',')) f.push_back(x.size() >= 2 && x[0] == '"' ? x.substr(1, x.size() - 2) : x);
      ph << f[0] << ' ' << f[0] << ' ' << (f[5] == "1" ? "NA" : f[1]) << '\n';
    }
  }
  ASSERT_EQ(test::panoramix("grm --bfile " + test::shq(wheat) + " --format gcta --out " +
                                test::shq(w.path("wg")), w.path("wg.out")), 0);
  ASSERT_EQ(test::panoramix("gblup --grm " + test::shq(w.path("wg")) + " --pheno " +
                                test::shq(w.path("wy.txt")) + " --pheno-name env1 --out " +
                                test::shq(w.path("wf")), w.path("wf.out")), 0);
  const grm_file g = read_gcta_grm(w.path("wg"));
  std::map<std::string, double> vc;
  {
    std::ifstream in(w.path("wf.vc"));
    std::string name, v, s;
    while (in >> name >> v >> s) vc[name] = std::stod(v);
  }
  std::vector<double> gebv, beta;
  {
    std::ifstream in(w.path("wf.gebv"));
    std::string a, b, c, e;
    in >> a >> b >> c >> e;  // header
    while (in >> a >> b >> c >> e) gebv.push_back(std::stod(c));
    std::ifstream fx(w.path("wf.fixef"));
    while (fx >> a >> b >> c) beta.push_back(std::stod(b));
  }
  // Oracle inputs: phenotypes in .grm.id order.
  std::map<std::string, double> y_of;
  {
    std::ifstream in(w.path("wy.txt"));
    std::string a, b, c;
    in >> a >> b >> c;
    while (in >> a >> b >> c)
      if (c != "NA") y_of[a + ' ' + b] = std::stod(c);
  }
  const int64_t n = g.n;
  std::vector<int64_t> fit;
  std::vector<double> y;
  for (int64_t i = 0; i < n; ++i) {
    auto it = y_of.find(g.fid[i] + ' ' + g.iid[i]);
    if (it == y_of.end()) continue;
    fit.push_back(i);
    y.push_back(it->second);
  }
  ASSERT_GT(static_cast<int64_t>(fit.size()), n / 2);
  ASSERT_LT(static_cast<int64_t>(fit.size()), n);
  const int64_t k = 1 + n, nf = static_cast<int64_t>(fit.size());
  const long double lambda = static_cast<long double>(vc["sigma2_e"]) / vc["sigma2_g"];
  std::vector<long double> C(k * k, 0), rhs(k, 0);
  for (int64_t r = 0; r < nf; ++r) {
    const int64_t i = fit[r];
    C[0] += 1;
    rhs[0] += y[r];
    rhs[1 + i] += y[r];
    for (int64_t j = 0; j < n; ++j) {
      C[0 * k + 1 + j] += g.G[i * n + j];             // XᵀZG
      C[(1 + i) * k + 1 + j] += g.G[i * n + j];       // ZᵀZG
    }
    C[(1 + i) * k + 0] += 1;                          // ZᵀX
  }
  for (int64_t i = 0; i < n; ++i) C[(1 + i) * k + 1 + i] += lambda;
  ld_solve(C, rhs, k, 1);
  std::vector<double> g_ref(n);
  for (int64_t i = 0; i < n; ++i) {
    long double s = 0;
    for (int64_t j = 0; j < n; ++j) s += g.G[i * n + j] * rhs[1 + j];
    g_ref[i] = static_cast<double>(s);
  }
  expect_close(gebv, g_ref, 1e-8, "wheat fold 1 env 1 GEBV");
  expect_close(beta, {static_cast<double>(rhs[0])}, 1e-8, "wheat fold 1 env 1 intercept");
}

// ---- --keep with --grm: the kept rows and columns of G. Oracle: with h² fixed, animals without a
// phenotype do not change the BLUP of the others, so the kept samples' GEBVs equal those of a run
// on the whole GRM in which only the kept samples have phenotypes.
std::map<std::string, double> gebv_by_id(const std::string& path) {
  std::map<std::string, double> m;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string f, i, g;
    ss >> f >> i >> g;
    m[f + ' ' + i] = std::stod(g);
  }
  return m;
}

TEST(Gblup, KeepWithPrecomputedGrmSubsetsIt) {
  auto& w = test::work();
  const std::string sim = w.path("kg_sim"), grm = w.path("kg_grm");
  ASSERT_EQ(test::panoramix("simulate --samples 150 --variants 1500 --seed 4 --out " + test::shq(sim),
                            w.path("kg_sim.out")), 0);
  ASSERT_EQ(test::panoramix("grm --bfile " + test::shq(sim) + " --format gcta --out " + test::shq(grm),
                            w.path("kg_grm.out")), 0);
  const grm_file g = read_gcta_grm(grm);
  std::ofstream all(w.path("kg_all.txt")), part(w.path("kg_part.txt")), keep(w.path("kg_keep.txt"));
  all << "FID IID y\n";
  part << "FID IID y\n";
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  std::vector<std::string> kept;
  for (int64_t i = 0; i < g.n; ++i) {
    char y[32];
    std::snprintf(y, sizeof y, "%.17g", z(rng));  // the same text in both files
    const bool k = i % 3 != 1;
    all << g.fid[i] << ' ' << g.iid[i] << ' ' << y << '\n';
    part << g.fid[i] << ' ' << g.iid[i] << ' ' << (k ? y : "NA") << '\n';
    if (k) keep << g.fid[i] << ' ' << g.iid[i] << '\n', kept.push_back(g.fid[i] + ' ' + g.iid[i]);
  }
  all.close(), part.close(), keep.close();
  const std::string a = w.path("kg_a"), b = w.path("kg_b");
  ASSERT_EQ(test::panoramix("gblup --grm " + test::shq(grm) + " --keep " + test::shq(w.path("kg_keep.txt")) +
                                " --pheno " + test::shq(w.path("kg_all.txt")) + " --h2 0.4 --out " + test::shq(a),
                            a + ".out"), 0) << test::read_text(a + ".out");
  ASSERT_EQ(test::panoramix("gblup --grm " + test::shq(grm) + " --pheno " + test::shq(w.path("kg_part.txt")) +
                                " --h2 0.4 --out " + test::shq(b), b + ".out"), 0) << test::read_text(b + ".out");
  EXPECT_NE(test::read_text(a + ".log").find(std::to_string(kept.size()) + " of the 150 samples of the GRM kept"),
            std::string::npos);
  const auto ga = gebv_by_id(a + ".gebv"), gb = gebv_by_id(b + ".gebv");
  ASSERT_EQ(ga.size(), kept.size());
  ASSERT_EQ(gb.size(), 150u);
  double worst = 0, scale = 0;
  for (const auto& id : kept) {
    ASSERT_TRUE(ga.count(id)) << id;
    worst = std::max(worst, std::fabs(ga.at(id) - gb.at(id)));
    scale = std::max(scale, std::fabs(gb.at(id)));
  }
  EXPECT_LE(worst, 1e-9 * scale) << "max |GEBV difference| " << worst;
  // --extract means nothing for a precomputed GRM: an error, not silently ignored.
  const std::string e = w.path("kg_e");
  EXPECT_NE(test::panoramix("gblup --grm " + test::shq(grm) + " --extract " + test::shq(w.path("kg_keep.txt")) +
                                " --pheno " + test::shq(w.path("kg_all.txt")) + " --h2 0.4 --out " + test::shq(e),
                            e + ".out"), 0);
  EXPECT_NE(test::read_text(e + ".out").find("--extract"), std::string::npos);
}

// ---- input errors: message names the file/line and the problem; exit status non-zero; no output.
class GblupErrors : public ::testing::Test {
 protected:
  std::string wheat = test::shared_data("bglr_wheat/wheat_dart");
  void SetUp() override {
    if (wheat.empty()) GTEST_SKIP() << "bglr_wheat not found under ../shared/data";
  }
  // Runs gblup with `args`; expects failure, a message containing `expect`, and no .gebv.
  void expect_error(const std::string& args, const std::string& expect, const std::string& tag) {
    auto& w = test::work();
    const std::string out = w.path("err_" + tag);
    const int rc = test::panoramix("gblup " + args + " --out " + test::shq(out), out + ".stderr");
    EXPECT_NE(rc, 0) << tag;
    const std::string msg = test::read_text(out + ".stderr");
    EXPECT_NE(msg.find(expect), std::string::npos) << tag << ": " << msg;
    EXPECT_FALSE(std::ifstream(out + ".gebv").good()) << tag;
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = test::work().path(name);
    std::ofstream(p) << text;
    return p;
  }
};

TEST_F(GblupErrors, MissingPhenotypeFile) {
  expect_error("--bfile " + test::shq(wheat) + " --pheno /nonexistent/p.txt",
               "'/nonexistent/p.txt' cannot be opened", "nofile");
}

TEST_F(GblupErrors, MissingColumn) {
  const auto p = write("p1.txt", "FID IID yield\n775 775 1.0\n2166 2166 2.0\n");
  expect_error("--bfile " + test::shq(wheat) + " --pheno " + test::shq(p) + " --pheno-name height",
               "no column 'height' (columns: yield)", "nocol");
}

TEST_F(GblupErrors, NoPhenotypedSamples) {
  const auto p = write("p2.txt", "775 775 -9\n2166 2166 NA\n");
  expect_error("--bfile " + test::shq(wheat) + " --pheno " + test::shq(p),
               "no genotyped sample has a non-missing value", "nopheno");
}

TEST_F(GblupErrors, IdsNotFound) {
  const auto p = write("p3.txt", "FID IID y\nX1 X1 1.0\nX2 X2 2.0\n");
  expect_error("--bfile " + test::shq(wheat) + " --pheno " + test::shq(p),
               p + ":2: sample 'X1 X1' and every other sample of this file are missing", "noids");
}

TEST_F(GblupErrors, NotANumber) {
  const auto p = write("p4.txt", "775 775 1.0\n2166 2166 abc\n");
  expect_error("--bfile " + test::shq(wheat) + " --pheno " + test::shq(p),
               p + ":2: column 3 ('1'): value 'abc' is not a number", "nan");
}

TEST_F(GblupErrors, NonPositiveDefiniteGPlusLambdaI) {
  // A 6-sample GCTA GRM with eigenvalue −1 (diag(1,1,1,1,1,−1)): not a covariance matrix, refused
  // by the check of G before either evaluator sees it (issue #29; the evaluators' own refusal of an
  // indefinite h²G + (1−h²)I is test_reml's NonPositiveDefiniteHIsANumericError).
  auto& w = test::work();
  {
    std::ofstream id(w.path("neg.grm.id"));
    for (int i = 0; i < 6; ++i) id << "s" << i << " s" << i << '\n';
    std::ofstream bin(w.path("neg.grm.bin"), std::ios::binary);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j <= i; ++j) {
        const float v = i == j ? (i == 5 ? -1.0f : 1.0f) : 0.0f;
        bin.write(reinterpret_cast<const char*>(&v), sizeof v);
      }
  }
  const auto p = write("p5.txt", "s0 s0 1\ns1 s1 2\ns2 s2 0.5\ns3 s3 3\ns4 s4 1.5\ns5 s5 2.5\n");
  for (const char* ev : {"eigen", "cholesky"})
    expect_error("--grm " + test::shq(w.path("neg")) + " --pheno " + test::shq(p) +
                     " --h2 0.9 --reml-evaluator " + ev,
                 "--grm file '" + w.path("neg") + ".grm.bin': G is not positive semi-definite: its smallest "
                 "eigenvalue is -1 (largest 1)",
                 std::string("notpd_") + ev);
}

}  // namespace
}  // namespace pmx
