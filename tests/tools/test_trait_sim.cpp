// Phenotype simulation of `panoramix simulate --traits` (simulate/trait_sim.hpp,
// simulate/trait_sim_files.hpp): the written .pheno and .truth recomputed from the written .bed
// by this file's own reading and arithmetic (long double), the same bytes for any thread count,
// NA masking, parameter validation (named errors, exit status 2), and the statistical meaning of
// the epistatic share (an additive regression on the QTL sees only the additive part).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "panoramix/error.hpp"
#include "simulate/simulate.hpp"
#include "simulate/trait_sim.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using ld = long double;

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; ss >> x;) f.push_back(x);
  return f;
}

double number(const std::string& s) { return s == "." || s == "NA" ? NAN : std::stod(s); }

// The fileset, read here byte by byte (not through the library's reader).
struct fileset {
  int64_t n = 0, m = 0;
  std::vector<std::string> fid, iid, variant_id;
  std::vector<int> dosage;  // variant-major, -1 missing
  int at(int64_t j, int64_t i) const { return dosage[static_cast<size_t>(j * n + i)]; }
};

fileset read_fileset(const std::string& prefix) {
  fileset s;
  std::ifstream fam(prefix + ".fam"), bim(prefix + ".bim");
  for (std::string line; std::getline(fam, line);) {
    const auto f = fields(line);
    s.fid.push_back(f.at(0));
    s.iid.push_back(f.at(1));
  }
  for (std::string line; std::getline(bim, line);) s.variant_id.push_back(fields(line).at(1));
  s.n = static_cast<int64_t>(s.iid.size());
  s.m = static_cast<int64_t>(s.variant_id.size());
  const std::string bed = test::read_text(prefix + ".bed");
  const int64_t row = (s.n + 3) / 4;
  EXPECT_EQ(static_cast<int64_t>(bed.size()), 3 + row * s.m);
  s.dosage.resize(static_cast<size_t>(s.n * s.m));
  for (int64_t j = 0; j < s.m; ++j)
    for (int64_t i = 0; i < s.n; ++i) {
      const int code = (static_cast<unsigned char>(bed[3 + j * row + i / 4]) >> (2 * (i % 4))) & 3;
      s.dosage[static_cast<size_t>(j * s.n + i)] = code == 0 ? 2 : code == 1 ? -1 : code == 2 ? 1 : 0;
    }
  return s;
}

// A text file without its '#' lines.
std::string without_comments(const std::string& path) {
  std::ifstream in(path);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.empty() || line[0] != '#') out += line + "\n";
  return out;
}

struct truth_row {
  std::string trait, kind, id1, id2;
  double center1, center2, c0, c1, c2, shared, value;
};

std::vector<truth_row> read_truth(const std::string& path) {
  std::ifstream in(path);
  std::vector<truth_row> rows;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto f = fields(line);
    EXPECT_EQ(f.size(), 11u) << line;
    if (!header) {
      EXPECT_EQ(line, "trait\tkind\tid1\tid2\tcenter1\tcenter2\tc0\tc1\tc2\tshared\tvalue");
      header = true;
      continue;
    }
    rows.push_back({f[0], f[1], f[2], f[3], number(f[4]), number(f[5]), number(f[6]), number(f[7]), number(f[8]),
                    number(f[9]), number(f[10])});
  }
  return rows;
}

// The value of `kind` for `trait` (a scalar row).
double scalar(const std::vector<truth_row>& rows, const std::string& trait, const std::string& kind,
              const std::string& id1 = ".") {
  for (const truth_row& r : rows)
    if (r.trait == trait && r.kind == kind && r.id1 == id1) return r.value;
  ADD_FAILURE() << "no row " << trait << " " << kind << " " << id1;
  return NAN;
}

struct pheno {
  std::vector<std::string> header, fid, iid;
  std::vector<std::vector<double>> y;  // [trait][sample]
};

