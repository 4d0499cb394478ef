// panoramix pca against independent oracles:
//  * PLINK 1.9 --pca on the real datasets (hapmap3: 0.15 % missing calls; mice: none): eigenvalues
//    to every digit PLINK prints (6 significant), and to 1e-6 relative against the full-precision
//    eigenvalues of PLINK's own matrix (--make-rel square bin of the same run, decomposed here by
//    LAPACK: --pca is dsyevr on exactly that matrix); eigenvectors up to sign, |cos| >= 0.999999.
//    Both the randomized path and --exact.
//  * A simulated structured set with missing calls (uneven per sample, an all-missing and a
//    monomorphic variant) against the definition in pca.hpp computed here in long double from the
//    raw codes: PLINK's pairwise matrix (default) and Z Zᵀ/k (--missing impute).
//  * The dense_linalg additions (orthonormalize, dense_gemm) against plain loops.
//  * Bad requests: clear message, non-zero exit, no outputs left.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/pca.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

std::vector<double> read_eigenval(const std::string& path) {
  std::ifstream in(path);
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return v;
}

struct eigenvec_file {
  std::vector<std::string> ids;  ///< "FID IID"
  std::vector<double> v;         ///< n × m column-major
  int64_t m = 0;
};

eigenvec_file read_eigenvec(const std::string& path) {
  std::ifstream in(path);
  eigenvec_file f;
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string fid, iid;
    ls >> fid >> iid;
    f.ids.push_back(fid + " " + iid);
    rows.emplace_back();
    for (double x; ls >> x;) rows.back().push_back(x);
  }
  const auto n = static_cast<int64_t>(rows.size());
  f.m = n ? static_cast<int64_t>(rows[0].size()) : 0;
  f.v.resize(static_cast<size_t>(n * f.m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < f.m; ++c) f.v[c * n + i] = rows[i].at(c);
  return f;
}

// |cos| of the angle between column a of x and column b of y (both n long).
double abs_cos(const double* x, const double* y, int64_t n) {
  long double xy = 0, xx = 0, yy = 0;
  for (int64_t i = 0; i < n; ++i) xy += (long double)x[i] * y[i], xx += (long double)x[i] * x[i], yy += (long double)y[i] * y[i];
  return static_cast<double>(std::fabs(xy) / std::sqrt(xx * yy));
}

// Half a unit in the 6th significant digit: how far PLINK's printed value may be from the truth.
double print_half_unit(double v) { return 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 5); }

// Eigenpairs of a symmetric n × n matrix (row-major) by the dense LAPACK op.
void dense_eigen(std::vector<double> A, int64_t n, int64_t count, std::vector<double>& values,
                 std::vector<double>& vectors) {
  values.resize(static_cast<size_t>(count));
  vectors.resize(static_cast<size_t>(n * count));
  symmetric_eigen(executor(backend::cpu, 2), n, A.data(), n, count, values.data(), vectors.data(), n);
}

// ------------------------------------------------------------------------------------------------
// Real data vs PLINK 1.9

struct dataset {
  std::string name, source;
};
void PrintTo(const dataset& d, std::ostream* os) { *os << d.name; }

