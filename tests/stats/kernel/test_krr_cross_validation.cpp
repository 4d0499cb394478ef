// Cross-validation of KRR (krr_cross_validation.hpp): every pooled held-out prediction against a
// direct long-double computation from the kernel's definition with the same folds; balanced,
// seeded folds; and `krr --cv` ends with the weights of a plain run at the chosen (γ, α).
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <vector>

#include "panoramix/kernel_matrix.hpp"
#include "panoramix/krr_cross_validation.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

TEST(KrrCrossValidation, HeldOutPredictionsEqualDirectSolves) {
  const int64_t n = 37, m = 120, t = 2;
  const packed_genotypes geno = random_genotypes(n, m, 0.05, 8, false);
  std::vector<double> p(m);
  for (int64_t l = 0; l < m; ++l) {
    int64_t s = 0, c = 0;
    for (int64_t i = 0; i < n; ++i)
      if (const int d = dosage(geno, i, l); d >= 0) s += d, ++c;
    p[l] = c ? double(s) / double(2 * c) : 0.5;
  }
  const memory_genotypes src(geno.view());
  const executor cpu(backend::cpu, 2);
  const genotype_gram g = compute_genotype_gram(cpu, src, kernel_type::gaussian, p, nullptr);
  std::vector<int64_t> fitted(n);
  for (int64_t i = 0; i < n; ++i) fitted[i] = i;
  std::vector<double> Y(n * t);
  for (int64_t i = 0; i < n * t; ++i) Y[i] = std::sin(1.3 * double(i)) + (i < n ? 0.0 : 3.0);
  krr_cv_options o;
  o.folds = 4, o.gamma_grid = {2e-3, 1e-2}, o.alpha_grid = {0.1, 1.0, 0.0}, o.seed = 5;
  null_analysis_log quiet;
  const krr_cv_result r = cross_validate_krr(cpu, g, nullptr, 0, fitted, Y.data(), t, o, {}, quiet);
  // Folds: sizes differ by at most one; the same seed gives the same folds.
  std::vector<int> size(o.folds, 0);
  for (int f : r.fold) ++size[f];
  EXPECT_LE(*std::max_element(size.begin(), size.end()) - *std::min_element(size.begin(), size.end()), 1);
  EXPECT_EQ(cross_validate_krr(cpu, g, nullptr, 0, fitted, Y.data(), t, o, {}, quiet).fold, r.fold);
  // Imputed dosages and the Gaussian kernel from the definition, in long double.
  std::vector<long double> x(n * m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t l = 0; l < m; ++l) {
      const int d = dosage(geno, i, l);
      x[i * m + l] = d >= 0 ? d : 2.0L * p[l];
    }
  ASSERT_EQ(r.grid.size(), 6u);
  for (const krr_cv_point& pt : r.grid) {
    auto k = [&](int64_t i, int64_t j) {
      long double s = 0;
      for (int64_t l = 0; l < m; ++l) s += (x[i * m + l] - x[j * m + l]) * (x[i * m + l] - x[j * m + l]);
      return expl(-(long double)pt.gamma * s);
    };
    std::vector<long double> pred(n * t);
    for (int f = 0; f < o.folds; ++f) {
      std::vector<int64_t> tr, he;
      for (int64_t i = 0; i < n; ++i) (r.fold[i] == f ? he : tr).push_back(i);
      const int64_t nt = static_cast<int64_t>(tr.size());
      std::vector<long double> M(nt * nt), B(nt * t);
      for (int64_t a = 0; a < nt; ++a)
        for (int64_t b = 0; b < nt; ++b) M[a * nt + b] = k(tr[a], tr[b]) + (a == b ? (long double)pt.alpha : 0.0L);
      std::vector<long double> mean(t, 0);
      for (int64_t c = 0; c < t; ++c) {
        for (int64_t a = 0; a < nt; ++a) mean[c] += Y[c * n + tr[a]];
        mean[c] /= nt;
        for (int64_t a = 0; a < nt; ++a) B[a * t + c] = Y[c * n + tr[a]] - mean[c];
      }
      ld_solve(M, B, nt, t);
      for (int64_t h : he)
        for (int64_t c = 0; c < t; ++c) {
          long double s = mean[c];
          for (int64_t a = 0; a < nt; ++a) s += k(h, tr[a]) * B[a * t + c];
          pred[c * n + h] = s;
        }
    }
    for (int64_t c = 0; c < t; ++c) {
      long double se = 0;
      for (int64_t i = 0; i < n; ++i) se += (Y[c * n + i] - pred[c * n + i]) * (Y[c * n + i] - pred[c * n + i]);
      const double mspe = double(se / n);
      EXPECT_NEAR(pt.accuracy[c].mspe, mspe, 1e-9 * mspe) << pt.gamma << " " << pt.alpha;
      EXPECT_EQ(pt.accuracy[c].n, n);
    }
  }
  for (int64_t c = 0; c < t; ++c)
    for (const krr_cv_point& pt : r.grid) EXPECT_LE(r.grid[r.best[c]].accuracy[c].mspe, pt.accuracy[c].mspe);
}