pheno read_pheno(const std::string& path) {
  std::ifstream in(path);
  pheno p;
  std::string line;
  std::getline(in, line);
  p.header = fields(line);
  p.y.resize(p.header.size() - 2);
  while (std::getline(in, line)) {
    const auto f = fields(line);
    EXPECT_EQ(f.size(), p.header.size()) << line;
    p.fid.push_back(f[0]);
    p.iid.push_back(f[1]);
    for (size_t t = 0; t + 2 < f.size(); ++t) p.y[t].push_back(number(f[t + 2]));
  }
  return p;
}

ld mean(const std::vector<ld>& x) {
  ld s = 0;
  for (ld v : x) s += v;
  return s / static_cast<ld>(x.size());
}

ld cov(const std::vector<ld>& x, const std::vector<ld>& y) {
  const ld mx = mean(x), my = mean(y);
  ld s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += (x[i] - mx) * (y[i] - my);
  return s / static_cast<ld>(x.size());
}

// Centred dosages of a variant (mean over called samples; missing calls 0) and that mean.
std::vector<ld> centred(const fileset& s, int64_t j, ld* center = nullptr) {
  ld sum = 0;
  int64_t called = 0;
  for (int64_t i = 0; i < s.n; ++i)
    if (s.at(j, i) >= 0) sum += s.at(j, i), ++called;
  const ld c = sum / called;
  if (center) *center = c;
  std::vector<ld> x(static_cast<size_t>(s.n));
  for (int64_t i = 0; i < s.n; ++i) x[i] = s.at(j, i) >= 0 ? s.at(j, i) - c : 0;
  return x;
}

// One trait's genetic values recomputed from the fileset and the .truth rows.
struct recomputed {
  std::vector<ld> A, E, G;
  int64_t qtl = 0, pairs = 0, shared = 0;
  std::set<std::string> variants;  // every variant the trait uses
};

recomputed recompute(const fileset& s, const std::vector<truth_row>& rows, const std::string& trait) {
  std::map<std::string, int64_t> index;
  for (int64_t j = 0; j < s.m; ++j) index[s.variant_id[j]] = j;
  recomputed r;
  r.A.assign(static_cast<size_t>(s.n), 0);
  r.E.assign(static_cast<size_t>(s.n), 0);
  const auto polymorphic = [&](int64_t j) {
    std::set<int> seen;
    for (int64_t i = 0; i < s.n; ++i)
      if (s.at(j, i) >= 0) seen.insert(s.at(j, i));
    return seen.size() >= 2;
  };
  for (const truth_row& row : rows) {
    if (row.trait != trait) continue;
    if (row.kind == "qtl") {
      const int64_t j = index.at(row.id1);
      EXPECT_TRUE(polymorphic(j)) << row.id1;
      ld c;
      const auto x = centred(s, j, &c);
      EXPECT_NEAR(static_cast<double>(c), row.center1, 1e-13);
      for (int64_t i = 0; i < s.n; ++i) r.A[i] += row.value * x[i];
      ++r.qtl;
      r.shared += row.shared == 1;
      EXPECT_TRUE(r.variants.insert(row.id1).second) << row.id1 << " used twice by " << trait;
    } else if (row.kind == "pair") {
      const int64_t j1 = index.at(row.id1), j2 = index.at(row.id2);
      EXPECT_TRUE(polymorphic(j1) && polymorphic(j2)) << row.id1 << " " << row.id2;
      ld c1, c2;
      const auto x1 = centred(s, j1, &c1), x2 = centred(s, j2, &c2);
      EXPECT_NEAR(static_cast<double>(c1), row.center1, 1e-13);
      EXPECT_NEAR(static_cast<double>(c2), row.center2, 1e-13);
      std::vector<ld> w(static_cast<size_t>(s.n));
      for (int64_t i = 0; i < s.n; ++i) w[i] = x1[i] * x2[i] - (row.c0 + row.c1 * x1[i] + row.c2 * x2[i]);
      // The interaction term is the product's least-squares residual on 1, x1, x2: no mean and
      // no covariance with its own dosages.
      const ld sw = std::sqrt(cov(w, w)) + 1e-300L;
      EXPECT_LT(std::fabs(static_cast<double>(mean(w) / sw)), 1e-9) << row.id1 << " " << row.id2;
      EXPECT_LT(std::fabs(static_cast<double>(cov(w, x1) / (sw * std::sqrt(cov(x1, x1))))), 1e-9);
      EXPECT_LT(std::fabs(static_cast<double>(cov(w, x2) / (sw * std::sqrt(cov(x2, x2))))), 1e-9);
      for (int64_t i = 0; i < s.n; ++i) r.E[i] += row.value * w[i];
      ++r.pairs;
      r.shared += row.shared == 1;
      EXPECT_TRUE(r.variants.insert(row.id1).second) << row.id1 << " used twice by " << trait;
      EXPECT_TRUE(r.variants.insert(row.id2).second) << row.id2 << " used twice by " << trait;
    }
  }
  const ld lambda = scalar(rows, trait, "lambda");
  for (int64_t i = 0; i < s.n; ++i) r.E[i] -= lambda * r.A[i];
  r.G.resize(static_cast<size_t>(s.n));
  for (int64_t i = 0; i < s.n; ++i) r.G[i] = r.A[i] + r.E[i];
  return r;
}

