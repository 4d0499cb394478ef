// Bad input to the panoramix binary: each case corrupts a copy of a small valid fileset (or passes
// a bad flag) and checks that every command that reads it
//   - exits non-zero (and not by a signal),
//   - says on stderr which file is wrong and what is wrong with it,
//   - leaves no output behind: nothing in the output directory but PREFIX.log (which records the
//     error), and no "*.tmp.*" temporaries anywhere.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace pmx::test {
namespace {

namespace fs = std::filesystem;

std::string shq(const std::string& s) { return "'" + s + "'"; }

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

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> fields(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> f;
  for (std::string w; ss >> w;) f.push_back(w);
  return f;
}

std::string join(const std::vector<std::string>& f, char sep) {
  std::string s;
  for (size_t i = 0; i < f.size(); ++i) s += (i ? std::string(1, sep) : "") + f[i];
  return s;
}

const std::vector<std::string> all_commands = {"freq", "grm", "grm --format gcta", "grm --method vanraden"};

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    out_dir_ = tmp_.path("out");
    fs::create_directory(out_dir_);
    good_ = simulate("good", 10);
  }

  /// A valid fileset of `samples` samples x 20 variants.
  std::string simulate(const std::string& name, int samples) {
    const std::string prefix = tmp_.path(name);
    const int rc = panoramix("simulate --samples " + std::to_string(samples) +
                                 " --variants 20 --seed 3 --threads 1 --out " + shq(prefix),
                             tmp_.path(name + ".simulate.txt"));
    EXPECT_EQ(rc, 0) << read_text(tmp_.path(name + ".simulate.txt"));
    return prefix;
  }

  /// Copies PREFIX.bed/.bim/.fam of `from` to a new prefix `name` in the temp dir.
  std::string copy_of(const std::string& from, const std::string& name) {
    const std::string to = tmp_.path(name);
    for (const char* ext : {".bed", ".bim", ".fam"})
      fs::copy_file(from + ext, to + ext, fs::copy_options::overwrite_existing);
    return to;
  }

  struct outcome {
    int rc;
    std::string err;
  };

  /// Runs panoramix with `args`; stderr alone goes to a file of its own.
  outcome run_pmx(const std::string& args) {
    const std::string err = tmp_.path("stderr.txt");
    const int rc = run("( " + std::string(PMX_BINARY) + " " + args + " 2>" + shq(err) + " )",
                       tmp_.path("stdout.txt"));
    return {rc, read_text(err)};
  }

  /// Names of "*.tmp.*" files anywhere under the temp dir.
  std::vector<std::string> temporaries() const {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(tmp_.path("")))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) found.push_back(e.path().string());
    return found;
  }

  void clear_out_dir() {
    for (const auto& e : fs::directory_iterator(out_dir_)) fs::remove_all(e.path());
  }

  /// Checks one failing run: status, message substrings, nothing left behind except `prefix`.log
  /// (when `prefix` is under the output directory).
  void expect_failure(const std::string& args, const std::vector<std::string>& needles) {
    SCOPED_TRACE("panoramix " + args);
    const outcome o = run_pmx(args);
    EXPECT_NE(o.rc, 0) << "accepted bad input; stderr: " << o.err;
    EXPECT_LT(o.rc, 128) << "killed by a signal? stderr: " << o.err;
    for (const auto& s : needles)
      EXPECT_NE(o.err.find(s), std::string::npos) << "stderr lacks \"" << s << "\"; stderr was:\n" << o.err;
    for (const auto& e : fs::directory_iterator(out_dir_)) {
      const std::string name = e.path().filename().string();
      if (name == "res.log") {
        const std::string log = read_text(e.path().string());
        EXPECT_NE(log.find("Error:"), std::string::npos) << "res.log does not record the error:\n" << log;
      } else {
        ADD_FAILURE() << "left behind in the output directory: " << name;
      }
    }
    EXPECT_EQ(temporaries(), std::vector<std::string>{});
    clear_out_dir();
  }

  /// Every command that reads `input` (--bfile plus extra flags) fails with `needles` in stderr.
  void expect_rejected(const std::string& input_args, const std::vector<std::string>& needles,
                       const std::vector<std::string>& commands = all_commands) {
    for (const auto& cmd : commands)
      expect_failure(cmd + " " + input_args + " --threads 1 --out " + shq(out_dir_ + "/res"), needles);
  }

  std::string bfile(const std::string& prefix) const { return "--bfile " + shq(prefix); }

  temp_dir tmp_;
  std::string out_dir_, good_;
};

