// Bad BGEN input to the panoramix binary: each case breaks a copy of a small valid BGEN (or passes
// flags that do not go together) and checks that every command that reads it
//   - exits non-zero (and not by a signal),
//   - says on stderr which file is wrong, at which variant (index and ID) where there is one, and
//     what is wrong,
//   - leaves nothing behind but PREFIX.log (which records the error), and no "*.tmp.*" files.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bgen_test_files.hpp"
#include "command_checks.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> commands = {"freq", "grm", "convert"};

class BgenBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    out_dir_ = tmp_.path("out");
    fs::create_directory(out_dir_);
    spec_ = random_bgen({"s1", "s2", "s3", "s4", "s5"}, 40, 8, 1, 11);
    for (auto& v : spec_.variants) v.chrom = "1", v.rsid = "rs" + v.snp_id.substr(3);
    good_ = write(spec_, "good.bgen");
  }

  std::string write(const bgen_spec& s, const std::string& name) {
    const std::string p = tmp_.path(name);
    write_file(p, bgen_bytes(s));
    return p;
  }
  std::string write_bytes(const std::string& bytes, const std::string& name) {
    const std::string p = tmp_.path(name);
    write_file(p, bytes);
    return p;
  }

  /// Where variant j's stored genotype data (after C, and D when compressed) starts in the file.
  size_t block_at(const bgen_spec& s, size_t j) const {
    bgen_spec head = s;
    head.variants.resize(j);
    const bgen_variant& v = s.variants[j];
    size_t at = bgen_bytes(head).size() + 2 + v.snp_id.size() + 2 + v.rsid.size() + 2 + v.chrom.size() + 4 + 2;
    for (const auto& a : v.alleles) at += 4 + a.size();
    return at + (s.compression ? 8 : 4);
  }

  command_outcome run_pmx(const std::string& args) { return run_panoramix(args, tmp_); }
  void expect_failure(const std::string& args, const std::vector<std::string>& needles) {
    expect_named_failure(args, needles, tmp_, out_dir_);
  }

  void expect_rejected(const std::string& input_args, const std::vector<std::string>& needles) {
    for (const auto& cmd : commands)
      expect_failure(cmd + " " + input_args + " --threads 2 --out " + shq(out_dir_ + "/res"), needles);
  }

  temp_dir tmp_;
  bgen_spec spec_;
  std::string out_dir_, good_;
};

TEST_F(BgenBadInput, GoodFileIsAccepted) {
  for (const auto& cmd : commands) {
    const command_outcome o = run_pmx(cmd + " --bgen " + shq(good_) + " --threads 2 --out " + shq(out_dir_ + "/res"));
    EXPECT_EQ(o.rc, 0) << cmd << ": " << o.err;
  }
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.bed"));
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.rel.bin"));
}

TEST_F(BgenBadInput, MissingFile) {
  const std::string p = tmp_.path("absent.bgen");
  expect_rejected("--bgen " + shq(p), {p, "cannot be opened"});
}

TEST_F(BgenBadInput, BadHeader) {
  const std::string bytes = file_bytes(good_);
  std::string b = bytes;
  b.replace(16, 4, "bgeN");
  expect_rejected("--bgen " + shq(write_bytes(b, "magic.bgen")), {"magic.bgen", "bad BGEN header", "magic"});
  b = bytes;
  b[4] = 10;  // header length 10
  expect_rejected("--bgen " + shq(write_bytes(b, "hlen.bgen")), {"hlen.bgen", "bad BGEN header", "header length 10"});
  b = bytes;
  b[0] = 2;  // the variant data would start inside the header
  expect_rejected("--bgen " + shq(write_bytes(b, "offset.bgen")), {"offset.bgen", "bad BGEN header", "inside"});
  expect_rejected("--bgen " + shq(write_bytes(bytes.substr(0, 20), "tiny.bgen")),
                  {"tiny.bgen", "shorter than a header"});
  b = bytes;
  b[20] = char(b[20] | 3);  // compression code 3 (the flags are the header block's last field)
  expect_rejected("--bgen " + shq(write_bytes(b, "comp.bgen")), {"comp.bgen", "compression code 3"});
  b = bytes;
  b[12] = 6;  // 6 samples in the header, 5 in the sample block
  expect_rejected("--bgen " + shq(write_bytes(b, "count.bgen")), {"count.bgen", "sample block lists 5 samples"});
}

TEST_F(BgenBadInput, LayoutOneIsRefusedByName) {
  bgen_spec s = spec_;
  s.layout = 1;
  expect_rejected("--bgen " + shq(write(s, "layout1.bgen")), {"layout1.bgen", "layout 1", "not supported"});
}

