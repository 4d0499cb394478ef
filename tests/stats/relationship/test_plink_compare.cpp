// panoramix vs PLINK 1.9 and PLINK 2, side by side, on the real datasets under ../shared/data and on
// simulated sets: .afreq (plink2 --freq), .rel.bin (--make-rel square bin, both PLINKs), GCTA
// .grm.bin/.grm.N.bin/.grm.id (plink1.9 --make-grm-bin), --keep/--extract subsets, and VanRaden
// against an oracle computed here from the raw .bed bytes in long double.
//
// Every tool runs once per (dataset, command) in one temporary directory shared by the whole file;
// the tests then compare the files. Missing peers or datasets skip with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

namespace fs = std::filesystem;

std::string pmx_bin() { return PMX_BINARY; }

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", x);
  return buf;
}

// ------------------------------------------------------------------------------------------------
// Datasets

struct dataset {
  std::string name;     ///< test-name suffix and output file stem
  std::string source;   ///< path under ../shared/data, or "" for generated sets
  std::string species;  ///< extra flag for PLINK and panoramix ("--cow"), or ""
  std::string simulate; ///< panoramix simulate arguments for generated sets ("" = not simulated)
};

void PrintTo(const dataset& d, std::ostream* os) { *os << d.name; }

// Sets written with the library's writer from random_genotypes(): variant 0 has no call at all
// (plink2 prints nan, the GRMs use 0.5), variant 1 is monomorphic, 10% of calls are missing, and
// 38 samples are nonfounders whose parents are in the data, so frequencies must come from
// founders only (both PLINKs do so by default).
//  "adversarial": autosomes, chromosome 0, X and XY; every sex unknown, so PLINK 2 counts X
//                 diploid, as panoramix always does.
//  "chrom_codes": the same with other spellings: chr1, chr22, 23 (X), 25 (XY). PLINK 2 prints
//                 canonical names (1, 22, X, XY) in .afreq.
//  "haploid":     Y, MT (also as 24, 26) and X with males and females: PLINK 2 counts haploid
//                 calls once (and male het X calls as missing) in .afreq; the GRMs drop X/Y/MT.
std::string make_generated_set(const std::string& prefix, const std::string& kind) {
  const bool haploid = kind == "haploid";
  const int64_t n = 203, k = 517;
  const packed_genotypes g = random_genotypes(n, k, 0.10, haploid ? 777 : 20240607, true);
  std::vector<sample_record> samples(n);
  for (int64_t i = 0; i < n; ++i) {
    auto& s = samples[i];
    s.fid = std::string("fam") + std::to_string(i / 10);
    s.iid = std::string("ind") + std::to_string(i);
    s.father = s.mother = "0";
    const int64_t first = (i / 10) * 10;
    if (i % 5 == 4 && i >= 10 && i - first >= 2) {  // parents: earlier members of the family
      s.father = std::string("ind") + std::to_string(first);
      s.mother = std::string("ind") + std::to_string(first + 1);
    }
    s.sex = haploid ? static_cast<int>(i % 3) : 0;
    s.phenotype = "-9";
  }
  const char* autosomal[] = {"1", "2", "3", "22", "0", "X", "XY", "5", "6", "7"};
  const char* codes[] = {"chr1", "chr2", "3", "chr22", "0", "23", "25", "5", "6", "7"};
  const char* with_haploid[] = {"1", "2", "Y", "24", "MT", "26", "X", "XY", "3", "4"};
  const char** names = haploid ? with_haploid : kind == "chrom_codes" ? codes : autosomal;
  std::vector<variant_record> variants(k);
  for (int64_t j = 0; j < k; ++j) {
    auto& v = variants[j];
    // Contiguous blocks (plink2 refuses split chromosomes); variants 0 and 1 on chromosome 1.
    v.chrom = names[j * 10 / k];
    v.id = std::string("v") + std::to_string(j);
    v.pos = 1000 + j;
    v.a1 = (j % 2) ? "A" : "C";
    v.a2 = (j % 2) ? "G" : "T";
  }
  write_plink_fileset(prefix, samples, variants, g.view());
  return prefix;
}