// The helpers above must not mistake a working run for a failure.
TEST_F(BadInput, GoodFilesetIsAccepted) {
  for (const auto& cmd : all_commands) {
    const outcome o = run_pmx(cmd + " " + bfile(good_) + " --threads 1 --out " + shq(out_dir_ + "/res"));
    EXPECT_EQ(o.rc, 0) << cmd << ": " << o.err;
  }
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.afreq"));
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.rel.bin"));
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.grm.bin"));
  EXPECT_EQ(temporaries(), std::vector<std::string>{});
}

// ---- missing files

TEST_F(BadInput, MissingBed) {
  const std::string p = copy_of(good_, "bad");
  fs::remove(p + ".bed");
  expect_rejected(bfile(p), {p + ".bed", "cannot be opened"});
}

TEST_F(BadInput, MissingBim) {
  const std::string p = copy_of(good_, "bad");
  fs::remove(p + ".bim");
  expect_rejected(bfile(p), {p + ".bim", "cannot be opened"});
}

TEST_F(BadInput, MissingFam) {
  const std::string p = copy_of(good_, "bad");
  fs::remove(p + ".fam");
  expect_rejected(bfile(p), {p + ".fam", "cannot be opened"});
}

// ---- broken .bed

TEST_F(BadInput, BedWrongMagic) {
  const std::string p = copy_of(good_, "bad");
  std::string b = read_bytes(p + ".bed");
  b[0] = 0x6d;
  b[1] = 0x1c;
  write_bytes(p + ".bed", b);
  expect_rejected(bfile(p), {p + ".bed", "not a PLINK 1 .bed"});
}

TEST_F(BadInput, BedShorterThanMagic) {
  const std::string p = copy_of(good_, "bad");
  write_bytes(p + ".bed", std::string("\x6c\x1b", 2));
  expect_rejected(bfile(p), {p + ".bed", "not a PLINK 1 .bed"});
}

TEST_F(BadInput, BedSampleMajor) {
  const std::string p = copy_of(good_, "bad");
  std::string b = read_bytes(p + ".bed");
  b[2] = 0x00;
  write_bytes(p + ".bed", b);
  expect_rejected(bfile(p), {p + ".bed", "sample-major"});
}

TEST_F(BadInput, BedTruncated) {
  const std::string p = copy_of(good_, "bad");
  std::string b = read_bytes(p + ".bed");
  ASSERT_EQ(b.size(), 3u + 3u * 20u);  // 10 samples: 3 bytes per variant
  b.pop_back();
  write_bytes(p + ".bed", b);
  expect_rejected(bfile(p), {p + ".bed", "62", "63", "truncated"});
}

TEST_F(BadInput, BedTooLong) {
  const std::string p = copy_of(good_, "bad");
  write_bytes(p + ".bed", read_bytes(p + ".bed") + std::string(1, '\0'));
  expect_rejected(bfile(p), {p + ".bed", "64", "63"});
}

// ---- broken .fam / .bim

TEST_F(BadInput, FamWithFiveColumns) {
  const std::string p = copy_of(good_, "bad");
  auto lines = read_lines(p + ".fam");
  auto f = fields(lines[2]);
  f.pop_back();
  lines[2] = join(f, ' ');
  write_lines(p + ".fam", lines);
  expect_rejected(bfile(p), {p + ".fam:3:", "6 columns", "found 5"});
}