std::string sim_args(const std::string& prefix, const std::string& extra) {
  return "simulate --samples 603 --variants 3000 --missing 0.02 --monomorphic 0.05 --chromosomes 5 --seed 11 "
         "--out " + test::shq(prefix) + " " + extra;
}

TEST(TraitSim, FilesRecomputeExactlyFromTheBed) {
  test::temp_dir dir;
  const std::string prefix = dir.path("s");
  const double h2 = 0.6, share = 0.4;
  ASSERT_EQ(0, test::panoramix(sim_args(prefix, "--traits 3 --qtl 20 --epistasis 10 --h2 0.6 --epistatic-share 0.4 "
                                                "--trait-correlation 0.3 --threads 2"),
                               dir.path("log")))
      << test::read_text(dir.path("log"));
  const fileset s = read_fileset(prefix);
  const std::vector<truth_row> rows = read_truth(prefix + ".truth");
  const pheno ph = read_pheno(prefix + ".pheno");
  EXPECT_EQ(ph.header, (std::vector<std::string>{"FID", "IID", "trait1", "trait2", "trait3"}));
  ASSERT_EQ(ph.iid.size(), static_cast<size_t>(s.n));
  EXPECT_EQ(ph.fid, s.fid);
  EXPECT_EQ(ph.iid, s.iid);
  std::vector<recomputed> r;
  for (int t = 0; t < 3; ++t) {
    const std::string name = "trait" + std::to_string(t + 1);
    SCOPED_TRACE(name);
    r.push_back(recompute(s, rows, name));
    const recomputed& x = r.back();
    EXPECT_EQ(x.qtl, 20);
    EXPECT_EQ(x.pairs, 10);
    EXPECT_EQ(x.shared, 6 + 3);  // round(0.3 * 20) QTL and round(0.3 * 10) pairs
    std::vector<ld> y(ph.y[t].begin(), ph.y[t].end()), e(static_cast<size_t>(s.n));
    for (int64_t i = 0; i < s.n; ++i) {
      ASSERT_FALSE(std::isnan(ph.y[t][i]));
      e[i] = y[i] - x.G[i];
    }
    const double va = cov(x.A, x.A), ve = cov(x.E, x.E), vg = cov(x.G, x.G), vy = cov(y, y), vr = cov(e, e);
    // The targets, exactly in the sample.
    EXPECT_NEAR(vy, 1.0, 1e-9);
    EXPECT_NEAR(vg / vy, h2, 1e-9);
    EXPECT_NEAR(ve / vg, share, 1e-9);
    EXPECT_NEAR(va, h2 * (1 - share), 1e-9);
    EXPECT_NEAR(static_cast<double>(cov(x.A, x.E)), 0.0, 1e-9);
    EXPECT_NEAR(static_cast<double>(cov(x.G, e)), 0.0, 1e-9);
    // The realised components the .truth reports.
    EXPECT_NEAR(scalar(rows, name, "var_additive"), va, 1e-9);
    EXPECT_NEAR(scalar(rows, name, "var_epistatic"), ve, 1e-9);
    EXPECT_NEAR(scalar(rows, name, "cov_additive_epistatic"), static_cast<double>(cov(x.A, x.E)), 1e-9);
    EXPECT_NEAR(scalar(rows, name, "var_genetic"), vg, 1e-9);
    EXPECT_NEAR(scalar(rows, name, "var_residual"), vr, 1e-9);
    EXPECT_NEAR(scalar(rows, name, "cov_genetic_residual"), static_cast<double>(cov(x.G, e)), 1e-9);
    EXPECT_NEAR(scalar(rows, name, "var_phenotypic"), vy, 1e-9);
    EXPECT_NEAR(scalar(rows, name, "h2"), vg / vy, 1e-9);
    EXPECT_NEAR(scalar(rows, name, "epistatic_share"), ve / vg, 1e-9);
  }
  // Shared QTL and pairs are the same variants in every trait; the reported correlations are those
  // of the recomputed genetic values.
  std::set<std::string> shared_ids[3];
  for (const truth_row& row : rows)
    if ((row.kind == "qtl" || row.kind == "pair") && row.shared == 1)
      shared_ids[row.trait.back() - '1'].insert(row.id1 + " " + row.id2);
  EXPECT_EQ(shared_ids[0].size(), 9u);
  EXPECT_EQ(shared_ids[0], shared_ids[1]);
  EXPECT_EQ(shared_ids[0], shared_ids[2]);
  for (int t = 0; t < 3; ++t)
    for (int u = t + 1; u < 3; ++u) {
      const double rho = cov(r[t].G, r[u].G) / std::sqrt(cov(r[t].G, r[t].G) * cov(r[u].G, r[u].G));
      EXPECT_NEAR(scalar(rows, "trait" + std::to_string(t + 1), "genetic_correlation", "trait" + std::to_string(u + 1)),
                  rho, 1e-9);
      EXPECT_GT(rho, 0.05);  // about 0.3 (shared QTL carry 30 % of each part's variance)
      EXPECT_LT(rho, 0.6);
    }
}

