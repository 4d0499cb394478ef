// Bad VCF/BCF input to the panoramix binary: each case breaks a copy of a small valid VCF (or passes
// flags that do not go together) and checks that every command that reads it
//   - exits non-zero (and not by a signal),
//   - says on stderr which file is wrong, at which record where there is one, and what is wrong,
//   - leaves nothing behind but PREFIX.log (which records the error), and no "*.tmp.*" files.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "panoramix/vcf_files.hpp"
#include "command_checks.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> commands = {"freq", "grm", "convert"};

const char* header =
    "##fileformat=VCFv4.2\n"
    "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
    "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\ts3\n";

class VcfBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vcf_compiled_in()) GTEST_SKIP() << "this build has no htslib";
    out_dir_ = tmp_.path("out");
    fs::create_directory(out_dir_);
    good_ = tmp_.path("good.vcf");
    std::string text = header;
    for (int r = 0; r < 400; ++r)
      text += "1\t" + std::to_string(100 + r) + "\tv" + std::to_string(r) + "\tA\tG\t.\t.\t.\tGT\t0/1\t1|1\t" +
              (r % 3 ? "0/0" : "./.") + "\n";
    write_file(good_, text);
  }

  std::string vcf_with(const std::string& name, const std::string& body, const std::string& head = header) {
    const std::string p = tmp_.path(name);
    write_file(p, head + body);
    return p;
  }

  /// The good VCF in BGZF blocks of 1000 bytes (many blocks), and its bytes.
  std::string good_bgzf(const std::string& name) {
    const std::string p = tmp_.path(name);
    EXPECT_TRUE(write_bgzf(good_, p, 1000)) << "python3 needed";
    return p;
  }

  command_outcome run_pmx(const std::string& args) { return run_panoramix(args, tmp_); }
  void expect_failure(const std::string& args, const std::vector<std::string>& needles) {
    expect_named_failure(args, needles, tmp_, out_dir_);
  }

  void expect_rejected(const std::string& input_args, const std::vector<std::string>& needles) {
    for (const auto& cmd : commands)
      expect_failure(cmd + " " + input_args + " --threads 1 --out " + shq(out_dir_ + "/res"), needles);
  }

  temp_dir tmp_;
  std::string out_dir_, good_;
};

TEST_F(VcfBadInput, GoodFilesAreAccepted) {
  const std::string gz = good_bgzf("good.vcf.gz");
  for (const std::string& file : {good_, gz})
    for (const auto& cmd : commands) {
      const command_outcome o = run_pmx(cmd + " --vcf " + shq(file) + " --threads 1 --out " + shq(out_dir_ + "/res"));
      EXPECT_EQ(o.rc, 0) << cmd << ": " << o.err;
    }
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.bed"));
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.rel.bin"));
}

TEST_F(VcfBadInput, MissingFile) {
  const std::string p = tmp_.path("absent.vcf.gz");
  expect_rejected("--vcf " + shq(p), {p, "cannot be opened"});
}

TEST_F(VcfBadInput, NotAVcf) {
  const std::string p = tmp_.path("bytes.vcf");
  write_file(p, std::string("\x6c\x1b\x01\x00\x13\x37", 6));
  expect_rejected("--vcf " + shq(p), {p});
}

TEST_F(VcfBadInput, BgzfCutAtABlockBoundary) {
  // Whole blocks, no end-of-file block: nothing in the data says it ends early but the missing EOF.
  const std::string p = tmp_.path("cut_boundary.vcf.gz");
  ASSERT_TRUE(write_bgzf(good_, p, 1000, false));
  expect_rejected("--vcf " + shq(p), {p, "truncated", "end-of-file block"});
}

TEST_F(VcfBadInput, BgzfCutInsideABlock) {
  const std::string gz = good_bgzf("whole.vcf.gz");
  const std::string bytes = file_bytes(gz);
  const std::string p = tmp_.path("cut_inside.vcf.gz");
  write_file(p, bytes.substr(0, bytes.size() / 2 + 7));
  expect_rejected("--vcf " + shq(p), {p, "truncated"});
}

TEST_F(VcfBadInput, BgzfCutInsideABlockWithEofBlockAppended) {
  // The EOF block is there, but a block in the middle ends early: found while reading, at a record.
  const std::string gz = good_bgzf("whole2.vcf.gz");
  const std::string bytes = file_bytes(gz);
  const std::string eof = bytes.substr(bytes.size() - 28);
  const std::string p = tmp_.path("cut_eof.vcf.gz");
  write_file(p, bytes.substr(0, bytes.size() / 2 + 7) + eof);
  expect_rejected("--vcf " + shq(p), {p, "record ", "corrupt or truncated compressed data"});
}