class PcaVsPlink : public ::testing::TestWithParam<dataset> {
 protected:
  static constexpr int pcs = 10;
  void SetUp() override {
    if (!have_program("plink1.9")) GTEST_SKIP() << "plink1.9 is not on PATH; cannot compare against it";
    input_ = shared_data(GetParam().source);
    if (input_.empty()) GTEST_SKIP() << "dataset " << GetParam().source << " not found under " << PMX_SHARED_DATA;
    const std::string in = "--bfile " + shq(input_);
    plink_ = work().path(GetParam().name + ".plink19");
    const int rc = run_once("plink1.9 " + in + " --keep-allele-order --pca " + std::to_string(pcs) +
                                " --make-rel square bin --threads 2 --out " + shq(plink_),
                            plink_ + ".txt");
    ASSERT_EQ(rc, 0) << read_text(plink_ + ".txt");
  }
  /// Runs panoramix pca once with `extra` flags; returns its output prefix.
  std::string ours(const std::string& tag, const std::string& extra) {
    const std::string out = work().path(GetParam().name + "." + tag);
    const int rc = run_once(std::string(PMX_BINARY) + " pca --bfile " + shq(input_) + " --pcs " +
                                std::to_string(pcs) + " --threads 2 " + extra + " --out " + shq(out),
                            out + ".txt");
    EXPECT_EQ(rc, 0) << read_text(out + ".txt");
    return out;
  }
  /// Full-precision eigenpairs of PLINK's own relationship matrix (pcs + 1, for the gaps).
  void plink_matrix_eigen(std::vector<double>& values, std::vector<double>& vectors, int64_t& n) {
    const std::vector<double> rel = read_doubles(plink_ + ".rel.bin");
    n = static_cast<int64_t>(std::llround(std::sqrt(double(rel.size()))));
    ASSERT_EQ(n * n, static_cast<int64_t>(rel.size()));
    dense_eigen(rel, n, pcs + 1, values, vectors);
  }
  void compare(const std::string& prefix) {
    const auto val = read_eigenval(prefix + ".eigenval"), pval = read_eigenval(plink_ + ".eigenval");
    const auto vec = read_eigenvec(prefix + ".eigenvec"), pvec = read_eigenvec(plink_ + ".eigenvec");
    ASSERT_EQ(val.size(), size_t(pcs));
    ASSERT_EQ(pval.size(), size_t(pcs));
    ASSERT_EQ(vec.ids, pvec.ids);
    ASSERT_EQ(vec.m, pcs);
    std::vector<double> lambda, u;
    int64_t n = 0;
    plink_matrix_eigen(lambda, u, n);
    ASSERT_EQ(n, static_cast<int64_t>(vec.ids.size()));
    double worst_rel = 0, worst_cos = 1;
    for (int c = 0; c < pcs; ++c) {
      // Only components with a clear eigengap are determined to 1e-6 (all ten are, on both sets).
      const double gap = std::min(c ? lambda[c - 1] - lambda[c] : INFINITY, lambda[c] - lambda[c + 1]);
      ASSERT_GT(gap, 1e-3 * lambda[c]) << "component " << c + 1 << " has no clear eigengap";
      EXPECT_LE(std::fabs(val[c] - pval[c]), print_half_unit(pval[c]) * (1 + 1e-9))
          << "PC" << c + 1 << ": " << val[c] << " vs plink1.9 " << pval[c];
      const double rel = std::fabs(val[c] - lambda[c]) / lambda[c];
      EXPECT_LE(rel, 1e-6) << "PC" << c + 1 << ": " << val[c] << " vs " << lambda[c];
      worst_rel = std::max(worst_rel, rel);
      const double cos_plink = abs_cos(vec.v.data() + c * n, pvec.v.data() + c * n, n);
      const double cos_exact = abs_cos(vec.v.data() + c * n, u.data() + c * n, n);
      EXPECT_GE(cos_plink, 0.999999) << "PC" << c + 1 << " vs plink1.9 .eigenvec";
      EXPECT_GE(cos_exact, 0.999999) << "PC" << c + 1 << " vs the eigenvector of plink1.9's matrix";
      worst_cos = std::min({worst_cos, cos_plink, cos_exact});
    }
    std::printf("[ %s ] eigenvalues: max relative difference %.2e from plink1.9's matrix; "
                "min |cos| %.12f\n", prefix.c_str(), worst_rel, worst_cos);
  }
  std::string input_, plink_;
};

TEST_P(PcaVsPlink, Randomized) { compare(ours("rand", "")); }
TEST_P(PcaVsPlink, Exact) { compare(ours("exact", "--exact")); }

INSTANTIATE_TEST_SUITE_P(Datasets, PcaVsPlink,
                         ::testing::Values(dataset{"hapmap3", "hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap"},
                                           dataset{"mice", "bglr_mice/mice"}),
                         [](const ::testing::TestParamInfo<dataset>& i) { return i.param.name; });

// ------------------------------------------------------------------------------------------------
// Simulated structured data with missing calls vs the definition, in long double

struct simulated {
  int64_t n = 0, k = 0;
  packed_genotypes g;
  std::string prefix;
};