TEST(TraitSim, NoTraitsNoPhenotypesSameGenotypes) {
  test::temp_dir dir;
  ASSERT_EQ(0, test::panoramix(sim_args(dir.path("plain"), "--threads 2")));
  ASSERT_EQ(0, test::panoramix(sim_args(dir.path("traits"), "--traits 2 --qtl 5 --epistasis 3 --epistatic-share 0.5")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("plain.pheno")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("plain.truth")));
  for (const char* ext : {".bed", ".bim", ".fam"})
    EXPECT_EQ(test::read_text(dir.path(std::string("plain") + ext)), test::read_text(dir.path(std::string("traits") + ext)))
        << ext;
}

TEST(TraitSim, SameBytesForAnyThreadCountAndRun) {
  test::temp_dir dir;
  const std::string args = "--traits 4 --qtl 30 --epistasis 15 --h2 0.7 --epistatic-share 0.6 --trait-correlation 0.5 "
                           "--pheno-missing 0.1 ";
  // 9001 samples: three blocks of 4096 samples (the unit of the sums and residual streams), the
  // last one partial, and a partial last byte.
  const std::string big = "simulate --samples 9001 --variants 800 --missing 0.01 --seed 5 ";
  for (const auto& [name, threads] : std::vector<std::pair<std::string, int>>{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 2}})
    ASSERT_EQ(0, test::panoramix(big + args + "--threads " + std::to_string(threads) + " --out " + dir.path(name)));
  for (const char* other : {"b", "c", "d"})
    for (const char* ext : {".pheno", ".truth", ".bed"})
      EXPECT_EQ(test::read_text(dir.path(std::string("a") + ext)), test::read_text(dir.path(std::string(other) + ext)))
          << other << ext;
  ASSERT_EQ(0, test::panoramix("simulate --samples 9001 --variants 800 --missing 0.01 --seed 6 " + args + "--out " +
                               dir.path("e")));
  EXPECT_NE(test::read_text(dir.path("a.pheno")), test::read_text(dir.path("e.pheno")));

  // The library gives the same numbers for any thread count too.
  sim::genotype_params g;
  g.n_samples = 5000;
  g.n_variants = 600;
  g.missing_rate = 0.03;
  g.seed = 4;
  const sim::dataset d = sim::simulate_genotypes(g, 2);
  sim::trait_params p;
  p.n_traits = 2;
  p.n_qtl = 10;
  p.n_pairs = 5;
  p.epistatic_share = 0.3;
  p.missing_fraction = 0.2;
  p.seed = 9;
  const sim::trait_dataset one = sim::simulate_traits(p, d.genotypes.view(), 1);
  for (int threads : {2, 4}) {
    const sim::trait_dataset more = sim::simulate_traits(p, d.genotypes.view(), threads);
    ASSERT_EQ(one.phenotype.size(), more.phenotype.size());
    EXPECT_EQ(0, std::memcmp(one.phenotype.data(), more.phenotype.data(), one.phenotype.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(one.genetic.data(), more.genetic.data(), one.genetic.size() * sizeof(double)));
  }
}

