// The generated sweep of issue #29: NaN, infinite, negative (where a negative is out of range) and
// huge values put into every numeric field that freq, grm, ld, pca, gblup, pedigree and ssblup read
// (krr and rr: their numeric options)
// (.fam sex and phenotype, .bim centimorgans and position, phenotype and covariate values, GCTA
// GRM entries, frequency values, records' trait and covariate values, variance components) and
// into every numeric option of those commands. Each run must
//   - exit non-zero, not by a signal, and within the timeout (a hang is what a NaN GRM used to do);
//   - say on stderr which file (or option) is wrong;
//   - leave nothing in the output directory but PREFIX.log, and no temporaries.
// Fields nobody reads as a number (.afreq OBS_CT, the GRM's .grm.N.bin) are not swept; values a
// format defines as valid are not swept either: "nan" is PLINK's missing code in phenotype,
// covariate and .fam phenotype columns, and negative phenotypes, covariates, centimorgans and
// positions are legal. Each good input is run once first and must succeed, so no case passes
// because the set-up is broken.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace pmx::test {
namespace {

namespace fs = std::filesystem;

constexpr int timeout_s = 60;

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& l : lines) out << l << '\n';
}

// Field `col` (0-based) of a whitespace-separated line replaced by `value`; a tab-separated line
// stays tab-separated.
std::string with_field(const std::string& line, size_t col, const std::string& value) {
  const char sep = line.find('\t') != std::string::npos ? '\t' : ' ';
  std::istringstream ss(line);
  std::vector<std::string> f;
  for (std::string w; ss >> w;) f.push_back(w);
  EXPECT_LT(col, f.size()) << line;
  if (col < f.size()) f[col] = value;
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) out += (i ? std::string(1, sep) : "") + f[i];
  return out;
}

// The valid inputs, made once per test program.
struct inputs {
  std::string dir, base, grm, pheno, covar;       // freq/grm/ld/pca/gblup
  std::string sp, ped, records, vc, freq;         // pedigree/ssblup
};

const inputs& data() {
  static const inputs in = [] {
    inputs d;
    d.dir = work().path("bad_numbers");
    fs::create_directories(d.dir);
    d.base = d.dir + "/base";
    EXPECT_EQ(panoramix("simulate --samples 16 --variants 30 --seed 5 --threads 1 --out " + shq(d.base),
                        d.dir + "/simulate.txt"),
              0);
    d.grm = d.dir + "/g";
    EXPECT_EQ(panoramix("grm --bfile " + shq(d.base) + " --format gcta --threads 1 --out " + shq(d.grm),
                        d.dir + "/grm.txt"),
              0);
    d.pheno = d.dir + "/pheno.txt";
    d.covar = d.dir + "/covar.txt";
    {
      std::ofstream ph(d.pheno), cv(d.covar);
      ph << "FID IID y\n";
      cv << "FID IID age weight\n";
      int i = 0;
      for (const auto& line : read_lines(d.base + ".fam")) {
        std::istringstream ss(line);
        std::string fid, iid;
        ss >> fid >> iid;
        ph << fid << " " << iid << " " << 1.5 + (i * 7 % 11) * 0.25 << "\n";
        cv << fid << " " << iid << " " << 20 + i << " " << 3.5 - (i * 5 % 7) * 0.5 << "\n";
        ++i;
      }
    }
    d.sp = d.dir + "/sp";
    EXPECT_EQ(panoramix("simulate-pedigree --animals 60 --founders 12 --generations 3 --sires 3 --genotyped 20 "
                        "--variants 40 --chromosomes 2 --qtl 5 --seed 2 --threads 1 --out " +
                            shq(d.sp),
                        d.dir + "/simulate_pedigree.txt"),
              0);
    d.ped = d.sp + ".ped", d.records = d.sp + ".pheno", d.vc = d.sp + ".vc";
    d.freq = d.dir + "/spf";
    EXPECT_EQ(panoramix("freq --bfile " + shq(d.sp) + " --threads 1 --out " + shq(d.freq), d.dir + "/freq.txt"), 0);
    d.freq += ".afreq";
    return d;
  }();
  return in;
}