TEST(KrrCrossValidation, CommandRefitsAtTheChosenParameters) {
  const std::string dir = work().path("cv");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(panoramix("simulate --samples 120 --variants 600 --missing 0.02 --seed 3 --traits 2 --qtl 20 --h2 0.6 --out " + dir + "/s"), 0);
  const std::string out = dir + "/cv";
  ASSERT_EQ(panoramix("krr --bfile " + dir + "/s --pheno " + dir + "/s.pheno --all-pheno --cv 3 --gamma-grid 1e-4,1e-3 "
                      "--alpha-grid 0.1,1,10 --out " + out),
            0)
      << read_text(out + ".log");
  std::ifstream in(out + ".cv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "trait\tgamma\talpha\tn\tmspe\tpearson_r\tchosen");
  std::map<std::string, std::pair<std::string, std::string>> chosen;
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string trait, gamma, alpha, n, mspe, r;
    int pick = 0;
    s >> trait >> gamma >> alpha >> n >> mspe >> r >> pick;
    ++rows;
    if (pick) {
      EXPECT_EQ(chosen.count(trait), 0u) << "two chosen points for " << trait;
      chosen[trait] = {gamma, alpha};
    }
  }
  EXPECT_EQ(rows, 2 * 6);
  ASSERT_EQ(chosen.size(), 2u);
  // Each trait's weights equal a plain run at its chosen (γ, α).
  const std::string weights = read_text(out + ".weights");
  int col = 0;
  for (const auto& [trait, ga] : chosen) {
    const std::string one = dir + "/one" + std::to_string(col++);
    ASSERT_EQ(panoramix("krr --bfile " + dir + "/s --pheno " + dir + "/s.pheno --pheno-name " + trait + " --gamma " +
                        ga.first + " --alpha " + ga.second + " --out " + one),
              0);
    std::istringstream a(weights), b(read_text(one + ".weights"));
    std::string la, lb, header;
    std::getline(a, header);
    std::getline(b, lb);
    std::istringstream hs(header);
    std::vector<std::string> names;
    for (std::string w; hs >> w;) names.push_back(w);
    const size_t idx = std::find(names.begin(), names.end(), trait) - names.begin();
    ASSERT_LT(idx, names.size());
    while (std::getline(a, la) && std::getline(b, lb)) {
      std::istringstream sa(la), sb(lb);
      std::vector<std::string> fa, fb;
      for (std::string w; sa >> w;) fa.push_back(w);
      for (std::string w; sb >> w;) fb.push_back(w);
      EXPECT_EQ(fa[idx], fb[2]) << trait;  // the same solve: the same digits
    }
  }
}

}  // namespace
}  // namespace pmx