TEST_F(VcfBadInput, BgzfCorruptBlock) {
  const std::string gz = good_bgzf("whole3.vcf.gz");
  std::string bytes = file_bytes(gz);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);  // inside a deflate stream
  const std::string p = tmp_.path("corrupt.vcf.gz");
  write_file(p, bytes);
  expect_rejected("--vcf " + shq(p), {p, "record ", "corrupt or truncated compressed data"});
}

TEST_F(VcfBadInput, NoGtField) {
  const std::string p = vcf_with("nogt.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tDP\t3\t4\t5\n",
                                 "##fileformat=VCFv4.2\n"
                                 "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Depth\">\n"
                                 "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\ts3\n");
  expect_rejected("--vcf " + shq(p), {p + ": record 1 (1:10)", "no GT field"});
}

TEST_F(VcfBadInput, NoSamples) {
  const std::string p = vcf_with("nosamples.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\n",
                                 "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n");
  expect_rejected("--vcf " + shq(p), {p, "no samples"});
}

TEST_F(VcfBadInput, HalfCallWithoutAMode) {
  const std::string p = vcf_with("half.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t./1\t0/0\n");
  expect_rejected("--vcf " + shq(p), {p + ": record 1 (1:10)", "sample 's2'", "--vcf-half-call"});
}

TEST_F(VcfBadInput, AlleleOutsideTheRecord) {
  const std::string p = vcf_with("allele.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n"
                                               "1\t20\tv2\tA\tG\t.\t.\t.\tGT\t0/1\t0/2\t0/0\n");
  expect_rejected("--vcf " + shq(p), {p + ": record 2 (1:20)", "sample 's2'", "allele 2"});
}

TEST_F(VcfBadInput, SplitChromosome) {
  const std::string p = vcf_with("split.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n"
                                              "2\t10\tv2\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n"
                                              "1\t30\tv3\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n");
  expect_rejected("--vcf " + shq(p), {p + ": record 3 (1:30)", "chromosome 1 comes back"});
}

TEST_F(VcfBadInput, TooFewColumns) {
  const std::string p = vcf_with("cols.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n"
                                             "1\t20\tv2\tA\tG\t.\t.\n");
  expect_rejected("--vcf " + shq(p), {p + ": record 2 (1:20)", "0 sample columns"});
  const std::string q = vcf_with("cols2.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n"
                                              "1\t20\tv2\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\n");
  expect_rejected("--vcf " + shq(q), {q + ": record 2", "the wrong number of columns"});
}

TEST_F(VcfBadInput, TooManyColumnsAndMalformedGt) {
  const std::string p = vcf_with("cols3.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\t1/1\n");
  expect_rejected("--vcf " + shq(p), {p + ": record 1 (1:10)", "the wrong number of columns", "more than 3"});
  const std::string q = vcf_with("badgt.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT:DP\t0/1:4\t0/x:5\t0/0:3\n");
  expect_rejected("--vcf " + shq(q), {q + ": record 1 (1:10)", "sample 's2'", "GT that is not alleles"});
}

TEST_F(VcfBadInput, PositionNotANumber) {
  const std::string p = vcf_with("pos.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n"
                                            "1\tten\tv2\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n");
  expect_rejected("--vcf " + shq(p), {p + ": record 2"});
}

TEST_F(VcfBadInput, IdDelimiterMissingFromAnId) {
  const std::string p = vcf_with("ids.vcf", "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t0/0\n",
                                 "##fileformat=VCFv4.2\n"
                                 "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
                                 "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta_1\tb2\tc_3\n");
  expect_rejected("--vcf " + shq(p) + " --id-delim", {p + ": sample 2 ('b2')", "no '_'"});
}

TEST_F(VcfBadInput, FlagsThatDoNotGoTogether) {
  expect_rejected("--vcf " + shq(good_) + " --id-delim --double-id", {"--id-delim", "--double-id"});
  expect_rejected("--vcf " + shq(good_) + " --vcf-min-gq -3", {"--vcf-min-gq"});
  expect_rejected("--vcf " + shq(good_) + " --id-delim ab", {"--id-delim", "one character"});
  const std::string prefix = tmp_.path("fs");
  ASSERT_EQ(panoramix("convert --vcf " + shq(good_) + " --out " + shq(prefix)), 0);
  expect_rejected("--bfile " + shq(prefix) + " --double-id", {"--vcf/--bcf input only"});
  for (const auto& cmd : commands)
    EXPECT_NE(run_pmx(cmd + " --bfile " + shq(prefix) + " --vcf " + shq(good_) + " --out " + shq(out_dir_ + "/r")).rc, 0);
  for (const auto& e : fs::directory_iterator(out_dir_)) fs::remove_all(e.path());
  expect_rejected("", {"no genotypes given", "--vcf"});
}

}  // namespace
}  // namespace pmx::test