// Four populations (frequencies drift apart), ~3 % missing calls with a few samples at 10-12 %,
// variant 0 missing everywhere, variant 1 monomorphic. With `few_missing`, only those few samples
// (7 of 161) have missing calls besides variant 0: the randomized path then gathers their rows
// alone instead of transposing the whole matrix.
simulated make_structured_set(bool few_missing) {
  simulated r;
  r.n = 161, r.k = 700;
  r.g = packed_genotypes(r.n, r.k);
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t j = 0; j < r.k; ++j) {
    const double base = 0.1 + 0.8 * u(rng);
    double pop[4];
    for (double& q : pop) q = std::clamp(base + 0.25 * (u(rng) - 0.5), 0.02, 0.98);
    for (int64_t i = 0; i < r.n; ++i) {
      const double q = pop[i % 4], miss = (i % 23 == 5) ? 0.11 : few_missing ? 0.0 : 0.03;
      int x = (u(rng) < q) + (u(rng) < q);
      if (j == 1) x = 2;
      uint8_t code = x == 2 ? code_hom_a1 : x == 1 ? code_het : code_hom_a2;
      if (j == 0 || (j != 1 && u(rng) < miss)) code = code_missing;
      r.g.set(i, j, code);
    }
  }
  std::vector<sample_record> samples(static_cast<size_t>(r.n));
  for (int64_t i = 0; i < r.n; ++i)
    samples[i] = {"pop" + std::to_string(i % 4), "s" + std::to_string(i), "0", "0", 0, "-9"};
  std::vector<variant_record> variants(static_cast<size_t>(r.k));
  for (int64_t j = 0; j < r.k; ++j)
    variants[j] = {std::to_string(1 + j * 5 / r.k), "v" + std::to_string(j), 0, 1000 + j, "A", "G"};
  r.prefix = work().path(few_missing ? "structured_few_missing" : "structured");
  write_plink_fileset(r.prefix, samples, variants, r.g.view());
  return r;
}

const simulated& structured_set() {
  static const simulated s = make_structured_set(false);
  return s;
}

// G of pca.hpp from the raw codes: `pairwise` = PLINK (S_ij / N_ij), else S / k.
std::vector<double> oracle_grm(const simulated& s, bool pairwise) {
  const int64_t n = s.n, k = s.k;
  std::vector<std::vector<long double>> z(static_cast<size_t>(k), std::vector<long double>(n, 0));
  std::vector<std::vector<char>> called(static_cast<size_t>(k), std::vector<char>(n, 0));
  for (int64_t j = 0; j < k; ++j) {
    long double sum = 0;
    int64_t cnt = 0;
    for (int64_t i = 0; i < n; ++i)
      if (int x = dosage(s.g, i, j); x >= 0) sum += x, ++cnt, called[j][i] = 1;
    const long double p = cnt ? sum / (2 * cnt) : 0.5L;
    const long double sc = (p > 0 && p < 1) ? 1 / std::sqrt(2 * p * (1 - p)) : 0;
    for (int64_t i = 0; i < n; ++i)
      if (int x = dosage(s.g, i, j); x >= 0) z[j][i] = (x - 2 * p) * sc;
  }
  std::vector<double> G(static_cast<size_t>(n * n));
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b <= a; ++b) {
      long double num = 0;
      int64_t both = 0;
      for (int64_t j = 0; j < k; ++j) num += z[j][a] * z[j][b], both += called[j][a] && called[j][b];
      G[a * n + b] = G[b * n + a] = static_cast<double>(num / (pairwise ? both : k));
    }
  return G;
}

void expect_matches_oracle(const pca_result& r, const std::vector<double>& G, int64_t n, const char* what) {
  std::vector<double> lambda, u;
  dense_eigen(G, n, r.pcs + 1, lambda, u);
  for (int64_t c = 0; c < r.pcs; ++c) {
    ASSERT_GT(std::min(c ? lambda[c - 1] - lambda[c] : INFINITY, lambda[c] - lambda[c + 1]), 1e-2 * lambda[c])
        << what << ": simulated component " << c + 1 << " lacks a clear gap";
    EXPECT_NEAR(r.values[c], lambda[c], 1e-9 * lambda[c]) << what << " PC" << c + 1;
    EXPECT_GE(abs_cos(r.vectors.data() + c * n, u.data() + c * n, n), 1 - 1e-9) << what << " PC" << c + 1;
  }
}

