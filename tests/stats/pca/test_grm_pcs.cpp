// PCs of a GRM in memory (grm_pcs.hpp) on the cpu executor: eigenpairs against LAPACK's full
// eigendecomposition (dense_linalg symmetric_eigen) of the same G on a matrix of known spectrum,
// on mice and hapmap3 (VanRaden and standardized GRMs); `gblup --pcs` through the binary against
// the same oracle (and its GEBV unchanged by --pcs); the shifted_multiply op against a long-double
// product and the a = 0 closed form of shifted_cholesky_solve.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/grm_pcs.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// |cos| of the angle between two n-vectors, in long double.
double abs_cos(const double* x, const double* y, int64_t n) {
  long double xy = 0, xx = 0, yy = 0;
  for (int64_t i = 0; i < n; ++i)
    xy += (long double)x[i] * y[i], xx += (long double)x[i] * x[i], yy += (long double)y[i] * y[i];
  return static_cast<double>(std::fabs(xy) / std::sqrt(xx * yy));
}

// The top `count` eigenpairs of symmetric G (row-major n × n) by LAPACK on a copy: the oracle.
void lapack_top(const std::vector<double>& G, int64_t n, int64_t count, std::vector<double>& values,
                std::vector<double>& vectors) {
  std::vector<double> copy(G);
  values.assign(static_cast<size_t>(count), 0.0);
  vectors.assign(static_cast<size_t>(n * count), 0.0);
  symmetric_eigen(executor(backend::cpu, 2), n, copy.data(), n, count, values.data(), vectors.data(), n);
}

// Eigenvalues within `tol_value` relative to λ_1; vectors |cos| ≥ 1 − tol_cos wherever the
// component's gap to its neighbours exceeds 1e-4 λ_1 (elsewhere a vector is not determined).
void expect_matches_lapack(const std::vector<double>& G, int64_t n, const grm_pcs_result& r, double tol_value,
                           double tol_cos, const std::string& what) {
  const int64_t m = r.pcs;
  std::vector<double> lambda, u;
  lapack_top(G, n, std::min(n, m + 1), lambda, u);
  double worst_value = 0, worst_cos = 1;
  for (int64_t c = 0; c < m; ++c) {
    worst_value = std::max(worst_value, std::fabs(r.values[c] - lambda[c]) / std::fabs(lambda[0]));
    const double gap = std::min(c ? lambda[c - 1] - lambda[c] : INFINITY,
                                c + 1 < static_cast<int64_t>(lambda.size()) ? lambda[c] - lambda[c + 1] : INFINITY);
    const double cs = abs_cos(r.vectors.data() + c * n, u.data() + c * n, n);
    if (gap > 1e-4 * std::fabs(lambda[0])) {
      EXPECT_GE(cs, 1 - tol_cos) << what << ": component " << c + 1 << " (gap " << gap << ")";
      worst_cos = std::min(worst_cos, cs);
    }
  }
  EXPECT_LE(worst_value, tol_value) << what;
  EXPECT_TRUE(r.converged) << what;
  std::printf("%s: n = %lld, %d steps, %lld products, residual %.2e; max |dlambda|/lambda_1 = %.2e, min |cos| = %.15f\n",
              what.c_str(), static_cast<long long>(n), r.iterations, static_cast<long long>(r.products),
              r.max_residual, worst_value, worst_cos);
}

