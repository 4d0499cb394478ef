// Sample IDs matched between two files do not depend on the order they come in. Every command that
// maps IDs from one file onto another (gblup --grm --keep, gblup --bfile with --pheno/--covar,
// gblup/grm/pca/freq --bfile --keep) runs through the binary on files whose IDs come in shuffled,
// mutually different orders (keep files in both `FID IID` and PLINK 2 `#IID` form, phenotype files
// with extra IDs and -9/NA, covariate files with absent samples and NA), and is checked against
//   (1) the same command on files where everything is in one consistent order (a subset GRM or
//       .bed written by this test; where plink1.9 is installed its --keep subset must be the same
//       bytes), outputs re-keyed by FID+IID: equal to 1e-10 relative, rows in the genotype file's
//       order;
//   (2) an independent oracle written here with plain loops: the standardized GRM (PLINK
//       --make-rel) from the .bed bytes, A1 frequencies, and a dense GBLUP solve in long double
//       (GLS β̂, ĝ = h² G_{all,f} H⁻¹ (y − Xβ̂), H = h²G_ff + (1−h²)I, PEV, σ̂², REML logL; for --reml
//       the reported ĥ² must be where this logL peaks), eigenpairs by their residual ‖Gv − λv‖.
// (1) alone cannot see a mapping error that both runs share (a covariate attached to the wrong
// sample in any order, say); (2) does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "panoramix/grm_files.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using test::shq;
const double nan_v = std::nan("");

// ---------------------------------------------------------------- the data, made once
struct sample_id {
  std::string fid, iid;
  std::string key() const { return fid + ' ' + iid; }
};

struct dataset {
  std::string prefix;               // simulated .bed/.bim/.fam
  int64_t n = 0, m = 0;
  std::vector<sample_id> fam;       // .fam order
  std::vector<std::string> fam_lines;
  std::vector<uint8_t> bed;         // the whole .bed
  std::vector<int8_t> x;            // n × m A1 dosages, −1 missing (sample-major)
  std::map<std::string, int64_t> index;  // key → .fam row
  std::vector<double> y, c1, c2;    // trait (NaN: missing) and covariates (NaN: missing), .fam order
  std::vector<char> c_absent;       // sample not listed in the covariate file at all
};

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::stringstream ss(s);
  std::vector<std::string> f;
  for (std::string t; ss >> t;) f.push_back(t);
  return f;
}