TEST(PcaSimulated, BothPathsMatchPlinkDefinitionWithMissingCalls) {
  const simulated& s = structured_set();
  const plink_fileset data(s.prefix);
  const auto G = oracle_grm(s, true);
  const executor exec(backend::cpu, 2);
  pca_options o;
  o.pcs = 3;
  const pca_result rand = compute_pca(exec, data, o, nullptr);
  EXPECT_TRUE(rand.converged);
  EXPECT_GT(rand.series_terms, 1);                  // uneven per-sample missingness: series used
  EXPECT_EQ(rand.samples_with_missing, s.n);        // > n / 4: the whole matrix transposed
  int64_t sharing = 0;  // pairs sharing a missing call on a variant that has calls
  for (int64_t a = 0; a < s.n; ++a)
    for (int64_t b = 0; b < a; ++b)
      for (int64_t j = 1; j < s.k; ++j)
        if (dosage(s.g, a, j) < 0 && dosage(s.g, b, j) < 0) {
          ++sharing;
          break;
        }
  EXPECT_EQ(rand.missing_pairs, sharing);
  EXPECT_GT(sharing, 0);
  expect_matches_oracle(rand, G, s.n, "randomized");
  o.exact = true;
  expect_matches_oracle(compute_pca(exec, data, o, nullptr), G, s.n, "exact");
}

TEST(PcaSimulated, FewSamplesWithMissingCallsAreGatheredAlone) {
  static const simulated s = make_structured_set(true);
  const plink_fileset data(s.prefix);
  const auto G = oracle_grm(s, true);
  pca_options o;
  o.pcs = 3;
  for (int threads : {1, 2}) {
    const pca_result rand = compute_pca(executor(backend::cpu, threads), data, o, nullptr);
    EXPECT_TRUE(rand.converged);
    EXPECT_EQ(rand.samples_with_missing, 7);  // ≤ n / 4: their rows gathered, no transpose
    EXPECT_GT(rand.missing_pairs, 0);
    expect_matches_oracle(rand, G, s.n, "randomized, few samples with missing calls");
  }
}

TEST(PcaSimulated, MeanImputeIsZZtOverK) {
  const simulated& s = structured_set();
  const plink_fileset data(s.prefix);
  pca_options o;
  o.pcs = 3;
  o.missing = pca_missing_mode::mean_impute;
  const pca_result r = compute_pca(executor(backend::cpu, 2), data, o, nullptr);
  expect_matches_oracle(r, oracle_grm(s, false), s.n, "mean-impute");
}

TEST(PcaSimulated, TooManyMissingPairsIsRefusedWithReason) {
  const simulated& s = structured_set();
  const plink_fileset data(s.prefix);
  pca_options o;
  o.pcs = 2;
  o.max_missing_pairs = 100;
  try {
    compute_pca(executor(backend::cpu, 2), data, o, nullptr);
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("--missing impute"), std::string::npos) << e.what();
  }
}

TEST(PcaSimulated, CommandLineWritesPlinkLayout) {
  const simulated& s = structured_set();
  const std::string out = work().path("structured.cli");
  ASSERT_EQ(panoramix("pca --bfile " + shq(s.prefix) + " --pcs 3 --threads 2 --out " + shq(out), out + ".txt"), 0)
      << read_text(out + ".txt");
  const auto val = read_eigenval(out + ".eigenval");
  const auto vec = read_eigenvec(out + ".eigenvec");
  ASSERT_EQ(val.size(), 3u);
  ASSERT_EQ(vec.ids.size(), size_t(s.n));
  EXPECT_EQ(vec.ids[0], "pop0 s0");
  EXPECT_EQ(vec.m, 3);
  std::vector<double> lambda, u;
  dense_eigen(oracle_grm(s, true), s.n, 3, lambda, u);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(val[c], lambda[c], 1e-8 * lambda[c]);
    EXPECT_GE(abs_cos(vec.v.data() + c * s.n, u.data() + c * s.n, s.n), 0.999999);
  }
  EXPECT_NE(read_text(out + ".log").find("subspace iterations"), std::string::npos);
}

// ------------------------------------------------------------------------------------------------
// dense_linalg additions