/// Prefix of a dataset, generating simulated sets on first use; "" when a shared set is absent.
std::string prefix_of(const dataset& d) {
  static std::map<std::string, std::string> made;
  if (!d.source.empty()) return shared_data(d.source);
  auto it = made.find(d.name);
  if (it != made.end()) return it->second;
  const std::string prefix = work().path(d.name);
  if (d.simulate == "adversarial" || d.simulate == "chrom_codes" || d.simulate == "haploid") {
    make_generated_set(prefix, d.simulate);
  } else {
    const int rc = panoramix("simulate " + d.simulate + " --threads 2 --out " + shq(prefix),
                             prefix + ".simulate.txt");
    if (rc != 0) throw std::runtime_error("panoramix simulate failed for " + d.name + ": " +
                                          read_text(prefix + ".simulate.txt"));
  }
  made.emplace(d.name, prefix);
  return prefix;
}

const std::vector<dataset>& datasets() {
  static const std::vector<dataset> all = {
      {"mice", "bglr_mice/mice", "", ""},
      {"hapmap3", "hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap", "", ""},
      {"rice44k", "rice44k/UNL", "", ""},
      {"cattle", "synbreed_cattle/cattle", "--cow", ""},
      {"wheat", "bglr_wheat/wheat_dart", "", ""},
      {"maize282", "gapit_maize282/mdp_maize282", "", ""},
      {"sim600x8000", "", "", "--samples 600 --variants 8000 --missing 0.05 --seed 11"},
      {"sim333x3001", "", "",
       "--samples 333 --variants 3001 --missing 0.05 --monomorphic 0.02 --seed 5 --chromosomes 7"},
      {"adversarial", "", "", "adversarial"},
      {"chrom_codes", "", "", "chrom_codes"},
      {"haploid", "", "", "haploid"},
  };
  return all;
}

// ------------------------------------------------------------------------------------------------
// Readers

struct afreq_row {
  std::string chrom, id, ref, alt, freq_text;
  double freq = 0;
  long long obs = -1;
};

/// Reads a PLINK 2 style .afreq, locating the columns by their header names (plink2 versions
/// differ in the optional columns they add, e.g. PROVISIONAL_REF?).
std::vector<afreq_row> read_afreq(const std::string& path, std::string* header_out = nullptr) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(path + ": empty");
  if (header_out) *header_out = line;
  std::vector<std::string> header;
  {
    std::istringstream ss(line);
    for (std::string w; ss >> w;) header.push_back(w);
  }
  auto col = [&](const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::runtime_error(path + ": no column " + name);
    return static_cast<size_t>(it - header.begin());
  };
  const size_t c_chrom = col("#CHROM"), c_id = col("ID"), c_ref = col("REF"), c_alt = col("ALT"),
               c_freq = col("ALT_FREQS"), c_obs = col("OBS_CT");
  std::vector<afreq_row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ss(line);
    for (std::string w; ss >> w;) f.push_back(w);
    if (f.size() != header.size())
      throw std::runtime_error(path + ": line with " + std::to_string(f.size()) + " fields: " + line);
    afreq_row r;
    r.chrom = f[c_chrom];
    r.id = f[c_id];
    r.ref = f[c_ref];
    r.alt = f[c_alt];
    r.freq_text = f[c_freq];
    char* end = nullptr;
    r.freq = std::strtod(r.freq_text.c_str(), &end);
    if (end != r.freq_text.c_str() + r.freq_text.size())
      throw std::runtime_error(path + ": bad frequency '" + r.freq_text + "'");
    r.obs = std::stoll(f[c_obs]);
    rows.push_back(std::move(r));
  }
  return rows;
}

struct sample_id {
  std::string fid, iid;  ///< fid "" when the file has no FID column
};

/// Reads .rel.id / .grm.id: optional '#' header line naming the columns, then FID IID (or IID).
std::vector<sample_id> read_ids(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<sample_id> ids;
  bool iid_only = false;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    if (f.empty()) continue;
    if (f[0][0] == '#') {
      iid_only = f[0] == "#IID";
      continue;
    }
    if (iid_only) ids.push_back({"", f[0]});
    else if (f.size() >= 2) ids.push_back({f[0], f[1]});
    else throw std::runtime_error(path + ": line with one field: " + line);
  }
  return ids;
}