TEST(TraitSim, MissingPhenotypesOnlyMask) {
  test::temp_dir dir;
  const std::string args = "--traits 2 --qtl 10 --epistasis 4 --epistatic-share 0.5 ";
  ASSERT_EQ(0, test::panoramix(sim_args(dir.path("full"), args)));
  ASSERT_EQ(0, test::panoramix(sim_args(dir.path("holes"), args + "--pheno-missing 0.25")));
  const pheno full = read_pheno(dir.path("full.pheno")), holes = read_pheno(dir.path("holes.pheno"));
  EXPECT_EQ(without_comments(dir.path("full.truth")), without_comments(dir.path("holes.truth")));
  std::set<size_t> missing[2];
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; i < full.y[t].size(); ++i) {
      EXPECT_FALSE(std::isnan(full.y[t][i]));
      if (std::isnan(holes.y[t][i]))
        missing[t].insert(i);
      else
        EXPECT_EQ(holes.y[t][i], full.y[t][i]);
    }
    EXPECT_EQ(missing[t].size(), static_cast<size_t>(std::llround(0.25 * 603)));
  }
  EXPECT_NE(missing[0], missing[1]);  // each trait has its own missing samples
  EXPECT_NE(test::read_text(dir.path("holes.pheno")).find(" NA"), std::string::npos);
}