TEST(GrmPcs, KnownSpectrumMatchesLapack) {
  // 10 separated eigenvalues above a bulk of 290 in [0, 1], and a few small negative ones.
  const int64_t n = 300;
  std::vector<double> lambda(n);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u01(0, 1);
  for (int64_t i = 0; i < n; ++i) lambda[i] = i < 10 ? 20.0 - 1.5 * i : (i < 295 ? u01(rng) : -0.05 * u01(rng));
  const std::vector<double> G = test::matrix_with_spectrum(lambda, 17);
  const shifted_operand op(executor(backend::cpu, 2), n, G.data(), n);
  grm_pcs_options o;
  o.tolerance = 1e-11;
  const grm_pcs_result r = grm_top_eigenpairs(op, o, nullptr);
  ASSERT_EQ(r.values.size(), 10u);
  for (int c = 0; c < 10; ++c) EXPECT_NEAR(r.values[c], 20.0 - 1.5 * c, 1e-11 * 20) << c;
  expect_matches_lapack(G, n, r, 1e-12, 1e-12, "known spectrum");
  // Signs as `pca` writes them: the entry of largest magnitude is positive.
  for (int c = 0; c < 10; ++c) {
    const double* v = r.vectors.data() + c * n;
    int64_t at = 0;
    for (int64_t i = 1; i < n; ++i)
      if (std::fabs(v[i]) > std::fabs(v[at])) at = i;
    EXPECT_GT(v[at], 0) << c;
  }
}

TEST(GrmPcs, WholeSpaceAndOneComponent) {
  // l = n (pcs + oversample ≥ n): one Rayleigh–Ritz step is the full decomposition.
  const std::vector<double> lambda = {5, 4, 3, 2, 1, 0.5};
  const std::vector<double> G = test::matrix_with_spectrum(lambda, 5);
  const shifted_operand op(executor(backend::cpu, 1), 6, G.data(), 6);
  grm_pcs_options o;
  o.pcs = 6;
  const grm_pcs_result all = grm_top_eigenpairs(op, o, nullptr);
  for (int c = 0; c < 6; ++c) EXPECT_NEAR(all.values[c], lambda[c], 1e-13) << c;
  o.pcs = 1;
  o.oversample = 0;  // a single vector: power steps, the filter has no block end to damp
  o.tolerance = 1e-10;
  const grm_pcs_result one = grm_top_eigenpairs(op, o, nullptr);
  EXPECT_NEAR(one.values[0], 5.0, 1e-12);
}

TEST(GrmPcs, InputErrors) {
  const std::vector<double> G = test::matrix_with_spectrum({3, 2, 1}, 1);
  const shifted_operand op(executor(backend::cpu, 1), 3, G.data(), 3);
  grm_pcs_options o;
  o.pcs = 0;
  EXPECT_THROW(grm_top_eigenpairs(op, o, nullptr), input_error);
  o.pcs = 4;
  EXPECT_THROW(grm_top_eigenpairs(op, o, nullptr), input_error);
  o.pcs = 2;
  o.tolerance = 0;
  EXPECT_THROW(grm_top_eigenpairs(op, o, nullptr), input_error);
}