int64_t count_lines(const std::string& path) {
  std::ifstream in(path);
  int64_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ------------------------------------------------------------------------------------------------
// Comparisons (each reports the count and the first few differences)

void expect_same_afreq(const std::string& ours, const std::string& plink) {
  std::string header;
  const auto a = read_afreq(ours, &header), b = read_afreq(plink);
  EXPECT_EQ(header, "#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT") << ours;
  ASSERT_EQ(a.size(), b.size()) << "row counts differ: " << ours << " vs " << plink;
  // PLINK 2 prints 6 significant digits and so does panoramix: two roundings of the same value
  // to 6 significant digits (values <= 1) are at most 1e-6 apart; 1e-12 covers decimal parsing.
  const double tol = 1e-6 + 1e-12;
  int64_t bad = 0, nan_rows = 0;
  double max_diff = 0;
  std::string first;
  for (size_t j = 0; j < a.size(); ++j) {
    const auto &x = a[j], &y = b[j];
    const bool xnan = std::isnan(x.freq), ynan = std::isnan(y.freq);
    nan_rows += ynan;
    bool ok = x.chrom == y.chrom && x.id == y.id && x.ref == y.ref && x.alt == y.alt &&
              x.obs == y.obs && xnan == ynan;
    if (ynan) ok = ok && x.freq_text == "nan";
    if (!xnan && !ynan) {
      const double d = std::abs(x.freq - y.freq);
      max_diff = std::max(max_diff, d);
      ok = ok && d <= tol;
    }
    if (!ok && ++bad <= 5)
      first += "\n  row " + std::to_string(j + 2) + ": panoramix " + x.chrom + " " + x.id + " " +
               x.ref + " " + x.alt + " " + x.freq_text + " " + std::to_string(x.obs) + " | plink2 " +
               y.chrom + " " + y.id + " " + y.ref + " " + y.alt + " " + y.freq_text + " " +
               std::to_string(y.obs);
  }
  EXPECT_EQ(bad, 0) << bad << " of " << a.size() << " rows differ (" << ours << " vs " << plink
                    << "), first:" << first;
  ::testing::Test::RecordProperty("afreq_max_abs_diff", sci(max_diff));
  ::testing::Test::RecordProperty("afreq_nan_rows", std::to_string(nan_rows));
}

void expect_same_ids(const std::string& ours, const std::string& theirs) {
  const auto a = read_ids(ours), b = read_ids(theirs);
  ASSERT_EQ(a.size(), b.size()) << ours << " vs " << theirs;
  int64_t bad = 0;
  std::string first;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool ok = a[i].iid == b[i].iid && (a[i].fid.empty() || b[i].fid.empty() || a[i].fid == b[i].fid);
    if (!ok && ++bad <= 5)
      first += "\n  line " + std::to_string(i + 1) + ": " + a[i].fid + " " + a[i].iid + " vs " +
               b[i].fid + " " + b[i].iid;
  }
  EXPECT_EQ(bad, 0) << "sample order differs between " << ours << " and " << theirs << first;
}

/// Square n×n float64 matrices, max |a-b| <= tol; NaN on one side only is a difference.
void expect_close_square(const std::string& ours, const std::string& theirs, int64_t n, double tol) {
  const auto a = read_doubles(ours), b = read_doubles(theirs);
  ASSERT_EQ(a.size(), static_cast<size_t>(n * n)) << ours;
  ASSERT_EQ(b.size(), static_cast<size_t>(n * n)) << theirs;
  double max_diff = 0;
  int64_t where = -1, nan_mismatch = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    if (std::isnan(a[k]) || std::isnan(b[k])) {
      nan_mismatch += std::isnan(a[k]) != std::isnan(b[k]);
      continue;
    }
    const double d = std::abs(a[k] - b[k]);
    if (d > max_diff) max_diff = d, where = static_cast<int64_t>(k);
  }
  EXPECT_EQ(nan_mismatch, 0) << "entries NaN on one side only: " << ours << " vs " << theirs;
  EXPECT_LE(max_diff, tol) << ours << " vs " << theirs << ": worst at (" << where / n << ", "
                           << where % n << "): " << a[where] << " vs " << b[where];
  ::testing::Test::RecordProperty("max_abs_diff", sci(max_diff));
}