TEST_F(BgenBadInput, TruncatedFiles) {
  const std::string bytes = file_bytes(good_);
  // Inside variant 21's genotype block, inside its identifying data, and at a variant boundary
  // (whole variants, fewer than the header says).
  const size_t block = block_at(spec_, 20), start = block_at(spec_, 20) - 30;
  bgen_spec head = spec_;
  head.variants.resize(25);
  const size_t boundary = bgen_bytes(head).size();
  const struct {
    size_t at;
    const char* name;
    std::vector<std::string> needles;
  } cuts[] = {{block + 3, "cut_block.bgen", {"variant 21 ('rs20')", "truncated", "genotype data block"}},
              {start, "cut_id.bgen", {"variant 21", "truncated"}},
              {boundary, "cut_boundary.bgen", {"variant 26 (after 'rs24')", "truncated", "40 variants"}}};
  for (const auto& c : cuts) {
    const std::string p = write_bytes(bytes.substr(0, c.at), c.name);
    auto needles = c.needles;
    needles.push_back(p);
    expect_rejected("--bgen " + shq(p), needles);
  }
}

TEST_F(BgenBadInput, CorruptZlibBlock) {
  std::string b = file_bytes(good_);
  const size_t at = block_at(spec_, 7);
  for (size_t k = 2; k < 8; ++k) b[at + k] = char(b[at + k] ^ 0x5a);
  expect_rejected("--bgen " + shq(write_bytes(b, "zlib.bgen")),
                  {"zlib.bgen", "variant 8 ('rs7')", "corrupt zlib block"});
}

TEST_F(BgenBadInput, CorruptZstdBlock) {
#ifndef PMX_TEST_ZSTD
  GTEST_SKIP() << "no zstd.h for the test writer";
#endif
  bgen_spec s = spec_;
  s.compression = 2;
  std::string b = bgen_bytes(s);
  const size_t at = block_at(s, 12);
  b[at] = 0;  // the zstd frame's magic number
  expect_rejected("--bgen " + shq(write_bytes(b, "zstd.bgen")),
                  {"zstd.bgen", "variant 13 ('rs12')", "corrupt zstd block"});
  // A block whose stated length is not what it decompresses to.
  b = bgen_bytes(s);
  const size_t d_at = block_at(s, 3) - 4;
  b[d_at] = char(b[d_at] + 1);
  expect_rejected("--bgen " + shq(write_bytes(b, "zstd_len.bgen")),
                  {"zstd_len.bgen", "variant 4 ('rs3')", "corrupt zstd block"});
}

TEST_F(BgenBadInput, BadProbabilitiesAndUnsupportedFeatures) {
  bgen_spec s = spec_;
  s.variants[5].phased = false;
  s.variants[5].calls[2] = {2, false, {200, 100}};
  expect_rejected("--bgen " + shq(write(s, "sum.bgen")), {"sum.bgen", "variant 6 ('rs5')", "sum above 1"});
  s = spec_;
  s.variants[9].alleles = {"A", "C", "G"};
  expect_rejected("--bgen " + shq(write(s, "multi.bgen")), {"multi.bgen", "variant 10 ('rs9')", "3 alleles"});
  s = spec_;
  s.variants[2].phased = false;
  s.variants[2].calls[0] = {3, false, {0, 0, 0}};
  expect_rejected("--bgen " + shq(write(s, "ploidy.bgen")), {"ploidy.bgen", "variant 3 ('rs2')", "ploidy above 2"});
  s = spec_;
  for (auto& v : s.variants) v.bits = 32, v.phased = false, v.calls.assign(5, {2, false, {0, 0}});
  expect_rejected("--bgen " + shq(write(s, "bits.bgen")), {"bits.bgen", "variant 1 ('rs0')", "32-bit"});
  s = spec_;
  s.variants[4].rsid = "";
  expect_rejected("--bgen " + shq(write(s, "rsid.bgen")), {"rsid.bgen", "variant 5", "empty rsID"});
  s = spec_;
  s.variants[30].chrom = "2";
  s.variants[31].chrom = "2";
  expect_rejected("--bgen " + shq(write(s, "split.bgen")), {"split.bgen", "variant 33 ('rs32')", "comes back"});
}

TEST_F(BgenBadInput, SampleIdentifiers) {
  bgen_spec s = spec_;
  s.sample_block = false;
  expect_rejected("--bgen " + shq(write(s, "noids.bgen")), {"noids.bgen", "no sample identifiers", "--sample"});
  const std::string sample = tmp_.path("four.sample");
  write_file(sample, "ID_1 ID_2 missing\n0 0 0\na a 0\nb b 0\nc c 0\nd d 0\n");
  expect_rejected("--bgen " + shq(good_) + " --sample " + shq(sample), {"four.sample", "4 samples", "has 5"});
}

TEST_F(BgenBadInput, FlagsThatDoNotGoTogether) {
  const std::string sample = tmp_.path("five.sample");
  write_file(sample, "ID_1 ID_2 missing\n0 0 0\na a 0\nb b 0\nc c 0\nd d 0\ne e 0\n");
  expect_rejected("--bgen " + shq(good_) + " --vcf-half-call missing", {"--vcf-half-call"});
  expect_rejected("--bgen " + shq(good_) + " --sample " + shq(sample) + " --double-id", {"--double-id", "--sample"});
  expect_rejected("--bgen " + shq(good_) + " --hard-call-threshold 0.5", {"--hard-call-threshold"});
  expect_rejected("--bfile x --sample " + shq(sample), {"--sample"});
}

}  // namespace
}  // namespace pmx::test
