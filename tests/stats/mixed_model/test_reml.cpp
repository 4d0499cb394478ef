// REML over h²: the profiled likelihood against a long-double dense computation from V itself,
// its derivatives against finite differences, the eigen and Cholesky evaluators against each
// other, and the variance components of a real trait against GEMMA 0.98.5 on the same kinship.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <regex>
#include <sstream>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/reml.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using test::ld_solve;

struct problem {
  int64_t n, q;
  std::vector<double> G, A;  // G n×n, A = [1 x y] n×q column-major
};

// G with a spread of positive eigenvalues, an intercept and a covariate, y with a genetic part.
problem make_problem(int64_t n, uint64_t seed, double min_eig = 0.05) {
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = min_eig + 3.0 * std::pow(0.97, static_cast<double>(i));
  problem p{n, 3, test::matrix_with_spectrum(lambda, seed), {}};
  std::mt19937_64 rng(seed + 1);
  std::normal_distribution<double> z(0, 1);
  p.A.resize(n * 3);
  std::vector<double> e(n);
  for (auto& v : e) v = z(rng);
  for (int64_t i = 0; i < n; ++i) {
    p.A[i] = 1;
    p.A[n + i] = z(rng);
    double g = 0;  // a rough genetic value: G times noise, scaled
    for (int64_t j = 0; j < n; ++j) g += p.G[i * n + j] * e[j];
    p.A[2 * n + i] = 10 + 0.5 * p.A[n + i] + g + 0.7 * z(rng);
  }
  return p;
}


// The REML log-likelihood from V = σ²(h²G + (1−h²)I) directly (no Gram matrices, no profiling
// algebra): −½[(n−p)log 2π + log|V| + log|XᵀV⁻¹X| − log|XᵀX| + yᵀPy] with σ² = yᵀP_H y/(n−p).
long double dense_reml_logl(const problem& pr, double h2) {
  const int64_t n = pr.n, p = pr.q - 1;
  std::vector<long double> H(n * n), B(n * pr.q);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) H[i * n + j] = h2 * pr.G[i * n + j] + (i == j ? 1 - h2 : 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < pr.q; ++c) B[i * pr.q + c] = pr.A[c * n + i];
  const long double logdetH = ld_solve(H, B, n, pr.q);  // B = H⁻¹[X y]
  std::vector<long double> M(p * p), b(p), XtX(p * p);
  for (int64_t a = 0; a < p; ++a) {
    for (int64_t c = 0; c < p; ++c)
      for (int64_t i = 0; i < n; ++i) {
        M[a * p + c] += pr.A[a * n + i] * B[i * pr.q + c];
        XtX[a * p + c] += static_cast<long double>(pr.A[a * n + i]) * pr.A[c * n + i];
      }
    for (int64_t i = 0; i < n; ++i) b[a] += pr.A[a * n + i] * B[i * pr.q + p];
  }
  long double yHy = 0;
  for (int64_t i = 0; i < n; ++i) yHy += pr.A[p * n + i] * B[i * pr.q + p];
  std::vector<long double> beta(b);
  const long double logdetM = ld_solve(M, beta, p, 1);
  std::vector<long double> none(p);
  const long double logdetXtX = ld_solve(XtX, none, p, 1);
  long double yPy = yHy;
  for (int64_t a = 0; a < p; ++a) yPy -= b[a] * beta[a];
  const long double df = n - p, s2 = yPy / df;
  const long double logdetV = n * std::log(s2) + logdetH;
  const long double logdetXVX = logdetM - p * std::log(s2);
  return -0.5L * (df * std::log(2 * std::numbers::pi_v<long double>) + logdetV + logdetXVX -
                  logdetXtX + yPy / s2);
}

TEST(Reml, ProfiledLikelihoodMatchesDenseComputationFromV) {
  const auto pr = make_problem(80, 11);
  const auto ev = make_eigen_evaluator(executor(backend::cpu, 2), pr.n, pr.G.data(), pr.q, pr.A.data());
  const double ldxtx = logdet_xtx(executor(), pr.n, pr.q, pr.A.data());
  for (double h2 : {0.0, 0.1, 0.37, 0.8, 0.99}) {
    const auto pt = reml_profile(ev->host(), ev->evaluate(h2, h2_detail::value), pr.n, pr.q, ldxtx);
    const double ref = static_cast<double>(dense_reml_logl(pr, h2));
    EXPECT_NEAR(pt.logl, ref, 1e-11 * std::fabs(ref)) << "h2 = " << h2;
  }
}