/// GCTA float32 lower triangles: the same double rounded to float32 on both sides can differ by
/// one ulp when the doubles differ in their last bits (~6e-8 relative), so 1e-6 relative is ample;
/// the max(|b|, 1e-6) guard only matters for entries near zero, where it allows 1e-12 absolute.
/// No absolute slack is needed (measured: the files are bit-identical on every set tried).
void expect_close_grm_bin(const std::string& ours, const std::string& theirs, int64_t n) {
  const auto a = read_floats(ours), b = read_floats(theirs);
  const size_t tri = static_cast<size_t>(n * (n + 1) / 2);
  ASSERT_EQ(a.size(), tri) << ours;
  ASSERT_EQ(b.size(), tri) << theirs;
  int64_t bad = 0;
  double worst = 0;
  size_t where = 0;
  for (size_t k = 0; k < tri; ++k) {
    const double x = a[k], y = b[k];
    const double d = std::abs(x - y), allowed = 1e-6 * std::max(std::abs(y), 1e-6);
    if (std::isnan(x) != std::isnan(y) || d > allowed) ++bad;
    if (d / allowed > worst) worst = d / allowed, where = k;
  }
  EXPECT_EQ(bad, 0) << bad << " entries out of tolerance, " << ours << " vs " << theirs
                    << "; worst (flat lower-triangle index " << where << "): " << a[where] << " vs "
                    << b[where];
}

// ------------------------------------------------------------------------------------------------
// Running the three tools on a dataset (each command once per file run)

struct run_paths {
  std::string input, pmx, pmx_gcta, p2, p1rel, p1grm;
};

/// `subset` holds extra input flags (--keep/--extract) shared by all three tools; `tag` names the
/// output files. Returns the failure text when a tool fails ("" when all succeeded).
std::string run_tools(const dataset& d, const std::string& input, const std::string& subset,
                      const std::string& tag, run_paths& p, bool want_pmx_freq, bool want_rel,
                      bool want_gcta, bool want_p2, bool want_p1rel, bool want_p1grm) {
  const std::string in = "--bfile " + shq(input) + (d.species.empty() ? "" : " " + d.species) +
                         (subset.empty() ? "" : " " + subset);
  p.input = input;
  p.pmx = work().path(tag + ".pmx");
  p.pmx_gcta = work().path(tag + ".pmx_gcta");
  p.p2 = work().path(tag + ".plink2");
  p.p1rel = work().path(tag + ".plink19rel");
  p.p1grm = work().path(tag + ".plink19grm");
  struct job {
    bool want;
    std::string cmd, log;
  };
  const std::string pm = pmx_bin() + " ";
  const job jobs[] = {
      {want_pmx_freq, pm + "freq " + in + " --threads 2 --out " + shq(p.pmx), p.pmx + ".freq.txt"},
      {want_rel, pm + "grm " + in + " --threads 2 --out " + shq(p.pmx), p.pmx + ".grm.txt"},
      {want_gcta, pm + "grm " + in + " --format gcta --threads 2 --out " + shq(p.pmx_gcta),
       p.pmx_gcta + ".txt"},
      {want_p2, "plink2 " + in + " --freq --make-rel square bin --threads 2 --out " + shq(p.p2),
       p.p2 + ".txt"},
      {want_p1rel,
       "plink1.9 " + in + " --keep-allele-order --make-rel square bin --threads 2 --out " + shq(p.p1rel),
       p.p1rel + ".txt"},
      {want_p1grm, "plink1.9 " + in + " --keep-allele-order --make-grm-bin --threads 2 --out " + shq(p.p1grm),
       p.p1grm + ".txt"},
  };
  for (const auto& j : jobs) {
    if (!j.want) continue;
    const int rc = run_once(j.cmd, j.log);
    if (rc != 0)
      return "command failed (exit " + std::to_string(rc) + "): " + j.cmd + "\n" + read_text(j.log);
  }
  return "";
}

#define PMX_REQUIRE_PROGRAM(prog) \
  if (!have_program(prog)) GTEST_SKIP() << prog " is not on PATH; cannot compare against it"

// ------------------------------------------------------------------------------------------------
// Whole-dataset comparisons, one instance per dataset

class PlinkCompare : public ::testing::TestWithParam<dataset> {
 protected:
  void SetUp() override {
    const dataset& d = GetParam();
    input_ = prefix_of(d);
    if (input_.empty())
      GTEST_SKIP() << "dataset " << d.source << " (.bed/.bim/.fam) not found under " << PMX_SHARED_DATA;
  }
  /// Number of samples in the outputs (all samples of the .fam: no --keep here).
  int64_t n() const { return count_lines(input_ + ".fam"); }
  std::string input_;
};