TEST_F(BadInput, FamBadSexCode) {
  const std::string p = copy_of(good_, "bad");
  auto lines = read_lines(p + ".fam");
  auto f = fields(lines[1]);
  f[4] = "male";
  lines[1] = join(f, ' ');
  write_lines(p + ".fam", lines);
  expect_rejected(bfile(p), {p + ".fam:2:", "sex", "'male'"});
}

TEST_F(BadInput, EmptyFam) {
  const std::string p = copy_of(good_, "bad");
  write_bytes(p + ".fam", "");
  expect_rejected(bfile(p), {p + ".fam", "no samples"});
}

TEST_F(BadInput, BimWithSevenColumns) {
  const std::string p = copy_of(good_, "bad");
  auto lines = read_lines(p + ".bim");
  lines[3] += "\textra";
  write_lines(p + ".bim", lines);
  expect_rejected(bfile(p), {p + ".bim:4:", "6 columns", "found 7"});
}

TEST_F(BadInput, DuplicateSampleIds) {
  const std::string p = copy_of(good_, "bad");
  auto lines = read_lines(p + ".fam");
  auto f2 = fields(lines[1]), f7 = fields(lines[6]);
  f7[0] = f2[0];
  f7[1] = f2[1];
  lines[6] = join(f7, ' ');
  write_lines(p + ".fam", lines);
  expect_rejected(bfile(p), {p + ".fam:7:", "duplicate sample ID", f2[1], "line 2"});
}

TEST_F(BadInput, DuplicateVariantIds) {
  const std::string p = copy_of(good_, "bad");
  auto lines = read_lines(p + ".bim");
  auto f2 = fields(lines[1]), f9 = fields(lines[8]);
  f9[1] = f2[1];
  lines[8] = join(f9, '\t');
  write_lines(p + ".bim", lines);
  expect_rejected(bfile(p), {p + ".bim:9:", "duplicate variant ID", f2[1], "line 2"});
}

TEST_F(BadInput, BimNonNumericPosition) {
  const std::string p = copy_of(good_, "bad");
  auto lines = read_lines(p + ".bim");
  auto f = fields(lines[4]);
  f[3] = "12x4";
  lines[4] = join(f, '\t');
  write_lines(p + ".bim", lines);
  expect_rejected(bfile(p), {p + ".bim:5:", "position", "'12x4'"});
}

// Issue #29: a NaN or infinite centimorgan position (plink2 refuses it too), and an infinite or
// overflowing .fam phenotype; "nan" there stays PLINK's missing code.
TEST_F(BadInput, BimNonFiniteCentimorgans) {
  for (const char* v : {"nan", "inf", "-inf", "1e999"}) {
    const std::string p = copy_of(good_, "bad");
    auto lines = read_lines(p + ".bim");
    auto f = fields(lines[2]);
    f[2] = v;
    lines[2] = join(f, '\t');
    write_lines(p + ".bim", lines);
    expect_rejected(bfile(p), {p + ".bim:3:", "centimorgan column (3) is not a finite number: '" + std::string(v) + "'"});
  }
}

TEST_F(BadInput, FamNonFinitePhenotype) {
  for (const char* v : {"inf", "-inf", "1e999"}) {
    const std::string p = copy_of(good_, "bad");
    auto lines = read_lines(p + ".fam");
    auto f = fields(lines[1]);
    f[5] = v;
    lines[1] = join(f, ' ');
    write_lines(p + ".fam", lines);
    expect_rejected(bfile(p), {p + ".fam:2:", "phenotype column (6) is not a finite number: '" + std::string(v) + "'"});
  }
  const std::string p = copy_of(good_, "nanpheno");
  auto lines = read_lines(p + ".fam");
  auto f = fields(lines[1]);
  f[5] = "nan";
  lines[1] = join(f, ' ');
  write_lines(p + ".fam", lines);
  const outcome o = run_pmx("freq " + bfile(p) + " --threads 1 --out " + shq(out_dir_ + "/res"));
  EXPECT_EQ(o.rc, 0) << o.err;
  clear_out_dir();
}