TEST(TraitSim, ValidationNamesTheParameter) {
  const auto message = [](const sim::trait_params& p, int64_t n, int64_t m) -> std::string {
    try {
      sim::validate(p, n, m);
    } catch (const input_error& e) {
      return e.what();
    }
    return "accepted";
  };
  const auto with = [](auto change) {
    sim::trait_params p;
    p.n_traits = 2;
    p.n_qtl = 10;
    p.n_pairs = 5;
    p.epistatic_share = 0.5;
    change(p);
    return p;
  };
  EXPECT_EQ(message(with([](auto&) {}), 100, 1000), "accepted");
  const std::vector<std::pair<sim::trait_params, std::string>> cases = {
      {with([](auto& p) { p.n_traits = -1; }), "simulate: --traits must be in [0, 100], got -1"},
      {with([](auto& p) { p.n_traits = 101; }), "simulate: --traits must be in [0, 100], got 101"},
      {with([](auto& p) { p.n_qtl = -3; }), "simulate: --qtl must be at least 0, got -3"},
      {with([](auto& p) { p.n_pairs = -1; }), "simulate: --epistasis must be at least 0, got -1"},
      {with([](auto& p) { p.h2 = NAN; }), "simulate: --h2 must be in [0, 1], got nan"},
      {with([](auto& p) { p.h2 = INFINITY; }), "simulate: --h2 must be in [0, 1], got inf"},
      {with([](auto& p) { p.h2 = 1.5; }), "simulate: --h2 must be in [0, 1], got 1.5"},
      {with([](auto& p) { p.epistatic_share = -0.1; }), "simulate: --epistatic-share must be in [0, 1], got -0.1"},
      {with([](auto& p) { p.epistatic_share = NAN; }), "simulate: --epistatic-share must be in [0, 1], got nan"},
      {with([](auto& p) { p.trait_correlation = 2; }), "simulate: --trait-correlation must be in [0, 1], got 2"},
      {with([](auto& p) { p.trait_correlation = -INFINITY; }),
       "simulate: --trait-correlation must be in [0, 1], got -inf"},
      {with([](auto& p) { p.missing_fraction = 1; }), "simulate: --pheno-missing must be in [0, 1), got 1"},
      {with([](auto& p) { p.missing_fraction = NAN; }), "simulate: --pheno-missing must be in [0, 1), got nan"},
      {with([](auto& p) { p.n_qtl = 991; }),
       "simulate: --qtl 991 and --epistasis 5 need --qtl + 2 x --epistasis distinct variants per trait, but there "
       "are only 1000 variants"},
      {with([](auto& p) { p.n_pairs = 0; }), "simulate: --epistatic-share 0.5 needs epistatic pairs (--epistasis > 0)"},
      {with([](auto& p) { p.n_qtl = 0; }),
       "simulate: --epistatic-share 0.5 leaves additive variance, which needs --qtl > 0"},
      {with([](auto& p) { p.missing_fraction = 0.999; }),
       "simulate: --pheno-missing 0.999 leaves no phenotype of the 100 samples"},
  };
  for (const auto& [p, want] : cases) EXPECT_EQ(message(p, 100, 1000), want);
  EXPECT_EQ(message(with([](auto&) {}), 1, 1000), "simulate: --traits needs at least 2 samples, got 1");
  // Without heritability the shares ask for nothing; without traits nothing else is needed.
  EXPECT_EQ(message(with([](auto& p) { p.h2 = 0, p.n_qtl = 0, p.n_pairs = 0; }), 100, 1000), "accepted");
  EXPECT_EQ(message(with([](auto& p) { p.n_traits = 0, p.n_qtl = 5000; }), 100, 1000), "accepted");

  // Polymorphic variants are counted on the genotypes.
  sim::genotype_params g;
  g.n_samples = 50;
  g.n_variants = 200;
  g.monomorphic_fraction = 0.95;
  const sim::dataset d = sim::simulate_genotypes(g, 1);
  sim::trait_params p = with([](auto& q) { q.n_qtl = 40; });
  try {
    sim::simulate_traits(p, d.genotypes.view(), 1);
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("polymorphic"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("simulate: --qtl 40 and --epistasis 5 need 50 distinct polymorphic", 0), 0u)
        << e.what();
  }
}

TEST(TraitSim, CommandLineErrorsExitTwoAndWriteNothing) {
  test::temp_dir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--traits 2 --h2 nan", "--h2 must be in [0, 1], got nan"},
      {"--traits 2 --h2 1.2", "--h2 must be in [0, 1], got 1.2"},
      {"--traits 2 --epistatic-share 0.5", "--epistatic-share 0.5 needs epistatic pairs"},
      {"--traits 2 --qtl 3000 --epistasis 1", "need --qtl + 2 x --epistasis distinct variants"},
      {"--traits 2 --pheno-missing 1", "--pheno-missing must be in [0, 1), got 1"},
      {"--traits -1", "--traits must be in [0, 100], got -1"},
      {"--qtl 5", "--qtl needs --traits"},
      {"--epistasis 5 --epistatic-share 0.2", "needs --traits"},
      {"--traits 1 --qtl 2990", "distinct polymorphic variants per trait, but only"},
  };
  int k = 0;
  for (const auto& [args, want] : cases) {
    const std::string prefix = dir.path("bad" + std::to_string(k++)), log = prefix + ".stderr";
    EXPECT_EQ(2, test::panoramix(sim_args(prefix, args), log)) << args;
    EXPECT_NE(test::read_text(log).find(want), std::string::npos) << args << ": " << test::read_text(log);
    for (const char* ext : {".pheno", ".truth", ".bed"}) EXPECT_FALSE(std::filesystem::exists(prefix + ext)) << args;
  }
  const std::string help = dir.path("help");
  EXPECT_EQ(0, test::panoramix("simulate --help", help));
  for (const char* flag : {"--traits", "--qtl", "--epistasis", "--h2", "--epistatic-share", "--trait-correlation",
                           "--pheno-missing", "PREFIX.truth"})
    EXPECT_NE(test::read_text(help).find(flag), std::string::npos) << flag;
}