class BadNumbers : public ::testing::Test {
 protected:
  void SetUp() override {
    (void)data();
    out_ = tmp_.path("out");
    fs::create_directory(out_);
  }

  // --out into the checked directory; one thread unless the case sets --threads itself.
  std::string out_args(const std::string& args) const {
    return (args.find("--threads") == std::string::npos ? " --threads 1" : "") + std::string(" --out ") +
           shq(out_ + "/res");
  }

  // One run that must fail (see the header comment); what it left in the output directory is
  // removed after the check that it is res.log alone.
  void expect_refused(const std::string& args, const std::string& needle) {
    SCOPED_TRACE("panoramix " + args);
    const std::string err = tmp_.path("stderr.txt");
    const int rc = run("( timeout " + std::to_string(timeout_s) + " " + std::string(PMX_BINARY) + " " + args +
                           out_args(args) + " 2>" + shq(err) + " )",
                       tmp_.path("stdout.txt"));
    const std::string said = read_text(err);
    EXPECT_NE(rc, 0) << "accepted; stderr: " << said;
    EXPECT_NE(rc, 124) << "still running after " << timeout_s << " s (hang)";
    EXPECT_LT(rc, 128) << "killed by a signal? stderr: " << said;
    EXPECT_NE(said.find(needle), std::string::npos) << "stderr lacks \"" << needle << "\":\n" << said;
    for (const auto& e : fs::directory_iterator(out_)) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name, "res.log") << "left behind: " << name;
      fs::remove_all(e.path());
    }
    for (const auto& e : fs::recursive_directory_iterator(tmp_.path("")))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
    ++runs_;
  }

  void expect_accepted(const std::string& args) {
    SCOPED_TRACE("panoramix " + args);
    const int rc = run("timeout " + std::to_string(timeout_s) + " " + std::string(PMX_BINARY) + " " + args +
                           out_args(args),
                       tmp_.path("good.txt"));
    EXPECT_EQ(rc, 0) << read_text(tmp_.path("good.txt"));
    for (const auto& e : fs::directory_iterator(out_)) fs::remove_all(e.path());
  }

  // A copy of the text file `from` with field `col` of line `line` (0-based) set to `value`.
  std::string mutated(const std::string& from, size_t line, size_t col, const std::string& value,
                      const std::string& name) {
    auto lines = read_lines(from);
    EXPECT_LT(line, lines.size());
    lines[line] = with_field(lines[line], col, value);
    const std::string to = tmp_.path(name);
    write_lines(to, lines);
    return to;
  }

  // A fileset whose .fam or .bim (ext) has the mutation; the other two files copied unchanged.
  std::string mutated_fileset(const std::string& prefix, const std::string& ext, size_t col, const std::string& value) {
    const std::string to = tmp_.path("m");
    for (const char* e : {".bed", ".bim", ".fam"})
      if (ext != e) fs::copy_file(prefix + e, to + e, fs::copy_options::overwrite_existing);
    mutated(prefix + ext, 2, col, value, "m" + ext);
    return to;
  }

  temp_dir tmp_;
  std::string out_;
  int runs_ = 0;
};

// Every command that reads a fileset, as args around it (prefix first).
std::vector<std::string> fileset_commands(const std::string& bfile) {
  const inputs& d = data();
  return {"freq --bfile " + shq(bfile),
          "grm --bfile " + shq(bfile),
          "ld --r2 --bfile " + shq(bfile),
          "pca --pcs 2 --bfile " + shq(bfile),
          "gblup --h2 0.3 --pheno " + shq(d.pheno) + " --bfile " + shq(bfile)};
}

std::string ssblup(const std::string& ped, const std::string& bfile, const std::string& records, const std::string& vc,
                   const std::string& freq) {
  return "ssblup --model ssgblup --traits trait1 --class herd --covar dim --ped " + shq(ped) + " --bfile " +
         shq(bfile) + " --pheno " + shq(records) + " --vc " + shq(vc) + " --freq " + shq(freq);
}