// ---- .fam/.bim that do not fit the .bed

// One extra .fam line. With 10 samples an 11th one still fits the 3-byte rows of the .bed (the
// format cannot tell: the padding calls read as genotypes), so this uses 12 samples, where a 13th
// needs 4-byte rows and the size check must catch it.
TEST_F(BadInput, FamWithOneExtraSample) {
  const std::string p = copy_of(simulate("good12", 12), "bad");
  auto lines = read_lines(p + ".fam");
  lines.push_back("extra_fam extra_ind 0 0 0 -9");
  write_lines(p + ".fam", lines);
  expect_rejected(bfile(p), {p + ".bed", "size", "13 samples", "63", "83"});
}

TEST_F(BadInput, BimWithOneExtraVariant) {
  const std::string p = copy_of(good_, "bad");
  auto lines = read_lines(p + ".bim");
  lines.push_back("22\textra_variant\t0\t99999999\tA\tG");
  write_lines(p + ".bim", lines);
  expect_rejected(bfile(p), {p + ".bed", "size", "21 variants", "63", "66"});
}

// ---- --out

TEST_F(BadInput, OutIntoMissingDirectory) {
  const std::string dir = tmp_.path("no_such_dir");
  for (const auto& cmd : all_commands) {
    SCOPED_TRACE(cmd);
    const outcome o = run_pmx(cmd + " " + bfile(good_) + " --out " + shq(dir + "/res"));
    EXPECT_NE(o.rc, 0);
    EXPECT_LT(o.rc, 128);
    EXPECT_NE(o.err.find(dir), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("does not exist"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir)) << "the directory was created";
  }
  EXPECT_EQ(temporaries(), std::vector<std::string>{});
}

TEST_F(BadInput, OutUnderARegularFile) {
  const std::string file = tmp_.path("a_regular_file");
  write_bytes(file, "keep me\n");
  for (const auto& cmd : all_commands) {
    SCOPED_TRACE(cmd);
    const outcome o = run_pmx(cmd + " " + bfile(good_) + " --out " + shq(file + "/res"));
    EXPECT_NE(o.rc, 0);
    EXPECT_LT(o.rc, 128);
    EXPECT_NE(o.err.find(file), std::string::npos) << o.err;
    // The path exists; the problem is that it is a file, and the message should say so.
    EXPECT_NE(o.err.find("not a directory"), std::string::npos) << o.err;
    EXPECT_EQ(read_bytes(file), "keep me\n") << "the file was modified";
  }
  EXPECT_EQ(temporaries(), std::vector<std::string>{});
}

// ---- --keep / --extract

TEST_F(BadInput, KeepFileMissing) {
  const std::string keep = tmp_.path("no_such_keep.txt");
  expect_rejected(bfile(good_) + " --keep " + shq(keep), {keep, "cannot be opened"});
}

TEST_F(BadInput, KeepMatchesNobody) {
  const std::string keep = tmp_.path("nobody.keep");
  write_lines(keep, {"nofam1 noind1", "nofam2 noind2"});
  expect_rejected(bfile(good_) + " --keep " + shq(keep), {keep, "no listed sample"});
}

TEST_F(BadInput, ExtractMatchesNothing) {
  const std::string extract = tmp_.path("nothing.extract");
  write_lines(extract, {"no_such_variant"});
  expect_rejected(bfile(good_) + " --extract " + shq(extract), {extract, "no listed variant"});
}

// ---- command line

TEST_F(BadInput, UnknownFlag) {
  expect_rejected(bfile(good_) + " --no-such-flag", {"--no-such-flag"});
}

}  // namespace
}  // namespace pmx::test