TEST(Reml, DerivativesMatchFiniteDifferences) {
  const auto pr = make_problem(90, 5);
  for (int k = 0; k < 2; ++k) {
    const executor exec(backend::cpu, 2);
    const auto ev = k == 0 ? make_eigen_evaluator(exec, pr.n, pr.G.data(), pr.q, pr.A.data())
                           : make_cholesky_evaluator(exec, pr.n, pr.G.data(), pr.q, pr.A.data());
    const double ldxtx = logdet_xtx(executor(), pr.n, pr.q, pr.A.data());
    auto f = [&](double t) { return reml_profile(ev->host(), ev->evaluate(t, h2_detail::value), pr.n, pr.q, ldxtx); };
    for (double h2 : {0.2, 0.5, 0.75}) {
      const auto pt = reml_profile(ev->host(), ev->evaluate(h2, h2_detail::derivatives), pr.n, pr.q, ldxtx);
      const double h = 1e-4;
      const double d1 = (f(h2 + h).logl - f(h2 - h).logl) / (2 * h);
      const double d2 = (f(h2 + h).logl - 2 * f(h2).logl + f(h2 - h).logl) / (h * h);
      EXPECT_NEAR(pt.dlogl, d1, 1e-6 * (std::fabs(d1) + 1)) << ev->name() << " h2 = " << h2;
      EXPECT_NEAR(pt.d2logl, d2, 1e-4 * std::fabs(d2)) << ev->name() << " h2 = " << h2;
      // σ̂² is the stationary point of the unprofiled likelihood in σ² (sanity of yPy).
      EXPECT_NEAR(pt.sigma2, pt.yPy / (pr.n - 2), 1e-14 * pt.sigma2);
    }
  }
}

TEST(Reml, EigenAndCholeskyEvaluatorsAgree) {
  const auto pr = make_problem(150, 21);
  const executor exec(backend::cpu, 2);
  const auto e1 = make_eigen_evaluator(exec, pr.n, pr.G.data(), pr.q, pr.A.data());
  const auto e2 = make_cholesky_evaluator(exec, pr.n, pr.G.data(), pr.q, pr.A.data());
  for (double h2 : {0.0, 0.3, 0.9}) {
    const auto a = e1->evaluate(h2, h2_detail::derivatives), b = e2->evaluate(h2, h2_detail::derivatives);
    EXPECT_NEAR(a.logdet_H, b.logdet_H, 1e-11 * (std::fabs(b.logdet_H) + 1));
    EXPECT_NEAR(a.trace_Hinv, b.trace_Hinv, 1e-11 * b.trace_Hinv);
    EXPECT_NEAR(a.trace_Hinv2, b.trace_Hinv2, 1e-11 * b.trace_Hinv2);
    for (int k = 0; k < 3; ++k)
      for (size_t i = 0; i < a.gram[k].size(); ++i)
        EXPECT_NEAR(a.gram[k][i], b.gram[k][i], 1e-10 * (std::fabs(b.gram[k][i]) + 1));
  }
  const auto r1 = fit_reml(*e1), r2 = fit_reml(*e2);
  std::printf("eigen h2 %.15g logL %.15g (%d evaluations) | cholesky h2 %.15g logL %.15g (%d)\n",
              r1.h2, r1.logl, r1.evaluations, r2.h2, r2.logl, r2.evaluations);
  EXPECT_GT(r1.h2, 0.05);
  EXPECT_LT(r1.h2, 0.95);
  EXPECT_NEAR(r1.h2, r2.h2, 1e-8 * r2.h2);
  EXPECT_NEAR(r1.logl, r2.logl, 1e-8 * std::fabs(r2.logl));
  EXPECT_NEAR(r1.sigma2_g, r2.sigma2_g, 1e-8 * r2.sigma2_g);
  EXPECT_NEAR(r1.sigma2_e, r2.sigma2_e, 1e-8 * r2.sigma2_e);
  EXPECT_NEAR(r1.se_h2, r2.se_h2, 1e-6 * r2.se_h2);
  // The optimum: score zero, and no better point on a fine grid around it.
  const double ldxtx = logdet_xtx(executor(), pr.n, pr.q, pr.A.data());
  const auto pt = reml_profile(e1->host(), e1->evaluate(r1.h2, h2_detail::derivatives), pr.n, pr.q, ldxtx);
  EXPECT_LT(std::fabs(pt.dlogl), 1e-7 * std::fabs(pt.d2logl));
  for (double dh : {-1e-3, -1e-5, 1e-5, 1e-3})
    EXPECT_LE(reml_profile(e1->host(), e1->evaluate(r1.h2 + dh, h2_detail::value), pr.n, pr.q, ldxtx).logl, r1.logl);
}