const std::vector<std::string> non_finite = {"nan", "inf", "-inf", "1e999", "-1e999"};

TEST_F(BadNumbers, GoodInputsAreAccepted) {
  const inputs& d = data();
  for (const auto& cmd : fileset_commands(d.base)) expect_accepted(cmd);
  expect_accepted("gblup --grm " + shq(d.grm) + " --pheno " + shq(d.pheno) + " --covar " + shq(d.covar));
  expect_accepted("pedigree --ped " + shq(d.ped));
  expect_accepted(ssblup(d.ped, d.sp, d.records, d.vc, d.freq));
  // The good options the krr and rr sweeps start from.
  expect_accepted("krr --bfile " + shq(d.base) + " --pheno " + shq(d.pheno) + " --all-pheno --gamma 1e-3 --alpha 1");
  expect_accepted("rr --bfile " + shq(d.base) + " --pheno " + shq(d.pheno) + " --all-pheno --lambda 1");
}

TEST_F(BadNumbers, FamAndBimFields) {
  const inputs& d = data();
  // .fam sex (column 5): only 1, 2, 0/-9/NA; phenotype (column 6): nan is PLINK's missing code.
  std::vector<std::pair<std::string, std::pair<size_t, std::vector<std::string>>>> fields = {
      {".fam", {4, {"nan", "inf", "-inf", "-1", "1e999"}}},
      {".fam", {5, {"inf", "-inf", "1e999", "-1e999"}}},
      {".bim", {2, non_finite}},                                           // centimorgans
      {".bim", {3, {"nan", "inf", "1e999", "99999999999999999999", "1.5"}}}};  // position
  for (const auto& [ext, spec] : fields)
    for (const auto& v : spec.second) {
      for (const auto& cmd : fileset_commands(mutated_fileset(d.base, ext, spec.first, v)))
        expect_refused(cmd, tmp_.path("m" + ext) + ":3:");
      const std::string sp = mutated_fileset(d.sp, ext, spec.first, v);
      expect_refused(ssblup(d.ped, sp, d.records, d.vc, d.freq), tmp_.path("m" + ext) + ":3:");
    }
  EXPECT_EQ(runs_, 6 * (5 + 4 + 5 + 5));
}

TEST_F(BadNumbers, PhenotypeAndCovariateValues) {
  const inputs& d = data();
  // "nan" is PLINK's missing code here (accepted); finite but too large to square (1e200) is
  // refused by the analysis, not the reader.
  const std::vector<std::string> values = {"inf", "-inf", "1e999", "-1e999", "Infinity", "1e200"};
  for (const auto& v : values) {
    const std::string ph = mutated(d.pheno, 4, 2, v, "ph.txt");
    expect_refused("gblup --bfile " + shq(d.base) + " --h2 0.3 --pheno " + shq(ph), ph);
    expect_refused("gblup --grm " + shq(d.grm) + " --pheno " + shq(ph), ph);
    for (size_t col : {2, 3}) {
      const std::string cv = mutated(d.covar, 6, col, v, "cv.txt");
      expect_refused("gblup --grm " + shq(d.grm) + " --pheno " + shq(d.pheno) + " --covar " + shq(cv), cv);
    }
  }
  EXPECT_EQ(runs_, 6 * 4);
}