// R² of the least-squares fit of y on an intercept and the columns of X (modified Gram–Schmidt,
// long double, columns that add nothing new skipped).
double r_squared(const std::vector<ld>& y, std::vector<std::vector<ld>> X) {
  const size_t n = y.size();
  std::vector<ld> r = y;
  const ld my = mean(y);
  for (ld& v : r) v -= my;
  const ld total = cov(r, r) * n;
  std::vector<std::vector<ld>> q;
  for (auto& x : X) {
    const ld mx = mean(x);
    for (ld& v : x) v -= mx;
    ld before = 0;
    for (ld v : x) before += v * v;
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& b : q) {
        ld d = 0;
        for (size_t i = 0; i < n; ++i) d += b[i] * x[i];
        for (size_t i = 0; i < n; ++i) x[i] -= d * b[i];
      }
    ld norm = 0;
    for (ld v : x) norm += v * v;
    if (norm <= 1e-20L * before) continue;
    for (ld& v : x) v /= std::sqrt(norm);
    ld d = 0;
    for (size_t i = 0; i < n; ++i) d += x[i] * r[i];
    for (size_t i = 0; i < n; ++i) r[i] -= d * x[i];
    q.push_back(std::move(x));
  }
  ld left = 0;
  for (ld v : r) left += v * v;
  return static_cast<double>(1 - left / total);
}

// With the whole genetic variance epistatic, a regression on the trait's own variants (its QTL and
// both variants of each pair) explains what any k regressors explain of noise; without epistasis
// it explains h2 plus that much of the residual. Under the null, R² of k regressors on n samples
// is Beta(k/2, (n-k-1)/2): mean k/(n-1), sd about sqrt(2k)/n; six sd bound the chance part.
TEST(TraitSim, AdditiveRegressionSeesOnlyTheAdditivePart) {
  test::temp_dir dir;
  const int64_t n = 4000, Q = 20, P = 10, k = Q + 2 * P;
  const double h2 = 0.5, chance = static_cast<double>(k) / (n - 1) + 6 * std::sqrt(2.0 * k) / n;
  for (const char* share : {"0", "1"}) {
    const std::string prefix = dir.path(std::string("e") + share);
    ASSERT_EQ(0, test::panoramix("simulate --samples 4000 --variants 2000 --missing 0.01 --seed 21 --traits 2 --qtl 20 "
                                 "--epistasis 10 --h2 0.5 --epistatic-share " + std::string(share) +
                                 " --out " + prefix));
    const fileset s = read_fileset(prefix);
    const std::vector<truth_row> rows = read_truth(prefix + ".truth");
    const pheno ph = read_pheno(prefix + ".pheno");
    std::map<std::string, int64_t> index;
    for (int64_t j = 0; j < s.m; ++j) index[s.variant_id[j]] = j;
    for (int t = 0; t < 2; ++t) {
      const std::string name = "trait" + std::to_string(t + 1);
      std::vector<std::vector<ld>> X;
      for (const truth_row& row : rows)
        if (row.trait == name && (row.kind == "qtl" || row.kind == "pair")) {
          X.push_back(centred(s, index.at(row.id1)));
          if (row.kind == "pair") X.push_back(centred(s, index.at(row.id2)));
        }
      ASSERT_EQ(static_cast<int64_t>(X.size()), k);
      const std::vector<ld> y(ph.y[t].begin(), ph.y[t].end());
      const double r2 = r_squared(y, X);
      SCOPED_TRACE(name + " epistatic share " + share + ": R² " + std::to_string(r2));
      std::printf("%s share %s: R2 %.6f (chance bound %.6f)\n", name.c_str(), share, r2, chance);
      if (share[0] == '1') {
        EXPECT_LT(r2, chance);
      } else {
        EXPECT_GT(r2, h2 - 1e-9);
        EXPECT_LT(r2, h2 + (1 - h2) * chance);
      }
    }
  }
}

}  // namespace
}  // namespace pmx