// Issue #29: a NaN in G never meets the Ritz tolerance (and can hang LAPACK's eigensolver): the
// iteration stops at its first step with a named error instead of running max_iterations steps.
TEST(GrmPcs, NonFiniteMatrixStopsWithANamedError) {
  std::vector<double> G = test::matrix_with_spectrum({3, 2, 1, 0.5, 0.25}, 1);
  G[2 * 5 + 1] = G[1 * 5 + 2] = std::nan("");
  const shifted_operand op(executor(backend::cpu, 1), 5, G.data(), 5);
  grm_pcs_options o;
  o.pcs = 2, o.oversample = 1, o.max_iterations = 1000000;
  try {
    grm_top_eigenpairs(op, o, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const numeric_error& e) {
    EXPECT_STREQ(e.what(), "principal components of G: the operator gave a non-finite value at subspace step 1 (a NaN "
                           "or infinity in the matrix)");
  }
}

// ---- real data: the GRM of compute_grm, as gblup builds it (X/Y/MT dropped)
std::vector<double> real_grm(const std::string& prefix, grm_method method, int64_t& n) {
  plink_fileset data(prefix);
  const chromosome_set chroms = chromosome_set::human();
  data.filter_variants([&](const variant_record& v) { return chroms.diploid(v.chrom); });
  grm_options go;
  go.method = method;
  go.pair_counts = false;
  grm_result g = compute_grm(executor(backend::cpu, 2), data, go, nullptr);
  n = g.n;
  return std::vector<double>(g.G.begin(), g.G.end());
}

struct dataset {
  const char* name;
  const char* prefix;
};

class GrmPcsRealData : public ::testing::TestWithParam<dataset> {};

TEST_P(GrmPcsRealData, MatchesLapackFullDecomposition) {
  const std::string prefix = test::shared_data(GetParam().prefix);
  if (prefix.empty()) GTEST_SKIP() << GetParam().prefix << " not found under ../shared/data";
  for (const grm_method method : {grm_method::vanraden, grm_method::standardized}) {
    int64_t n = 0;
    const std::vector<double> G = real_grm(prefix, method, n);
    const shifted_operand op(executor(backend::cpu, 2), n, G.data(), n);
    grm_pcs_options o;
    o.tolerance = 1e-10;
    const grm_pcs_result r = grm_top_eigenpairs(op, o, nullptr);
    expect_matches_lapack(G, n, r, 1e-12, 1e-10,
                          std::string(GetParam().name) + (method == grm_method::vanraden ? " vanraden" : " standardized"));
  }
}

INSTANTIATE_TEST_SUITE_P(Datasets, GrmPcsRealData,
                         ::testing::Values(dataset{"mice", "bglr_mice/mice"},
                                           dataset{"hapmap3", "hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap"}),
                         [](const ::testing::TestParamInfo<dataset>& i) { return std::string(i.param.name); });

// ---- gblup --pcs through the binary
std::vector<std::vector<std::string>> read_fields(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    rows.emplace_back();
    for (std::string f; ls >> f;) rows.back().push_back(f);
  }
  return rows;
}

TEST(GrmPcs, GblupPcsMatchLapackAndLeaveGebvUnchanged) {
  const std::string prefix = test::shared_data("bglr_mice/mice");
  if (prefix.empty()) GTEST_SKIP() << "bglr_mice not found under ../shared/data";
  auto& w = test::work();
  {  // a phenotype for every other sample (the rest get predictions only)
    std::ifstream fam(prefix + ".fam");
    std::ofstream ph(w.path("mpheno.txt"));
    ph << "FID IID y\n";
    std::mt19937_64 rng(9);
    std::normal_distribution<double> z;
    int i = 0;
    for (std::string f, iid, rest; fam >> f >> iid && std::getline(fam, rest); ++i)
      ph << f << ' ' << iid << ' ' << (i % 2 ? std::to_string(z(rng)) : std::string("NA")) << '\n';
  }
  const std::string common = "gblup --bfile " + test::shq(prefix) + " --pheno " + test::shq(w.path("mpheno.txt")) +
                             " --pheno-name y --h2 0.4 --method vanraden --threads 2";
  ASSERT_EQ(test::panoramix(common + " --pcs 6 --pc-tol 1e-10 --out " + test::shq(w.path("mp")), w.path("mp.out")), 0)
      << test::read_text(w.path("mp.out"));
  ASSERT_EQ(test::panoramix(common + " --out " + test::shq(w.path("m0")), w.path("m0.out")), 0);
  EXPECT_NE(test::read_text(w.path("mp.log")).find("PCs of the fitted GRM itself (--method vanraden)"),
            std::string::npos);
  int64_t n = 0;
  const std::vector<double> G = real_grm(prefix, grm_method::vanraden, n);
  std::vector<double> lambda, u;
  lapack_top(G, n, 7, lambda, u);
  const auto val = read_fields(w.path("mp.eigenval")), vec = read_fields(w.path("mp.eigenvec"));
  ASSERT_EQ(val.size(), 6u);
  ASSERT_EQ(static_cast<int64_t>(vec.size()), n);
  const auto fam = read_fields(prefix + ".fam");
  for (int c = 0; c < 6; ++c) {
    // Printed to 10 significant digits.
    EXPECT_NEAR(std::stod(val[c][0]), lambda[c], 1e-9 * lambda[c]) << c;
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(vec[i].size(), 8u);
      if (c == 0) { EXPECT_EQ(vec[i][1], fam[i][1]); }
      v[i] = std::stod(vec[i][2 + c]);
    }
    EXPECT_GE(abs_cos(v.data(), u.data() + c * n, n), 1 - 1e-9) << c;
  }
  // The fit does not depend on --pcs (ĝ from the same resident G).
  const auto g1 = read_fields(w.path("mp.gebv")), g0 = read_fields(w.path("m0.gebv"));
  ASSERT_EQ(g1.size(), g0.size());
  double worst = 0, scale = 0;
  for (size_t i = 1; i < g1.size(); ++i) {
    worst = std::max(worst, std::fabs(std::stod(g1[i][2]) - std::stod(g0[i][2])));
    scale = std::max(scale, std::fabs(std::stod(g0[i][2])));
  }
  EXPECT_LE(worst, 1e-13 * scale);
  // Input errors name the option.
  EXPECT_NE(test::panoramix(common + " --pcs -1 --out " + test::shq(w.path("me")), w.path("me.out")), 0);
  EXPECT_NE(test::read_text(w.path("me.out")).find("--pcs"), std::string::npos);
  EXPECT_NE(test::panoramix(common + " --pcs 100000 --out " + test::shq(w.path("me2")), w.path("me2.out")), 0);
  EXPECT_NE(test::read_text(w.path("me2.out")).find("exceeds the number of samples"), std::string::npos);
}