TEST_P(PlinkCompare, AfreqMatchesPlink2) {
  PMX_REQUIRE_PROGRAM("plink2");
  run_paths p;
  const auto err = run_tools(GetParam(), input_, "", GetParam().name, p, true, false, false, true,
                             false, false);
  ASSERT_EQ(err, "");
  expect_same_afreq(p.pmx + ".afreq", p.p2 + ".afreq");
}

TEST_P(PlinkCompare, RelBinMatchesPlink19) {
  PMX_REQUIRE_PROGRAM("plink1.9");
  run_paths p;
  const auto err = run_tools(GetParam(), input_, "", GetParam().name, p, false, true, false, false,
                             true, false);
  ASSERT_EQ(err, "");
  expect_close_square(p.pmx + ".rel.bin", p.p1rel + ".rel.bin", n(), 1e-10);
  expect_same_ids(p.pmx + ".rel.id", p.p1rel + ".rel.id");
}

TEST_P(PlinkCompare, RelBinMatchesPlink2) {
  PMX_REQUIRE_PROGRAM("plink2");
  run_paths p;
  const auto err = run_tools(GetParam(), input_, "", GetParam().name, p, false, true, false, true,
                             false, false);
  ASSERT_EQ(err, "");
  expect_close_square(p.pmx + ".rel.bin", p.p2 + ".rel.bin", n(), 1e-10);
  expect_same_ids(p.pmx + ".rel.id", p.p2 + ".rel.id");
}

TEST_P(PlinkCompare, GctaMatchesPlink19) {
  PMX_REQUIRE_PROGRAM("plink1.9");
  run_paths p;
  const auto err = run_tools(GetParam(), input_, "", GetParam().name, p, false, false, true, false,
                             false, true);
  ASSERT_EQ(err, "");
  expect_close_grm_bin(p.pmx_gcta + ".grm.bin", p.p1grm + ".grm.bin", n());
  const std::string a = file_bytes(p.pmx_gcta + ".grm.N.bin"), b = file_bytes(p.p1grm + ".grm.N.bin");
  EXPECT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b) << ".grm.N.bin differs from plink1.9's";
  expect_same_ids(p.pmx_gcta + ".grm.id", p.p1grm + ".grm.id");
}

INSTANTIATE_TEST_SUITE_P(Datasets, PlinkCompare, ::testing::ValuesIn(datasets()),
                         [](const ::testing::TestParamInfo<dataset>& i) { return i.param.name; });

// ------------------------------------------------------------------------------------------------
// --keep / --extract against PLINK's own --keep / --extract

struct subset_files {
  std::string keep_fid_iid, keep_iid_header, extract;
  int64_t n_kept = 0;
};

/// Every third sample (listed in reverse order, plus a line naming nobody: PLINK keeps .fam order
/// and ignores unknown IDs), every second variant plus a few absent IDs.
subset_files make_subset_files(const std::string& input, const std::string& tag) {
  subset_files s;
  s.keep_fid_iid = work().path(tag + ".keep");
  s.keep_iid_header = work().path(tag + ".keep_iid");
  s.extract = work().path(tag + ".extract");
  std::vector<std::pair<std::string, std::string>> kept;
  {
    std::ifstream fam(input + ".fam");
    std::string fid, iid, rest;
    for (int64_t i = 0; fam >> fid >> iid && std::getline(fam, rest); ++i)
      if (i % 3 == 1) kept.emplace_back(fid, iid);
  }
  s.n_kept = static_cast<int64_t>(kept.size());
  {
    std::ofstream k(s.keep_fid_iid), h(s.keep_iid_header);
    h << "#IID\n";
    for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
      k << it->first << '\t' << it->second << '\n';
      h << it->second << '\n';
    }
    k << "no_such_family no_such_sample\n";
    h << "no_such_sample\n";
  }
  {
    std::ifstream bim(input + ".bim");
    std::ofstream e(s.extract);
    std::string line;
    for (int64_t j = 0; std::getline(bim, line); ++j) {
      std::istringstream ss(line);
      std::string chrom, id;
      ss >> chrom >> id;
      if (j % 2 == 0) e << id << '\n';
    }
    e << "no_such_variant_1\nno_such_variant_2\n";
  }
  return s;
}