// GCTA GRM: float32 entries; NaN and infinities refused by the reader, a negative diagonal or a
// huge off-diagonal (the matrix stops being positive semi-definite) by the check of G.
TEST_F(BadNumbers, GrmEntries) {
  const inputs& d = data();
  const std::string bin = read_text(d.grm + ".grm.bin");
  const float inf = std::numeric_limits<float>::infinity();
  struct entry {
    int64_t i, j;
    float v;
  };
  const std::vector<entry> cases = {{0, 0, std::numeric_limits<float>::quiet_NaN()}, {3, 1, std::numeric_limits<float>::quiet_NaN()},
                                    {5, 5, inf}, {7, 2, -inf}, {4, 4, -1.0f}, {6, 3, 3e38f}, {9, 9, -3e38f},
                                    {11, 0, inf}};
  for (const auto& c : cases) {
    std::string b = bin;
    const size_t at = static_cast<size_t>(c.i * (c.i + 1) / 2 + c.j) * sizeof(float);
    std::memcpy(b.data() + at, &c.v, sizeof(float));
    const std::string prefix = tmp_.path("bad");
    std::ofstream(prefix + ".grm.bin", std::ios::binary | std::ios::trunc) << b;
    fs::copy_file(d.grm + ".grm.id", prefix + ".grm.id", fs::copy_options::overwrite_existing);
    expect_refused("gblup --grm " + shq(prefix) + " --pheno " + shq(d.pheno), prefix + ".grm.bin");
    expect_refused("gblup --grm " + shq(prefix) + " --h2 0.5 --pheno " + shq(d.pheno), prefix + ".grm.bin");
  }
  EXPECT_EQ(runs_, 2 * 8);
}

TEST_F(BadNumbers, FrequencyRecordsAndVarianceComponents) {
  const inputs& d = data();
  for (const auto& v : {"nan", "inf", "-inf", "1e999", "-0.5", "1.5", "1e300"}) {
    const std::string f = mutated(d.freq, 3, 4, v, "f.afreq");  // ALT_FREQS
    expect_refused(ssblup(d.ped, d.sp, d.records, d.vc, f), f + ":4:");
  }
  for (const auto& v : {"nan", "inf", "-inf", "1e999", "-1e999"})
    for (size_t col : {3, 4}) {  // dim (covariate), trait1
      const std::string r = mutated(d.records, 2, col, v, "r.pheno");
      expect_refused(ssblup(d.ped, d.sp, r, d.vc, d.freq), r + ":3:");
    }
  // Every number of the variance components file (one trait: lines 2 and 4); -1 is a negative
  // variance (not positive definite), named with the matrix's line.
  const auto vc_lines = read_lines(d.vc);
  ASSERT_EQ(vc_lines.size(), 4u);
  for (size_t line : {1, 3}) {
    for (const auto& v : non_finite) {
      const std::string vc = mutated(d.vc, line, 0, v, "v.vc");
      expect_refused(ssblup(d.ped, d.sp, d.records, vc, d.freq), vc + ":" + std::to_string(line + 1) + ":");
    }
    const std::string vc = mutated(d.vc, line, 0, "-1", "v.vc");
    expect_refused(ssblup(d.ped, d.sp, d.records, vc, d.freq), vc + ":" + std::to_string(line) + ":");
  }
  EXPECT_EQ(runs_, 7 + 10 + 12);
}

TEST_F(BadNumbers, PedigreeWithAnUnbalancedQuote) {
  const inputs& d = data();
  auto lines = read_lines(d.ped);
  lines[4] = "\"" + lines[4];
  const std::string ped = tmp_.path("q.ped");
  write_lines(ped, lines);
  expect_refused("pedigree --ped " + shq(ped), ped + ":5: field 1");
  expect_refused(ssblup(ped, d.sp, d.records, d.vc, d.freq), ped + ":5: field 1");
}