TEST(DenseLinalgAdditions, OrthonormalizeKeepsTheSpan) {
  const int64_t rows = 37, cols = 7, ld = 40;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> nd;
  std::vector<double> A(static_cast<size_t>(ld * cols));
  for (double& a : A) a = nd(rng);
  std::vector<double> Q = A;
  orthonormalize(executor(backend::cpu, 1), rows, cols, Q.data(), ld);
  for (int64_t a = 0; a < cols; ++a)
    for (int64_t b = 0; b < cols; ++b) {
      long double d = 0;
      for (int64_t i = 0; i < rows; ++i) d += (long double)Q[a * ld + i] * Q[b * ld + i];
      EXPECT_NEAR(static_cast<double>(d), a == b ? 1.0 : 0.0, 1e-14);
    }
  for (int64_t c = 0; c < cols; ++c) {  // A's columns lie in span Q: A − Q Qᵀ A = 0
    for (int64_t i = 0; i < rows; ++i) {
      long double proj = 0;
      for (int64_t b = 0; b < cols; ++b) {
        long double qa = 0;
        for (int64_t r = 0; r < rows; ++r) qa += (long double)Q[b * ld + r] * A[c * ld + r];
        proj += Q[b * ld + i] * qa;
      }
      EXPECT_NEAR(static_cast<double>(proj), A[c * ld + i], 1e-12);
    }
  }
}

TEST(DenseLinalgAdditions, DenseGemmMatchesLoops) {
  const int64_t m = 5, n = 4, k = 6;
  std::vector<double> A(static_cast<size_t>(k * m)), B(static_cast<size_t>(k * n)), C(static_cast<size_t>(m * n), 7.0);
  for (size_t i = 0; i < A.size(); ++i) A[i] = double(i % 7) - 3;
  for (size_t i = 0; i < B.size(); ++i) B[i] = double(i % 5) - 2;
  // C = 2 Aᵀ B + 0.5 C with A stored k × m (lda = k), B k × n.
  dense_gemm(executor(backend::cpu, 1), true, false, m, n, k, 2.0, A.data(), k, B.data(), k, 0.5, C.data(), m);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double e = 3.5;
      for (int64_t l = 0; l < k; ++l) e += 2 * A[i * k + l] * B[j * k + l];
      EXPECT_DOUBLE_EQ(C[j * m + i], e);
    }
}

// ------------------------------------------------------------------------------------------------
// Bad requests

void expect_refused(const std::string& args, const std::string& tag, const std::string& needle) {
  const std::string out = work().path("bad." + tag);
  const int rc = panoramix("pca " + args + " --out " + shq(out), out + ".txt");
  EXPECT_NE(rc, 0) << args;
  const std::string said = read_text(out + ".txt");
  EXPECT_NE(said.find(needle), std::string::npos) << "message for '" << args << "' lacks '" << needle << "':\n" << said;
  EXPECT_FALSE(std::ifstream(out + ".eigenvec").good()) << "output left behind for " << args;
  EXPECT_FALSE(std::ifstream(out + ".eigenval").good()) << "output left behind for " << args;
}

TEST(PcaErrors, BadRequestsAreNamed) {
  const simulated& s = structured_set();
  const std::string in = "--bfile " + shq(s.prefix) + " --threads 1";
  expect_refused(in + " --pcs 0", "pcs0", "--pcs must be at least 1");
  expect_refused(in + " --pcs -3", "pcsneg", "--pcs must be at least 1");
  expect_refused(in + " --pcs 162", "pcsbig", "exceeds the number of samples (161)");
  expect_refused(in + " --pcs 3 --exact --missing impute", "impexact", "--missing impute applies to the randomized");
  expect_refused(in + " --pcs 3 --missing mean", "missing", "--missing");
  expect_refused(in + " --pcs 3 --tol 0", "tol", "--tol must be a finite number > 0 (got 0)");
  expect_refused(in + " --pcs 3 --tol nan", "tolnan", "--tol must be a finite number > 0 (got nan)");
  expect_refused(in + " --pcs 3 --tol inf", "tolinf", "--tol must be a finite number > 0 (got inf)");
  expect_refused("--bfile " + shq(s.prefix + ".nope") + " --pcs 3", "nofile", ".nope");
}

}  // namespace
}  // namespace pmx::test