class SubsetCompare : public ::testing::Test {
 protected:
  void SetUp() override {
    input_ = shared_data(source_);
    if (input_.empty()) GTEST_SKIP() << "dataset " << source_ << " not found under " << PMX_SHARED_DATA;
    files_ = make_subset_files(input_, "hapmap3_subset");
  }
  std::string flags() const { return "--keep " + shq(files_.keep_fid_iid) + " --extract " + shq(files_.extract); }
  const dataset d_{"hapmap3", "hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap", "", ""};
  const std::string source_ = d_.source;
  std::string input_;
  subset_files files_;
};

TEST_F(SubsetCompare, KeepExtractAfreqMatchesPlink2) {
  PMX_REQUIRE_PROGRAM("plink2");
  run_paths p;
  ASSERT_EQ(run_tools(d_, input_, flags(), "hapmap3_subset", p, true, false, false, true, false, false), "");
  expect_same_afreq(p.pmx + ".afreq", p.p2 + ".afreq");
  EXPECT_LT(count_lines(p.pmx + ".afreq") - 1, count_lines(input_ + ".bim")) << "--extract had no effect";
}

TEST_F(SubsetCompare, KeepExtractRelBinMatchesBothPlinks) {
  PMX_REQUIRE_PROGRAM("plink1.9");
  PMX_REQUIRE_PROGRAM("plink2");
  run_paths p;
  ASSERT_EQ(run_tools(d_, input_, flags(), "hapmap3_subset", p, false, true, false, true, true, false), "");
  ASSERT_EQ(static_cast<int64_t>(read_ids(p.pmx + ".rel.id").size()), files_.n_kept);
  expect_close_square(p.pmx + ".rel.bin", p.p1rel + ".rel.bin", files_.n_kept, 1e-10);
  expect_close_square(p.pmx + ".rel.bin", p.p2 + ".rel.bin", files_.n_kept, 1e-10);
  expect_same_ids(p.pmx + ".rel.id", p.p1rel + ".rel.id");
  expect_same_ids(p.pmx + ".rel.id", p.p2 + ".rel.id");
}

TEST_F(SubsetCompare, KeepExtractGctaMatchesPlink19) {
  PMX_REQUIRE_PROGRAM("plink1.9");
  run_paths p;
  ASSERT_EQ(run_tools(d_, input_, flags(), "hapmap3_subset", p, false, false, true, false, false, true), "");
  expect_close_grm_bin(p.pmx_gcta + ".grm.bin", p.p1grm + ".grm.bin", files_.n_kept);
  EXPECT_TRUE(file_bytes(p.pmx_gcta + ".grm.N.bin") == file_bytes(p.p1grm + ".grm.N.bin"))
      << ".grm.N.bin differs from plink1.9's";
  expect_same_ids(p.pmx_gcta + ".grm.id", p.p1grm + ".grm.id");
}

// The one-column "#IID" --keep form selects by IID alone in panoramix (IIDs are unique in this
// set). PLINK 2 a3.5 reads the same file as FID "0" + IID and keeps nobody here, so the reference
// is plink2 given the equivalent FID IID file.
TEST_F(SubsetCompare, KeepIidHeaderMatchesPlink2WithFidIidKeep) {
  PMX_REQUIRE_PROGRAM("plink2");
  run_paths ours, theirs;
  const std::string f = "--keep " + shq(files_.keep_iid_header) + " --extract " + shq(files_.extract);
  ASSERT_EQ(run_tools(d_, input_, f, "hapmap3_subset_iid", ours, true, true, false, false, false, false), "");
  ASSERT_EQ(run_tools(d_, input_, flags(), "hapmap3_subset", theirs, false, false, false, true, false, false), "");
  ASSERT_EQ(static_cast<int64_t>(read_ids(ours.pmx + ".rel.id").size()), files_.n_kept);
  expect_close_square(ours.pmx + ".rel.bin", theirs.p2 + ".rel.bin", files_.n_kept, 1e-10);
  expect_same_ids(ours.pmx + ".rel.id", theirs.p2 + ".rel.id");
  expect_same_afreq(ours.pmx + ".afreq", theirs.p2 + ".afreq");
}

// ------------------------------------------------------------------------------------------------
// VanRaden against an oracle computed here from the .bed bytes