TEST_F(BadNumbers, NumericOptions) {
  const inputs& d = data();
  const std::string gblup = "gblup --grm " + shq(d.grm) + " --pheno " + shq(d.pheno);
  const std::string bgblup = "gblup --bfile " + shq(d.base) + " --pheno " + shq(d.pheno);
  const std::string ld = "ld --r2 --bfile " + shq(d.base);
  const std::string pca = "pca --bfile " + shq(d.base);
  const std::string ss = ssblup(d.ped, d.sp, d.records, d.vc, d.freq);
  const std::string krr = "krr --bfile " + shq(d.base) + " --pheno " + shq(d.pheno) + " --all-pheno";
  const std::string rr = "rr --bfile " + shq(d.base) + " --pheno " + shq(d.pheno) + " --all-pheno";
  const std::vector<std::pair<std::string, std::vector<std::string>>> options = {
      {gblup + " --h2", {"nan", "inf", "-inf", "-0.5", "1", "1.5", "1e999"}},
      {bgblup + " --h2", {"nan", "-1e999"}},
      {gblup + " --mpheno", {"0", "-1", "nan"}},
      {gblup + " --pcs 2 --pc-tol", {"nan", "inf", "0", "-1"}},
      {gblup + " --pcs 2 --pc-max-iter", {"0", "-5", "nan"}},
      {gblup + " --pcs 2 --pc-oversample", {"-1", "inf"}},
      {gblup + " --pcs", {"-1", "nan"}},
      {gblup + " --grm-add-diagonal", {"nan", "inf", "-inf", "0", "-1", "1e999"}},
      {bgblup + " --h2 0.3 --chr-set", {"-1", "1000", "nan"}},
      {"grm --bfile " + shq(d.base) + " --chr-set", {"-3", "96"}},
      {"freq --bfile " + shq(d.base) + " --chr-set", {"-3"}},
      {ld + " --ld-window", {"1", "-1", "nan"}},
      {ld + " --ld-window-kb", {"nan", "inf", "-1", "1e999"}},
      {ld + " --ld-window-r2", {"nan", "inf", "-0.1", "1.5"}},
      {ld + " --memory", {"0", "-1", "nan"}},
      {pca + " --pcs", {"0", "-1", "nan", "1e999"}},
      {pca + " --pcs 2 --tol", {"nan", "inf", "0", "-1"}},
      {pca + " --pcs 2 --max-iter", {"0", "-1"}},
      {pca + " --pcs 2 --oversample", {"-1"}},
      {ss + " --w", {"nan", "inf", "-0.1", "1.5"}},
      {ss + " --tol", {"nan", "inf", "0", "-1"}},
      {ss + " --solution-tol", {"nan", "inf", "-1"}},
      {ss + " --max-iter", {"0", "-1", "nan"}},
      {krr + " --alpha 1 --gamma", {"nan", "inf", "-inf", "0", "-1", "1e999"}},
      {krr + " --gamma 1e-3 --alpha", {"nan", "inf", "-1", "1e999"}},
      {krr + " --gamma 1e-3 --alpha 1 --accuracy", {"nan", "inf", "0", "-1", "1"}},
      {krr + " --gamma 1e-3 --alpha 1 --precision adaptive --tile-accuracy", {"nan", "inf", "0", "-1"}},
      {krr + " --gamma 1e-3 --alpha 1 --tile", {"0", "-1", "8"}},
      {krr + " --gamma 1e-3 --alpha 1 --alpha-grid 1 --cv", {"1", "-1"}},
      {krr + " --alpha 1 --cv 2 --gamma-grid", {"nan", "inf", "0", "-1"}},
      {krr + " --gamma 1e-3 --cv 2 --alpha-grid", {"nan", "inf", "-1"}},
      {rr + " --lambda", {"nan", "inf", "-inf", "-1", "1e999"}},
  };
  int expected = 0;
  for (const auto& [args, values] : options) {
    const std::string option = args.substr(args.rfind(' ') + 1);
    for (const auto& v : values) expect_refused(args + " " + v, option);
    expected += static_cast<int>(values.size());
  }
  // --threads is common to all of them (pedigree takes no other number).
  for (const auto& cmd : {gblup, ld, pca, ss, "pedigree --ped " + shq(d.ped), "grm --bfile " + shq(d.base),
                          "freq --bfile " + shq(d.base), krr + " --gamma 1e-3 --alpha 1", rr + " --lambda 1"})
    for (const char* v : {"-1", "5000", "nan"}) {
      expect_refused(cmd + " --threads " + v, "--threads");
      expected += 1;
    }
  EXPECT_EQ(runs_, expected);
}

}  // namespace
}  // namespace pmx::test