TEST(Reml, AverageInformationIsHalfTheQuadraticForms) {
  // AI_ij = ½ yᵀP V_i P V_j P y computed here with explicit long-double P_V and V_g = G, V_e = I.
  const auto pr = make_problem(60, 8);
  const executor exec(backend::cpu, 1);
  const auto ev = make_eigen_evaluator(exec, pr.n, pr.G.data(), pr.q, pr.A.data());
  const double ldxtx = logdet_xtx(executor(), pr.n, pr.q, pr.A.data());
  const double h2 = 0.4;
  const auto pt = reml_profile(ev->host(), ev->evaluate(h2, h2_detail::information), pr.n, pr.q, ldxtx);
  const int64_t n = pr.n, p = 2;
  // P_V y from V⁻¹: solve V [I] in long double.
  std::vector<long double> V(n * n), Vi(n * n, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      V[i * n + j] = pt.sigma2 * (h2 * pr.G[i * n + j] + (i == j ? 1 - h2 : 0));
  for (int64_t i = 0; i < n; ++i) Vi[i * n + i] = 1;
  ld_solve(V, Vi, n, n);
  std::vector<long double> VX(n * p, 0), XVX(p * p, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t a = 0; a < p; ++a)
      for (int64_t k = 0; k < n; ++k) VX[i * p + a] += Vi[i * n + k] * pr.A[a * n + k];
  for (int64_t a = 0; a < p; ++a)
    for (int64_t b = 0; b < p; ++b)
      for (int64_t i = 0; i < n; ++i) XVX[a * p + b] += pr.A[a * n + i] * VX[i * p + b];
  auto applyP = [&](const std::vector<long double>& v) {
    std::vector<long double> Vv(n, 0), t(p, 0), out(n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < n; ++k) Vv[i] += Vi[i * n + k] * v[k];
    for (int64_t a = 0; a < p; ++a)
      for (int64_t i = 0; i < n; ++i) t[a] += VX[i * p + a] * v[i];
    ld_solve(XVX, t, p, 1);
    for (int64_t i = 0; i < n; ++i) {
      out[i] = Vv[i];
      for (int64_t a = 0; a < p; ++a) out[i] -= VX[i * p + a] * t[a];
    }
    return out;
  };
  std::vector<long double> y(n);
  for (int64_t i = 0; i < n; ++i) y[i] = pr.A[2 * n + i];
  const auto Py = applyP(y);
  std::vector<long double> GPy(n, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k) GPy[i] += pr.G[i * n + k] * Py[k];
  const auto PGPy = applyP(GPy), PPy = applyP(Py);
  long double gg = 0, ge = 0, ee = 0;
  for (int64_t i = 0; i < n; ++i) {
    gg += GPy[i] * PGPy[i];
    ge += GPy[i] * PPy[i];
    ee += Py[i] * PPy[i];
  }
  EXPECT_NEAR(pt.ai[0], 0.5 * static_cast<double>(gg), 1e-9 * std::fabs(0.5 * static_cast<double>(gg)));
  EXPECT_NEAR(pt.ai[1], 0.5 * static_cast<double>(ge), 1e-9 * std::fabs(0.5 * static_cast<double>(ge)));
  EXPECT_NEAR(pt.ai[2], 0.5 * static_cast<double>(ee), 1e-9 * std::fabs(0.5 * static_cast<double>(ee)));
}

TEST(Reml, KnownH2SplitsTheProfiledVariance) {
  const auto pr = make_problem(70, 3);
  const auto ev = make_cholesky_evaluator(executor(backend::cpu, 1), pr.n, pr.G.data(), pr.q, pr.A.data());
  const auto r = fit_known_h2(*ev, 0.25);
  EXPECT_FALSE(r.estimated);
  EXPECT_DOUBLE_EQ(r.sigma2_g, 0.25 * r.at.sigma2);
  EXPECT_DOUBLE_EQ(r.sigma2_e, 0.75 * r.at.sigma2);
  EXPECT_NEAR(r.logl, static_cast<double>(dense_reml_logl(pr, 0.25)), 1e-11 * std::fabs(r.logl));
  EXPECT_THROW(fit_known_h2(*ev, 1.0), input_error);
}

TEST(Reml, NonPositiveDefiniteHIsANumericError) {
  // G with eigenvalue −0.5: H = h²G + (1−h²)I is indefinite for h² > 2/3.
  const int64_t n = 30;
  std::vector<double> lambda(n, 1.0);
  lambda[n - 1] = -0.5;
  problem pr = make_problem(n, 4);
  pr.G = test::matrix_with_spectrum(lambda, 9);
  const executor exec(backend::cpu, 1);
  const auto e1 = make_eigen_evaluator(exec, n, pr.G.data(), pr.q, pr.A.data());
  const auto e2 = make_cholesky_evaluator(exec, n, pr.G.data(), pr.q, pr.A.data());
  EXPECT_THROW(fit_known_h2(*e1, 0.9), numeric_error);
  EXPECT_THROW(fit_known_h2(*e2, 0.9), numeric_error);
  EXPECT_NO_THROW(fit_known_h2(*e2, 0.5));
  // REML stays inside the region where H is positive definite.
  const auto r = fit_reml(*e1);
  EXPECT_LT(r.h2, 2.0 / 3.0);
}

// Issue #29: a NaN in G is refused before LAPACK's eigensolver sees it (it can iterate without end
// on one).
TEST(Reml, NonFiniteGIsRefusedBeforeTheEigensolver) {
  problem pr = make_problem(12, 6);
  pr.G[3 * 12 + 7] = pr.G[7 * 12 + 3] = std::nan("");
  try {
    make_eigen_evaluator(executor(backend::cpu, 1), pr.n, pr.G.data(), pr.q, pr.A.data());
    ADD_FAILURE() << "accepted";
  } catch (const numeric_error& e) {
    EXPECT_STREQ(e.what(), "eigen evaluator: G entry (4, 8) is not finite");
  }
}

// ---- GEMMA 0.98.5 on the HS mice, body weight (Obesity.EndNormalBW), sex as a covariate.
std::string gemma_value(const std::string& log, const std::string& key) {
  std::smatch m;
  const std::regex re("## " + key + " = +([-0-9.e+]+)");
  if (!std::regex_search(log, m, re)) return {};
  return m[1];
}

TEST(Reml, MiceBodyWeightMatchesGemma) {
  const std::string mice = test::shared_data("bglr_mice/mice");
  if (mice.empty()) GTEST_SKIP() << "bglr_mice not found under ../shared/data";
  if (!test::have_program("gemma")) GTEST_SKIP() << "gemma is not installed";
  auto& w = test::work();
  // Phenotype and covariate files from mice_pheno.csv (SUBJECT.NAME = FID = IID in mice.fam).
  std::ifstream csv(mice.substr(0, mice.rfind('/')) + "/mice_pheno.csv");
  std::string line;
  std::getline(csv, line);
  auto split = [](const std::string& s) {
    std::vector<std::string> f;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ',')) {
      if (x.size() >= 2 && x.front() == '"') x = x.substr(1, x.size() - 2);
      f.push_back(x);
    }
    return f;
  };
  const auto head = split(line);
  const auto col = [&](const std::string& name) {
    return std::find(head.begin(), head.end(), name) - head.begin();
  };
  const auto ibw = col("Obesity.EndNormalBW"), isex = col("GENDER");
  ASSERT_LT(ibw, static_cast<long>(head.size()));
  std::map<std::string, std::pair<std::string, std::string>> rows;
  {
    std::ofstream ph(w.path("bw.txt")), cv(w.path("sex.txt"));
    ph << "FID IID BW\n";
    cv << "FID IID sex\n";
    while (std::getline(csv, line)) {
      const auto f = split(line);
      const std::string sex = f[isex] == "M" ? "1" : "0";
      ph << f[0] << ' ' << f[0] << ' ' << f[ibw] << '\n';
      cv << f[0] << ' ' << f[0] << ' ' << sex << '\n';
      rows[f[0]] = {f[ibw] == "NA" ? "-9" : f[ibw], sex};
    }
  }
  ASSERT_EQ(test::panoramix("grm --bfile " + test::shq(mice) + " --out " + test::shq(w.path("mg")),
                            w.path("grm.out")), 0);
  ASSERT_EQ(test::panoramix("gblup --bfile " + test::shq(mice) + " --pheno " + test::shq(w.path("bw.txt")) +
                                " --pheno-name BW --covar " + test::shq(w.path("sex.txt")) +
                                " --covar-name sex --reml --out " + test::shq(w.path("bw")),
                            w.path("gblup.out")), 0);
  // GEMMA's inputs: kinship text (our G at full precision), a .fam with the trait, covariates
  // with GEMMA's explicit intercept column.
  const auto G = test::read_doubles(w.path("mg.rel.bin"));
  std::ifstream fam(mice + ".fam");
  std::ofstream gf(w.path("gm.fam")), gc(w.path("gm.cov")), gk(w.path("gm.K.txt"));
  std::vector<std::string> ids;
  while (std::getline(fam, line)) {
    std::stringstream ss(line);
    std::string a[6];
    for (auto& x : a) ss >> x;
    ids.push_back(a[1]);
    gf << a[0] << ' ' << a[1] << ' ' << a[2] << ' ' << a[3] << ' ' << a[4] << ' '
       << rows.at(a[1]).first << '\n';
    gc << "1 " << rows.at(a[1]).second << '\n';
  }
  const int64_t n = static_cast<int64_t>(ids.size());
  ASSERT_EQ(static_cast<int64_t>(G.size()), n * n);
  char buf[32];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      std::snprintf(buf, sizeof buf, "%.17g", G[i * n + j]);
      gk << buf << (j + 1 < n ? '\t' : '\n');
    }
  gf.close();
  gc.close();
  gk.close();
  test::run("ln -sf " + test::shq(mice + ".bed") + " " + test::shq(w.path("gm.bed")) + " && ln -sf " +
            test::shq(mice + ".bim") + " " + test::shq(w.path("gm.bim")) + " && head -1 " +
            test::shq(mice + ".bim") + " | cut -f2 > " + test::shq(w.path("one.snp")));
  // Null-model REML of -lmm 1 (one SNP analysed: only the null model matters here).
  ASSERT_EQ(test::run("cd " + test::shq(w.path("")) +
                          " && gemma -bfile gm -k gm.K.txt -c gm.cov -lmm 1 -snps one.snp -outdir gout -o g",
                      w.path("gemma.out")), 0);
  const std::string glog = test::read_text(w.path("gout/g.log.txt"));
  const double vg = std::stod(gemma_value(glog, "vg estimate in the null model"));
  const double ve = std::stod(gemma_value(glog, "ve estimate in the null model"));
  const double logl = std::stod(gemma_value(glog, "REMLE log-likelihood in the null model"));
  std::map<std::string, std::pair<double, double>> vc;
  {
    std::ifstream in(w.path("bw.vc"));
    std::string name, v, s;
    while (in >> name >> v >> s) vc[name] = {std::stod(v), s == "NA" ? NAN : std::stod(s)};
  }
  // GEMMA: V = vg K + ve I with K our G, so vg = σ²_g and ve = σ²_e (its pve = vg·tr(K)/n over
  // vg·tr(K)/n + ve is not our h²).
  EXPECT_NEAR(vc["sigma2_g"].first, vg, 1e-4 * vg);
  EXPECT_NEAR(vc["sigma2_e"].first, ve, 1e-4 * ve);
  // Same log-likelihood convention; GEMMA prints 6 significant digits: agree to half a unit of
  // the sixth.
  const double half_unit = 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(logl))) - 5);
  EXPECT_NEAR(vc["logL"].first, logl, half_unit * (1 + 1e-9));
  std::printf("GEMMA vg %.6g ve %.6g logL %.6g | panoramix sigma2_g %.10g sigma2_e %.10g logL %.10g\n",
              vg, ve, logl, vc["sigma2_g"].first, vc["sigma2_e"].first, vc["logL"].first);
  std::printf("relative differences: sigma2_g %.2e sigma2_e %.2e\n",
              std::fabs(vc["sigma2_g"].first - vg) / vg, std::fabs(vc["sigma2_e"].first - ve) / ve);
}

}  // namespace
}  // namespace pmx