TEST(VanRadenOracle, SimulatedWithMissingCalls) {
  const auto it = std::find_if(datasets().begin(), datasets().end(),
                               [](const dataset& x) { return x.name == "sim600x8000"; });
  ASSERT_NE(it, datasets().end());
  const dataset& d = *it;  // 600 samples x 8000 variants, 5% missing calls
  const std::string input = prefix_of(d);
  const std::string out = work().path("vanraden.pmx");
  ASSERT_EQ(panoramix("grm --method vanraden --bfile " + shq(input) + " --threads 2 --out " + shq(out),
                      out + ".txt"),
            0)
      << read_text(out + ".txt");

  // Samples: all founders (frequencies from all of them).
  int64_t n = 0;
  {
    std::ifstream fam(input + ".fam");
    std::string fid, iid, father, mother, sex, pheno;
    while (fam >> fid >> iid >> father >> mother >> sex >> pheno) {
      ASSERT_TRUE(father == "0" && mother == "0") << "simulated sample " << iid << " is not a founder";
      ++n;
    }
  }
  int64_t m = 0;
  {
    std::ifstream bim(input + ".bim");
    std::string chrom, rest;
    while (bim >> chrom && std::getline(bim, rest)) {
      ASSERT_NE(chrom, "X");  // all autosomal: the GRM uses every variant
      ++m;
    }
  }
  const std::string bed = file_bytes(input + ".bed");
  const int64_t row = (n + 3) / 4;
  ASSERT_EQ(static_cast<int64_t>(bed.size()), 3 + row * m);
  ASSERT_EQ(static_cast<uint8_t>(bed[0]), 0x6c);
  ASSERT_EQ(static_cast<uint8_t>(bed[1]), 0x1b);
  ASSERT_EQ(static_cast<uint8_t>(bed[2]), 0x01);

  // Z (sample-major, long double): x - 2p, 0 where missing; denominator 2 Σ p(1-p).
  std::vector<long double> Z(static_cast<size_t>(n * m), 0.0L);
  long double denom = 0;
  int64_t missing = 0;
  std::vector<int> x(static_cast<size_t>(n));
  for (int64_t l = 0; l < m; ++l) {
    const auto* r = reinterpret_cast<const uint8_t*>(bed.data()) + 3 + l * row;
    int64_t sum = 0, called = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int code = (r[i / 4] >> (2 * (i % 4))) & 3;
      x[i] = code == 0 ? 2 : code == 2 ? 1 : code == 3 ? 0 : -1;  // A1 dosage, -1 missing
      if (x[i] >= 0) sum += x[i], ++called;
    }
    missing += n - called;
    ASSERT_GT(called, 0) << "variant " << l << " has no call; the oracle does not define p there";
    const long double p = static_cast<long double>(sum) / (2.0L * called);
    denom += 2 * p * (1 - p);
    for (int64_t i = 0; i < n; ++i) Z[i * m + l] = x[i] < 0 ? 0.0L : x[i] - 2 * p;
  }
  ASSERT_GT(missing, 0) << "the simulated set should have missing calls";
  ASSERT_GT(denom, 0);

  const auto G = read_doubles(out + ".rel.bin");
  ASSERT_EQ(G.size(), static_cast<size_t>(n * n));
  double max_diff = 0;
  int64_t wi = 0, wj = 0;
  for (int64_t i = 0; i < n; ++i) {
    const long double* zi = &Z[i * m];
    for (int64_t j = 0; j <= i; ++j) {
      const long double* zj = &Z[j * m];
      long double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int64_t l = 0;
      for (; l + 4 <= m; l += 4) {
        s0 += zi[l] * zj[l];
        s1 += zi[l + 1] * zj[l + 1];
        s2 += zi[l + 2] * zj[l + 2];
        s3 += zi[l + 3] * zj[l + 3];
      }
      for (; l < m; ++l) s0 += zi[l] * zj[l];
      const long double g = ((s0 + s1) + (s2 + s3)) / denom;
      for (const double got : {G[i * n + j], G[j * n + i]}) {
        const double dd = static_cast<double>(std::abs(static_cast<long double>(got) - g));
        if (!std::isnan(max_diff) && !(dd <= max_diff)) max_diff = dd, wi = i, wj = j;  // NaN sticks
      }
    }
  }
  EXPECT_LE(max_diff, 1e-10) << "worst at (" << wi << ", " << wj << "): " << G[wi * n + wj];
  ::testing::Test::RecordProperty("max_abs_diff", sci(max_diff));
  expect_same_ids(out + ".rel.id", input + ".fam");
}

}  // namespace
}  // namespace pmx::test