std::string fmt(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

const dataset& data() {
  static const dataset d = [] {
    dataset s;
    s.prefix = test::work().path("sim");
    const int rc = test::panoramix("simulate --samples 300 --variants 2000 --missing 0.01 --seed 41 --out " +
                                       shq(s.prefix), s.prefix + ".out");
    if (rc != 0) throw std::runtime_error("simulate failed: " + test::read_text(s.prefix + ".out"));
    s.fam_lines = lines_of(s.prefix + ".fam");
    for (const auto& l : s.fam_lines) {
      const auto f = split(l);
      s.index[f[0] + ' ' + f[1]] = static_cast<int64_t>(s.fam.size());
      s.fam.push_back({f[0], f[1]});
    }
    s.n = static_cast<int64_t>(s.fam.size());
    s.m = static_cast<int64_t>(lines_of(s.prefix + ".bim").size());
    std::ifstream b(s.prefix + ".bed", std::ios::binary);
    s.bed.assign(std::istreambuf_iterator<char>(b), {});
    const int64_t bpv = (s.n + 3) / 4;
    if (s.bed.size() != static_cast<size_t>(3 + bpv * s.m) || s.bed[0] != 0x6c || s.bed[1] != 0x1b || s.bed[2] != 1)
      throw std::runtime_error("unexpected .bed");
    s.x.resize(s.n * s.m);
    static const int8_t dose[4] = {2, -1, 1, 0};  // 00 hom A1, 01 missing, 10 het, 11 hom A2
    for (int64_t l = 0; l < s.m; ++l)
      for (int64_t i = 0; i < s.n; ++i) s.x[i * s.m + l] = dose[(s.bed[3 + l * bpv + i / 4] >> (2 * (i % 4))) & 3];
    // A trait with a genetic part (100 causal variants), two covariates with effects, missing values.
    std::mt19937_64 rng(5);
    std::normal_distribution<double> z;
    std::vector<double> g(s.n, 0.0);
    for (int64_t l = 0; l < s.m; l += s.m / 100) {
      const double b = 0.3 * z(rng);
      for (int64_t i = 0; i < s.n; ++i)
        if (s.x[i * s.m + l] >= 0) g[i] += b * (s.x[i * s.m + l] - 1);
    }
    for (int64_t i = 0; i < s.n; ++i) {
      s.c1.push_back(std::round(z(rng) * 1e4) / 1e4);
      s.c2.push_back(std::round(z(rng) * 1e4) / 1e4);
      s.y.push_back(std::round((10 + g[i] + 0.5 * s.c1[i] - s.c2[i] + 1.8 * z(rng)) * 1e6) / 1e6);
      s.c_absent.push_back(i % 29 == 3);
      if (i % 13 == 5) s.y[i] = nan_v;
      if (i % 17 == 2) s.c2[i] = nan_v;
    }
    return s;
  }();
  return d;
}

// ---------------------------------------------------------------- writing the input files
std::vector<int64_t> shuffled(std::vector<int64_t> v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// A keep file listing `rows` (.fam indices) in that order, plus IDs that are not in the data (in the
// FID IID form one has the IID of a sample that is not kept, under another FID) and one repeated
// line; `#IID` form when `iid_only`.
std::string write_keep(const std::string& name, const std::vector<int64_t>& rows, bool iid_only) {
  const auto& d = data();
  const std::string p = test::work().path(name);
  std::ofstream f(p);
  if (iid_only) f << "#IID\n";
  for (size_t k = 0; k < rows.size(); ++k) {
    const auto& s = d.fam[rows[k]];
    f << (iid_only ? s.iid : s.fid + ' ' + s.iid) << '\n';
    if (k == 7) f << (iid_only ? "ghost1" : "popZ ghost1") << '\n';
    if (k == 9 && !iid_only) {  // a sample that is not listed, its IID under a wrong FID
      std::set<int64_t> listed(rows.begin(), rows.end());
      for (int64_t i = 0; i < d.n; ++i)
        if (!listed.count(i)) {
          f << "popZ " << d.fam[i].iid << '\n';
          break;
        }
    }
    if (k == 11) f << (iid_only ? s.iid : s.fid + '\t' + s.iid) << '\n';
  }
  f << (iid_only ? "ghost2" : "popZ ghost2") << '\n';
  return p;
}

// Phenotype file over `rows` in that order. `messy`: extra IDs not in the data (some with the IID
// of a genotyped sample under another FID), missing values alternately -9 and NA; else every
// missing value NA and no extras.
std::string write_pheno(const std::string& name, const std::vector<int64_t>& rows, bool messy) {
  const auto& d = data();
  const std::string p = test::work().path(name);
  std::ofstream f(p);
  f << "FID IID trait\n";
  int miss = 0;
  for (size_t k = 0; k < rows.size(); ++k) {
    const int64_t i = rows[k];
    const double v = d.y[i];
    f << d.fam[i].fid << ' ' << d.fam[i].iid << ' '
      << (std::isnan(v) ? (messy && miss++ % 2 ? "-9" : "NA") : fmt(v)) << '\n';
    if (messy && k % 37 == 0) f << "popX extra" << k << ' ' << fmt(100.0 + k) << '\n';
    if (messy && k % 23 == 0) f << "popX " << d.fam[(i * 7 + 3) % d.n].iid << ' ' << fmt(-50.0 - k) << '\n';
  }
  return p;
}

// Covariate file over `rows` in that order, without the samples marked absent.
std::string write_covar(const std::string& name, const std::vector<int64_t>& rows) {
  const auto& d = data();
  const std::string p = test::work().path(name);
  std::ofstream f(p);
  f << "#FID IID c1 c2\n";
  for (int64_t i : rows) {
    if (d.c_absent[i]) continue;
    f << d.fam[i].fid << ' ' << d.fam[i].iid << ' ' << fmt(d.c1[i]) << ' '
      << (std::isnan(d.c2[i]) ? "NA" : fmt(d.c2[i])) << '\n';
  }
  return p;
}

// .bed/.bim/.fam of the samples `rows` (increasing .fam indices), written byte by byte here.
std::string write_bed_subset(const std::string& name, const std::vector<int64_t>& rows) {
  const auto& d = data();
  const std::string p = test::work().path(name);
  const int64_t bpv = (d.n + 3) / 4, k = static_cast<int64_t>(rows.size()), kb = (k + 3) / 4;
  std::vector<uint8_t> out = {0x6c, 0x1b, 0x01};
  for (int64_t l = 0; l < d.m; ++l) {
    std::vector<uint8_t> row(kb, 0);
    for (int64_t a = 0; a < k; ++a) {
      const int64_t i = rows[a];
      const uint8_t code = (d.bed[3 + l * bpv + i / 4] >> (2 * (i % 4))) & 3;
      row[a / 4] |= code << (2 * (a % 4));
    }
    out.insert(out.end(), row.begin(), row.end());
  }
  std::ofstream(p + ".bed", std::ios::binary).write(reinterpret_cast<const char*>(out.data()),
                                                     static_cast<std::streamsize>(out.size()));
  std::ofstream fam(p + ".fam");
  for (int64_t i : rows) fam << d.fam_lines[i] << '\n';
  fam.close();
  std::filesystem::copy_file(d.prefix + ".bim", p + ".bim", std::filesystem::copy_options::overwrite_existing);
  return p;
}

// A GCTA GRM (.grm.id/.grm.bin) of the rows `order` of a GRM read from disk (float32 copied exactly).
void write_grm_subset(const grm_file& g, const std::vector<int64_t>& order, const std::string& prefix) {
  std::ofstream id(prefix + ".grm.id");
  std::ofstream bin(prefix + ".grm.bin", std::ios::binary);
  for (size_t a = 0; a < order.size(); ++a) {
    id << g.fid[order[a]] << '\t' << g.iid[order[a]] << '\n';
    for (size_t b = 0; b <= a; ++b) {
      const float v = static_cast<float>(g.G[order[a] * g.n + order[b]]);
      bin.write(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
}

// ---------------------------------------------------------------- reading the outputs
struct table {
  std::vector<std::string> keys;               // row order
  std::map<std::string, std::vector<double>> rows;
};

double number(const std::string& s) { return s == "NA" || s == "nan" ? nan_v : std::stod(s); }

// Rows keyed by the first `key_cols` fields; the other fields as numbers.
table read_table(const std::string& path, int key_cols, bool header) {
  table t;
  auto ls = lines_of(path);
  for (size_t r = header ? 1 : 0; r < ls.size(); ++r) {
    const auto f = split(ls[r]);
    if (f.empty()) continue;
    std::string key = f[0];
    for (int c = 1; c < key_cols; ++c) key += ' ' + f[c];
    std::vector<double> v;
    for (size_t c = key_cols; c < f.size(); ++c) v.push_back(number(f[c]));
    t.keys.push_back(key);
    t.rows[key] = v;
  }
  return t;
}

// The same keys and, column by column, max |a − b| ≤ tol · max |b| (NaN only where NaN).
void expect_same_table(const table& a, const table& b, double tol, const std::string& what) {
  ASSERT_FALSE(b.keys.empty()) << what;
  ASSERT_EQ(std::set<std::string>(a.keys.begin(), a.keys.end()), std::set<std::string>(b.keys.begin(), b.keys.end()))
      << what << ": different samples / names";
  const size_t cols = b.rows.begin()->second.size();
  for (size_t c = 0; c < cols; ++c) {
    double worst = 0, scale = 0;
    for (const auto& [k, vb] : b.rows) {
      const auto& va = a.rows.at(k);
      ASSERT_EQ(va.size(), vb.size()) << what << " " << k;
      ASSERT_EQ(std::isnan(va[c]), std::isnan(vb[c])) << what << " " << k << " column " << c;
      if (std::isnan(vb[c])) continue;
      worst = std::max(worst, std::fabs(va[c] - vb[c]));
      scale = std::max(scale, std::fabs(vb[c]));
    }
    EXPECT_LE(worst, tol * scale) << what << " column " << c << ": max |difference| " << worst << " of " << scale;
  }
}

void expect_same_outputs(const std::string& a, const std::string& b, bool pcs, const std::string& what) {
  expect_same_table(read_table(a + ".gebv", 2, true), read_table(b + ".gebv", 2, true), 1e-10, what + " .gebv");
  expect_same_table(read_table(a + ".vc", 1, false), read_table(b + ".vc", 1, false), 1e-10, what + " .vc");
  expect_same_table(read_table(a + ".fixef", 1, false), read_table(b + ".fixef", 1, false), 1e-10, what + " .fixef");
  EXPECT_EQ(read_table(a + ".fixef", 1, false).keys, read_table(b + ".fixef", 1, false).keys) << what;
  if (pcs) {
    expect_same_table(read_table(a + ".eigenvec", 2, false), read_table(b + ".eigenvec", 2, false), 1e-10,
                      what + " .eigenvec");
    EXPECT_EQ(test::read_text(a + ".eigenval"), test::read_text(b + ".eigenval")) << what;
  }
}

#define RUN_PMX(args, out)                                                                  \
  ASSERT_EQ(test::panoramix(std::string(args) + " --threads 2 --out " + shq(out), (out) + ".stdout"), 0) \
      << (args) << "\n"                                                                     \
      << test::read_text((out) + ".stdout")

// ---------------------------------------------------------------- independent oracles
// PLINK --make-rel (standardized): p from the listed samples' calls (all founders here), z = (x −
// 2p)/sqrt(2p(1−p)) (0 when monomorphic), G_ab = Σ z_a z_b over variants called in both / their
// number. Samples in the order given.
std::vector<double> oracle_grm(const std::vector<int64_t>& rows) {
  const auto& d = data();
  const int64_t k = static_cast<int64_t>(rows.size()), m = d.m;
  std::vector<double> z(k * m, 0.0);
  std::vector<char> called(k * m, 0);
  for (int64_t l = 0; l < m; ++l) {
    long sum = 0, cnt = 0;
    for (int64_t a = 0; a < k; ++a)
      if (d.x[rows[a] * m + l] >= 0) sum += d.x[rows[a] * m + l], ++cnt;
    const double p = cnt ? sum / (2.0 * cnt) : 0.5;
    const double s = (p > 0 && p < 1) ? 1 / std::sqrt(2 * p * (1 - p)) : 0.0;
    for (int64_t a = 0; a < k; ++a) {
      const int x = d.x[rows[a] * m + l];
      if (x >= 0) z[a * m + l] = (x - 2 * p) * s, called[a * m + l] = 1;
    }
  }
  std::vector<double> G(k * k);
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b <= a; ++b) {
      long double s = 0;
      long c = 0;
      for (int64_t l = 0; l < m; ++l)
        if (called[a * m + l] && called[b * m + l]) s += z[a * m + l] * z[b * m + l], ++c;
      G[a * k + b] = G[b * k + a] = static_cast<double>(s / c);
    }
  return G;
}

// A model over samples ids[0..n) with G (n × n in that order); fitted rows have y and every
// covariate. X: intercept then the covariates (over the fitted rows).
struct model {
  std::vector<std::string> ids;
  std::vector<double> G;
  std::vector<int64_t> fit;
  std::vector<std::vector<double>> X;
  std::vector<double> y;
};

model make_model(const std::vector<std::string>& ids, std::vector<double> G, bool covar) {
  const auto& d = data();
  model md{ids, std::move(G), {}, {}, {}};
  md.X.resize(covar ? 3 : 1);
  for (size_t a = 0; a < ids.size(); ++a) {
    const int64_t i = d.index.at(ids[a]);
    if (std::isnan(d.y[i])) continue;
    if (covar && (d.c_absent[i] || std::isnan(d.c2[i]))) continue;
    md.fit.push_back(static_cast<int64_t>(a));
    md.y.push_back(d.y[i]);
    md.X[0].push_back(1.0);
    if (covar) md.X[1].push_back(d.c1[i]), md.X[2].push_back(d.c2[i]);
  }
  return md;
}

struct dense_fit {
  std::vector<double> gebv, pev, beta, se_beta;
  double sigma2 = 0, logl = 0;
};

// Dense GBLUP at a given h² in long double with a plain Cholesky factor of H = h²G_ff + (1−h²)I.
dense_fit oracle_fit(const model& md, double h2, bool with_pev) {
  using ld = long double;
  const int64_t n = static_cast<int64_t>(md.ids.size()), nf = static_cast<int64_t>(md.fit.size());
  const int64_t p = static_cast<int64_t>(md.X.size());
  std::vector<ld> L(nf * nf, 0);
  for (int64_t a = 0; a < nf; ++a)
    for (int64_t b = 0; b <= a; ++b) L[a * nf + b] = h2 * md.G[md.fit[a] * n + md.fit[b]] + (a == b ? 1 - h2 : 0);
  ld logdet_h = 0;
  for (int64_t j = 0; j < nf; ++j) {
    ld s = L[j * nf + j];
    for (int64_t k = 0; k < j; ++k) s -= L[j * nf + k] * L[j * nf + k];
    if (!(s > 0)) throw std::runtime_error("oracle: H not positive definite");
    L[j * nf + j] = std::sqrt(s);
    logdet_h += 2 * std::log(L[j * nf + j]);
    for (int64_t i = j + 1; i < nf; ++i) {
      ld t = L[i * nf + j];
      for (int64_t k = 0; k < j; ++k) t -= L[i * nf + k] * L[j * nf + k];
      L[i * nf + j] = t / L[j * nf + j];
    }
  }
  auto solve = [&](std::vector<ld> v) {  // H⁻¹ v
    for (int64_t i = 0; i < nf; ++i) {
      for (int64_t k = 0; k < i; ++k) v[i] -= L[i * nf + k] * v[k];
      v[i] /= L[i * nf + i];
    }
    for (int64_t i = nf - 1; i >= 0; --i) {
      for (int64_t k = i + 1; k < nf; ++k) v[i] -= L[k * nf + i] * v[k];
      v[i] /= L[i * nf + i];
    }
    return v;
  };
  std::vector<std::vector<ld>> HX(p);
  for (int64_t c = 0; c < p; ++c) HX[c] = solve(std::vector<ld>(md.X[c].begin(), md.X[c].end()));
  const std::vector<ld> Hy = solve(std::vector<ld>(md.y.begin(), md.y.end()));
  std::vector<ld> M(p * p), XtX(p * p), rhs(p), Minv(p * p, 0);
  for (int64_t a = 0; a < p; ++a) {
    for (int64_t b = 0; b < p; ++b) {
      ld s = 0, t = 0;
      for (int64_t i = 0; i < nf; ++i) s += md.X[a][i] * HX[b][i], t += static_cast<ld>(md.X[a][i]) * md.X[b][i];
      M[a * p + b] = s, XtX[a * p + b] = t;
    }
    ld s = 0;
    for (int64_t i = 0; i < nf; ++i) s += md.X[a][i] * Hy[i];
    rhs[a] = s;
    Minv[a * p + a] = 1;
  }
  std::vector<ld> none;
  const ld logdet_m = test::ld_solve(M, Minv, p, p), logdet_xx = test::ld_solve(XtX, none, p, 0);
  std::vector<ld> beta(p, 0);
  for (int64_t a = 0; a < p; ++a)
    for (int64_t b = 0; b < p; ++b) beta[a] += Minv[a * p + b] * rhs[b];
  std::vector<ld> r(nf);
  for (int64_t i = 0; i < nf; ++i) {
    r[i] = md.y[i];
    for (int64_t c = 0; c < p; ++c) r[i] -= md.X[c][i] * beta[c];
  }
  const std::vector<ld> alpha = solve(r);
  ld ypy = 0;
  for (int64_t i = 0; i < nf; ++i) ypy += r[i] * alpha[i];
  const ld dfree = nf - p, s2 = ypy / dfree;
  dense_fit o;
  o.sigma2 = static_cast<double>(s2);
  o.logl = static_cast<double>(-0.5L * (dfree * std::log(2 * 3.14159265358979323846264338327950288L) +
                                         dfree * std::log(s2) + logdet_h + logdet_m - logdet_xx + dfree));
  for (int64_t a = 0; a < p; ++a) {
    o.beta.push_back(static_cast<double>(beta[a]));
    o.se_beta.push_back(static_cast<double>(std::sqrt(s2 * Minv[a * p + a])));
  }
  for (int64_t i = 0; i < n; ++i) {
    ld s = 0;
    for (int64_t k = 0; k < nf; ++k) s += md.G[i * n + md.fit[k]] * alpha[k];
    o.gebv.push_back(static_cast<double>(h2 * s));
    if (!with_pev) continue;
    // PEV_i = σ²_g [G_ii − h² (g_iᵀ H⁻¹ g_i − u_iᵀ M⁻¹ u_i)], g_i = G_{f,i}, u_i = Xᵀ H⁻¹ g_i
    std::vector<ld> gi(nf);
    for (int64_t k = 0; k < nf; ++k) gi[k] = md.G[md.fit[k] * n + i];
    const std::vector<ld> hg = solve(gi);
    ld t1 = 0, t2 = 0;
    for (int64_t k = 0; k < nf; ++k) t1 += gi[k] * hg[k];
    std::vector<ld> u(p, 0);
    for (int64_t c = 0; c < p; ++c)
      for (int64_t k = 0; k < nf; ++k) u[c] += md.X[c][k] * hg[k];
    for (int64_t a = 0; a < p; ++a)
      for (int64_t b = 0; b < p; ++b) t2 += u[a] * Minv[a * p + b] * u[b];
    o.pev.push_back(static_cast<double>(h2 * s2 * (md.G[i * n + i] - h2 * (t1 - t2))));
  }
  return o;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double worst = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  EXPECT_LE(worst, tol * scale) << what << ": max |difference| " << worst << " of " << scale;
}

// A gblup run's outputs against the dense oracle over the same samples: at the given h², or, for
// REML, at the reported ĥ², which must also be where the oracle's REML logL peaks.
void expect_matches_oracle(const std::string& out, const model& md, std::optional<double> given_h2,
                           const std::string& what) {
  const table gebv = read_table(out + ".gebv", 2, true), vc = read_table(out + ".vc", 1, false),
              fx = read_table(out + ".fixef", 1, false);
  ASSERT_EQ(gebv.keys, md.ids) << what << ": .gebv rows are not the samples of G in G's order";
  const double h2 = vc.rows.at("h2")[0];
  if (given_h2) {
    ASSERT_EQ(h2, *given_h2) << what;
  }
  const dense_fit o = oracle_fit(md, h2, true);
  std::vector<double> g, pev, beta, se;
  for (const auto& k : gebv.keys) g.push_back(gebv.rows.at(k)[0]), pev.push_back(gebv.rows.at(k)[1]);
  for (const auto& k : fx.keys) beta.push_back(fx.rows.at(k)[0]), se.push_back(fx.rows.at(k)[1]);
  expect_close(g, o.gebv, 1e-8, what + ": GEBV vs dense oracle");
  expect_close(pev, o.pev, 1e-8, what + ": PEV vs dense oracle");
  expect_close(beta, o.beta, 1e-8, what + ": beta vs dense oracle");
  expect_close(se, o.se_beta, 1e-8, what + ": se(beta) vs dense oracle");
  EXPECT_NEAR(vc.rows.at("sigma2_g")[0], h2 * o.sigma2, 1e-8 * o.sigma2) << what;
  EXPECT_NEAR(vc.rows.at("sigma2_e")[0], (1 - h2) * o.sigma2, 1e-8 * o.sigma2) << what;
  EXPECT_NEAR(vc.rows.at("logL")[0], o.logl, 1e-9 * std::fabs(o.logl)) << what << ": REML logL";
  if (!given_h2) {
    ASSERT_GT(h2, 0.02) << what << ": want an interior REML estimate";
    ASSERT_LT(h2, 0.98) << what << ": want an interior REML estimate";
    for (double step : {-2e-3, 2e-3})
      EXPECT_LT(oracle_fit(md, h2 + step, false).logl, o.logl) << what << ": oracle logL higher at h2 " << h2 + step;
  }
}

// Each reported eigenpair of G (samples keyed by ID, G in the order `ids`): ‖Gv − λv‖∞ small.
void expect_eigenpairs(const std::string& prefix, const std::vector<std::string>& ids, const std::vector<double>& G,
                       const std::string& what) {
  const table vec = read_table(prefix + ".eigenvec", 2, false);
  const auto vals = lines_of(prefix + ".eigenval");
  ASSERT_EQ(vec.keys, ids) << what << ": .eigenvec rows are not in the matrix's order";
  const int64_t n = static_cast<int64_t>(ids.size());
  const double top = std::stod(vals.at(0));
  for (size_t c = 0; c < vals.size(); ++c) {
    const double lambda = std::stod(vals[c]);
    double worst = 0;
    for (int64_t a = 0; a < n; ++a) {
      long double s = 0;
      for (int64_t b = 0; b < n; ++b) s += G[a * n + b] * vec.rows.at(ids[b])[c];
      worst = std::max(worst, static_cast<double>(std::fabs(s - lambda * vec.rows.at(ids[a])[c])));
    }
    EXPECT_LE(worst, 1e-6 * top) << what << ": PC " << c + 1 << " is not an eigenvector of the oracle G";
  }
}

std::vector<int64_t> iota_rows(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// The kept samples: about 60 %, .fam indices increasing.
std::vector<int64_t> kept_rows() {
  std::vector<int64_t> k;
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u;
  for (int64_t i = 0; i < data().n; ++i)
    if (u(rng) < 0.6) k.push_back(i);
  return k;
}

std::vector<std::string> keys_of(const std::vector<int64_t>& rows) {
  std::vector<std::string> k;
  for (int64_t i : rows) k.push_back(data().fam[i].key());
  return k;
}

// ================================================================ gblup --grm P --keep K
// P is the whole sample's GRM written in a shuffled order (.grm.id ≠ .fam order); K a shuffled
// subset (FID IID and #IID forms, with IDs absent from P and a repeated line); phenotypes and
// covariates in two further orders. Consistent run: P's kept rows as their own GRM (in P's order),
// phenotypes/covariates in that order.
TEST(IdOrder, GblupGrmKeep) {
  const auto& d = data();
  auto& w = test::work();
  const std::string full = w.path("g_full"), shuf = w.path("g_shuf"), sub = w.path("g_sub");
  RUN_PMX("grm --bfile " + shq(d.prefix) + " --format gcta", full);
  const grm_file gf = read_gcta_grm(full);
  ASSERT_EQ(gf.n, d.n);
  const std::vector<int64_t> perm = shuffled(iota_rows(d.n), 1);  // P's order: rows of g_full
  write_grm_subset(gf, perm, shuf);
  const grm_file gs = read_gcta_grm(shuf);
  std::set<int64_t> keep_set;
  for (int64_t i : kept_rows()) keep_set.insert(i);
  std::vector<int64_t> sub_order;  // rows of g_shuf that are kept, in g_shuf's order
  std::vector<std::string> sub_ids;
  for (int64_t a = 0; a < gs.n; ++a) {
    const int64_t i = d.index.at(gs.fid[a] + ' ' + gs.iid[a]);
    if (keep_set.count(i)) sub_order.push_back(a), sub_ids.push_back(d.fam[i].key());
  }
  write_grm_subset(gs, sub_order, sub);
  std::vector<int64_t> sub_fam;  // the kept samples' .fam rows in the subset GRM's order
  for (const auto& k : sub_ids) sub_fam.push_back(d.index.at(k));
  const std::vector<int64_t> keep_order = shuffled({keep_set.begin(), keep_set.end()}, 2);
  const std::string keep_pairs = write_keep("g_keep_pairs.txt", keep_order, false);
  const std::string keep_iid = write_keep("g_keep_iid.txt", shuffled(keep_order, 3), true);
  const std::string pheno = write_pheno("g_pheno.txt", shuffled(iota_rows(d.n), 4), true);
  const std::string covar = write_covar("g_covar.txt", shuffled(iota_rows(d.n), 5));
  const std::string pheno_c = write_pheno("g_pheno_c.txt", sub_fam, false);
  const std::string covar_c = write_covar("g_covar_c.txt", sub_fam);
  // The oracle's G: the subset GRM as read (float32 values, exactly).
  const grm_file gsub = read_gcta_grm(sub);
  ASSERT_EQ(gsub.n, static_cast<int64_t>(keep_set.size()));
  const std::vector<double> Gk(gsub.G.begin(), gsub.G.end());
  struct config {
    std::string flags;
    std::optional<double> h2;
    bool covar, pcs;
  };
  const std::vector<config> configs = {
      {"--h2 0.4", 0.4, false, false},
      {"--reml", {}, false, false},
      {"--h2 0.4 --covar-name c1,c2", 0.4, true, false},
      {"--reml", {}, true, false},  // --covar without --covar-name: every column
      {"--reml --pcs 2", {}, false, true},
      {"--reml --reml-evaluator cholesky --covar-name c1,c2", {}, true, false},
      {"--h2 0.3 --reml-evaluator cholesky --pcs 2", 0.3, false, true},
      {"--h2 0.4 --reml-evaluator eigen --covar-name c1,c2 --pcs 2", 0.4, true, true},
  };
  for (size_t c = 0; c < configs.size(); ++c) {
    const auto& cf = configs[c];
    const std::string& flags = cf.flags;
    const std::string cov_a = cf.covar ? " --covar " + shq(covar) : "", cov_b = cf.covar ? " --covar " + shq(covar_c) : "";
    const std::string b = w.path("g_b" + std::to_string(c));
    RUN_PMX("gblup --grm " + shq(sub) + " --pheno " + shq(pheno_c) + cov_b + " " + flags, b);
    const model md = make_model(sub_ids, Gk, cf.covar);
    ASSERT_LT(md.fit.size(), sub_ids.size()) << "some kept samples are predicted only";
    expect_matches_oracle(b, md, cf.h2, "consistent-order run [" + flags + "]");
    if (cf.pcs) expect_eigenpairs(b, sub_ids, Gk, "consistent-order run [" + flags + "]");
    for (const bool iid_only : {false, true}) {
      const std::string tag = "gblup --grm --keep " + std::string(iid_only ? "#IID" : "FID IID") + " [" + flags + "]";
      const std::string a = w.path("g_a" + std::to_string(c) + (iid_only ? "i" : "p"));
      RUN_PMX("gblup --grm " + shq(shuf) + " --keep " + shq(iid_only ? keep_iid : keep_pairs) + " --pheno " +
                  shq(pheno) + cov_a + " " + flags,
              a);
      EXPECT_NE(test::read_text(a + ".log").find(std::to_string(keep_set.size()) + " of the 300 samples of the GRM kept"),
                std::string::npos)
          << tag;
      expect_same_outputs(a, b, cf.pcs, tag + " vs consistent order");
      expect_matches_oracle(a, md, cf.h2, tag);
      if (cf.pcs) expect_eigenpairs(a, sub_ids, Gk, tag);
    }
  }
}

// ================================================================ gblup --bfile with --pheno/--covar
// Phenotype rows shuffled with extra IDs and -9/NA; covariates in another order, some samples absent
// and some NA. Consistent run: both files in .fam order, no extras, NA only.
TEST(IdOrder, GblupBfilePhenoCovarOrder) {
  const auto& d = data();
  auto& w = test::work();
  const std::string pheno = write_pheno("b_pheno.txt", shuffled(iota_rows(d.n), 6), true);
  const std::string covar = write_covar("b_covar.txt", shuffled(iota_rows(d.n), 7));
  const std::string pheno_c = write_pheno("b_pheno_c.txt", iota_rows(d.n), false);
  const std::string covar_c = write_covar("b_covar_c.txt", iota_rows(d.n));
  const std::vector<std::string> ids = keys_of(iota_rows(d.n));
  const std::vector<double> G = oracle_grm(iota_rows(d.n));
  int run = 0;
  for (const auto& [flags, h2, covar_on] :
       std::vector<std::tuple<std::string, std::optional<double>, bool>>{
           {"--h2 0.4", 0.4, true}, {"--reml", std::nullopt, true}, {"--reml", std::nullopt, false}}) {
    const std::string tag = "gblup --bfile [" + flags + (covar_on ? " --covar" : "") + "]";
    const std::string a = w.path("b_a" + std::to_string(run++)), b = a + "_c";
    RUN_PMX("gblup --bfile " + shq(d.prefix) + " --pheno " + shq(pheno) + (covar_on ? " --covar " + shq(covar) : "") +
                " " + flags,
            a);
    RUN_PMX("gblup --bfile " + shq(d.prefix) + " --pheno " + shq(pheno_c) +
                (covar_on ? " --covar " + shq(covar_c) : "") + " " + flags,
            b);
    expect_same_outputs(a, b, false, tag + " shuffled vs consistent files");
    const model md = make_model(ids, G, covar_on);
    expect_matches_oracle(a, md, h2, tag);
  }
}

// ================================================================ gblup --bfile X --keep K
TEST(IdOrder, GblupBfileKeep) {
  const auto& d = data();
  auto& w = test::work();
  const std::vector<int64_t> kept = kept_rows();
  const std::string subset = write_bed_subset("k_subset", kept);
  const std::string pheno = write_pheno("k_pheno.txt", shuffled(iota_rows(d.n), 8), true);
  const std::string covar = write_covar("k_covar.txt", shuffled(iota_rows(d.n), 9));
  const std::string pheno_c = write_pheno("k_pheno_c.txt", kept, false);
  const std::string covar_c = write_covar("k_covar_c.txt", kept);
  const std::string keep_pairs = write_keep("k_keep_pairs.txt", shuffled(kept, 10), false);
  const std::string keep_iid = write_keep("k_keep_iid.txt", shuffled(kept, 11), true);
  const std::vector<std::string> ids = keys_of(kept);
  const std::vector<double> G = oracle_grm(kept);
  int run = 0;
  for (const auto& [flags, h2, covar_on] : std::vector<std::tuple<std::string, std::optional<double>, bool>>{
           {"--h2 0.4", 0.4, true}, {"--reml --pcs 2", std::nullopt, false}}) {
    const bool pcs = flags.find("--pcs") != std::string::npos;
    const std::string b = w.path("k_b" + std::to_string(run));
    RUN_PMX("gblup --bfile " + shq(subset) + " --pheno " + shq(pheno_c) +
                (covar_on ? " --covar " + shq(covar_c) : "") + " " + flags,
            b);
    const model md = make_model(ids, G, covar_on);
    expect_matches_oracle(b, md, h2, "gblup on the subset .bed [" + flags + "]");
    if (pcs) expect_eigenpairs(b, ids, G, "gblup on the subset .bed [" + flags + "]");
    for (const bool iid_only : {false, true}) {
      const std::string tag = "gblup --bfile --keep " + std::string(iid_only ? "#IID" : "FID IID") + " [" + flags + "]";
      const std::string a = w.path("k_a" + std::to_string(run) + (iid_only ? "i" : "p"));
      RUN_PMX("gblup --bfile " + shq(d.prefix) + " --keep " + shq(iid_only ? keep_iid : keep_pairs) + " --pheno " +
                  shq(pheno) + (covar_on ? " --covar " + shq(covar) : "") + " " + flags,
              a);
      expect_same_outputs(a, b, pcs, tag + " vs subset .bed");
      expect_matches_oracle(a, md, h2, tag);
      if (pcs) expect_eigenpairs(a, ids, G, tag);
    }
    ++run;
  }
}

// ================================================================ grm, pca, freq --bfile X --keep K
// Output in .fam order and equal to the run on a subset .bed (written here; plink1.9 --keep's
// subset checked to be the same bytes where plink1.9 is installed); rel.bin vs the oracle GRM, PCs
// as eigenpairs of it, frequencies and counts vs counts here (and plink2 --freq --keep where installed).
TEST(IdOrder, GrmPcaFreqKeep) {
  const auto& d = data();
  auto& w = test::work();
  const std::vector<int64_t> kept = kept_rows();
  const std::string subset = write_bed_subset("q_subset", kept);
  const std::string keep_pairs = write_keep("q_keep_pairs.txt", shuffled(kept, 12), false);
  const std::string keep_iid = write_keep("q_keep_iid.txt", shuffled(kept, 13), true);
  if (test::have_program("plink1.9")) {
    const std::string p = w.path("q_plink");
    ASSERT_EQ(test::run("plink1.9 --bfile " + shq(d.prefix) + " --keep " + shq(keep_pairs) +
                            " --keep-allele-order --make-bed --out " + shq(p), p + ".stdout"), 0);
    EXPECT_EQ(test::read_text(p + ".bed"), test::read_text(subset + ".bed")) << "plink1.9 --keep subset .bed";
    EXPECT_EQ(test::read_text(p + ".fam"), test::read_text(subset + ".fam")) << "plink1.9 --keep subset .fam";
  } else {
    std::printf("plink1.9 not installed: the subset .bed is only the one written by this test\n");
  }
  const std::vector<std::string> ids = keys_of(kept);
  const std::vector<double> G = oracle_grm(kept);
  const std::string b = w.path("q_b");
  RUN_PMX("grm --bfile " + shq(subset), b + "_grm");
  RUN_PMX("grm --bfile " + shq(subset) + " --format gcta", b + "_gcta");
  RUN_PMX("pca --bfile " + shq(subset) + " --pcs 2", b + "_pca");
  RUN_PMX("freq --bfile " + shq(subset), b + "_freq");
  // Oracle frequencies of A1 over the kept samples (all founders) and called-allele counts.
  std::vector<double> freq(d.m);
  std::vector<long> obs(d.m);
  for (int64_t l = 0; l < d.m; ++l) {
    long s = 0, c = 0;
    for (int64_t i : kept)
      if (d.x[i * d.m + l] >= 0) s += d.x[i * d.m + l], c += 2;
    freq[l] = static_cast<double>(s) / c, obs[l] = c;
  }
  for (const bool iid_only : {false, true}) {
    const std::string tag = std::string(iid_only ? " --keep #IID" : " --keep FID IID");
    const std::string keep = " --keep " + shq(iid_only ? keep_iid : keep_pairs);
    const std::string a = w.path(iid_only ? "q_ai" : "q_ap");
    RUN_PMX("grm --bfile " + shq(d.prefix) + keep, a + "_grm");
    RUN_PMX("grm --bfile " + shq(d.prefix) + keep + " --format gcta", a + "_gcta");
    RUN_PMX("pca --bfile " + shq(d.prefix) + keep + " --pcs 2", a + "_pca");
    RUN_PMX("freq --bfile " + shq(d.prefix) + keep, a + "_freq");
    // In .fam order, the same as on the subset .bed.
    const auto rel_ids = lines_of(a + "_grm.rel.id");
    ASSERT_EQ(rel_ids.size(), ids.size() + 1) << "grm" << tag;
    for (size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(split(rel_ids[k + 1]), split(ids[k])) << "grm" << tag << " row " << k;
    EXPECT_EQ(test::read_text(a + "_grm.rel.id"), test::read_text(b + "_grm.rel.id")) << "grm" << tag;
    const auto ra = test::read_doubles(a + "_grm.rel.bin"), rb = test::read_doubles(b + "_grm.rel.bin");
    expect_close(ra, rb, 1e-10, "grm" + tag + " .rel.bin vs subset .bed");
    expect_close(ra, G, 1e-11, "grm" + tag + " .rel.bin vs oracle GRM");
    EXPECT_EQ(test::read_text(a + "_gcta.grm.id"), test::read_text(b + "_gcta.grm.id")) << "grm gcta" << tag;
    EXPECT_EQ(test::read_floats(a + "_gcta.grm.bin"), test::read_floats(b + "_gcta.grm.bin")) << "grm gcta" << tag;
    EXPECT_EQ(test::read_floats(a + "_gcta.grm.N.bin"), test::read_floats(b + "_gcta.grm.N.bin")) << "grm gcta" << tag;
    expect_same_table(read_table(a + "_pca.eigenvec", 2, false), read_table(b + "_pca.eigenvec", 2, false), 1e-10,
                      "pca" + tag + " .eigenvec vs subset .bed");
    EXPECT_EQ(test::read_text(a + "_pca.eigenval"), test::read_text(b + "_pca.eigenval")) << "pca" << tag;
    expect_eigenpairs(a + "_pca", ids, G, "pca" + tag);
    EXPECT_EQ(test::read_text(a + "_freq.afreq"), test::read_text(b + "_freq.afreq")) << "freq" << tag;
    const auto fl = lines_of(a + "_freq.afreq");
    ASSERT_EQ(static_cast<int64_t>(fl.size()), d.m + 1) << "freq" << tag;
    double worst = 0;
    for (int64_t l = 0; l < d.m; ++l) {
      const auto f = split(fl[l + 1]);
      worst = std::max(worst, std::fabs(std::stod(f[4]) - freq[l]) / std::max(freq[l], 1e-300));
      EXPECT_EQ(std::stol(f[5]), obs[l]) << "freq" << tag << " OBS_CT of variant " << l;
    }
    EXPECT_LE(worst, 1e-5) << "freq" << tag << ": ALT_FREQS vs oracle (6 significant digits)";
  }
  if (test::have_program("plink2")) {
    const std::string p = w.path("q_plink2");
    ASSERT_EQ(test::run("plink2 --bfile " + shq(d.prefix) + " --keep " + shq(keep_pairs) + " --freq --out " + shq(p),
                        p + ".stdout"), 0);
    EXPECT_EQ(test::read_text(p + ".afreq"), test::read_text(b + "_freq.afreq")) << "plink2 --freq --keep";
  } else {
    std::printf("plink2 not installed: freq --keep compared with the subset run and the oracle only\n");
  }
}

}  // namespace
}  // namespace pmx