// ---- the op under the PCs and ĝ
TEST(ShiftedMultiply, CpuMatchesLongDoubleProduct) {
  const int64_t n = 37, m = 3, ld = 41;
  std::vector<double> lam(n);
  for (int64_t i = 0; i < n; ++i) lam[i] = std::sin(1.0 + i);
  const std::vector<double> S = test::matrix_with_spectrum(lam, 4);
  std::mt19937_64 rng(8);
  std::normal_distribution<double> z;
  std::vector<double> X(ld * m), Y(ld * m, 7.0);
  for (double& x : X) x = z(rng);
  const double a = 0.7, b = -0.3;
  const shifted_operand op(executor(backend::cpu, 2), n, S.data(), n);
  shifted_multiply(op, a, b, m, X.data(), ld, Y.data(), ld);
  double worst = 0;
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = 0; i < n; ++i) {
      long double s = static_cast<long double>(b) * X[c * ld + i];
      for (int64_t k = 0; k < n; ++k) s += static_cast<long double>(a) * S[k * n + i] * X[c * ld + k];
      worst = std::max(worst, static_cast<double>(std::fabs(s - Y[c * ld + i])));
    }
  EXPECT_LE(worst, 1e-13);
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = n; i < ld; ++i) EXPECT_EQ(Y[c * ld + i], 7.0) << "padding written";
}

TEST(ShiftedSolve, ZeroScaleIsClosedForm) {
  // a = 0: (b I) X = B without a factorisation; b ≤ 0 is not positive definite.
  const std::vector<double> S = test::matrix_with_spectrum({3, 2, 1, 0.5}, 6);
  const shifted_operand op(executor(backend::cpu, 1), 4, S.data(), 4);
  std::vector<double> B = {1, 2, 3, 4, 5, 6, 7, 8};
  const double logdet = shifted_cholesky_solve(op, 0.0, 2.0, 2, B.data(), 4);
  EXPECT_DOUBLE_EQ(logdet, 4 * std::log(2.0));
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(B[i], (i + 1) / 2.0);
  EXPECT_THROW(shifted_cholesky_solve(op, 0.0, 0.0, 2, B.data(), 4), numeric_error);
}

}  // namespace
}  // namespace pmx
