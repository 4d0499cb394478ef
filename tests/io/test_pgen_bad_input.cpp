// Bad PLINK 2 filesets to the panoramix binary: each case breaks a copy of a small valid fileset
// (written by plink2 --make-pgen; or passes flags that do not go together) and checks that every
// command that reads it
//   - exits non-zero (and not by a signal),
//   - says on stderr which file is wrong, at which variant (number and ID) or line where there is
//     one, and what is wrong (for what is not read: which plink2 command writes a readable file),
//   - leaves nothing behind but PREFIX.log (which records the error), and no "*.tmp.*" files.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "command_checks.hpp"
#include "pgen_test_files.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> commands = {"freq", "grm", "convert"};

class PgenBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_program("plink2")) GTEST_SKIP() << "plink2 writes the .pgen files of these cases";
    out_dir_ = tmp_.path("out");
    fs::create_directory(out_dir_);
    const std::string base = tmp_.path("base");
    write_record_type_fileset(base, 64, 60, 8);
    good_ = tmp_.path("good");
    ASSERT_EQ(plink2_make_pgen("--bfile " + shq(base), "", good_), 0) << read_text(good_ + ".plink2.txt");
    pgen_ = file_bytes(good_ + ".pgen");
    pvar_ = file_bytes(good_ + ".pvar");
    psam_ = file_bytes(good_ + ".psam");
    ASSERT_EQ(pgen_[2], 0x10);
    ASSERT_EQ(pgen_[11] & 0x0f, 0) << "4-bit types, 1-byte lengths expected of this small file";
  }

  /// A copy of the good fileset under `name` with the given files' bytes replaced.
  std::string fileset(const std::string& name, const std::string& pgen, const std::string& pvar,
                      const std::string& psam) {
    const std::string p = tmp_.path(name);
    write_file(p + ".pgen", pgen);
    write_file(p + ".pvar", pvar);
    write_file(p + ".psam", psam);
    return p;
  }
  std::string with_pgen(const std::string& name, const std::string& pgen) { return fileset(name, pgen, pvar_, psam_); }
  std::string with_pvar(const std::string& name, const std::string& pvar) { return fileset(name, pgen_, pvar, psam_); }
  std::string with_psam(const std::string& name, const std::string& psam) { return fileset(name, pgen_, pvar_, psam); }

  // Layout of the good file (one block, 4-bit types, 1-byte lengths): where variant j's type
  // nibble and record are.
  uint32_t variants() const { return uint32_t(uint8_t(pgen_[3])) | uint32_t(uint8_t(pgen_[4])) << 8; }
  size_t types_at() const { return 12 + 8; }
  size_t lengths_at() const { return types_at() + (variants() + 1) / 2; }
  size_t record_at(uint32_t j) const {
    size_t at = lengths_at() + variants();
    for (uint32_t k = 0; k < j; ++k) at += uint8_t(pgen_[lengths_at() + k]);
    return at;
  }
  unsigned type_of(uint32_t j) const { return (uint8_t(pgen_[types_at() + j / 2]) >> (4 * (j & 1))) & 15; }
  std::string with_type(uint32_t j, unsigned type) const {
    std::string b = pgen_;
    char& c = b[types_at() + j / 2];
    c = char((uint8_t(c) & (j & 1 ? 0x0f : 0xf0)) | type << (4 * (j & 1)));
    return b;
  }
  // The first variant whose record is stored with main-track storage `storage`.
  uint32_t first_of_type(unsigned storage) const {
    for (uint32_t j = 0; j < variants(); ++j)
      if (type_of(j) == storage) return j;
    ADD_FAILURE() << "no record of type " << storage;
    return 0;
  }

  void expect_rejected(const std::string& input_args, const std::vector<std::string>& needles) {
    for (const auto& cmd : commands)
      expect_named_failure(cmd + " " + input_args + " --threads 2 --out " + shq(out_dir_ + "/res"), needles, tmp_,
                           out_dir_);
  }
  void expect_rejected_fileset(const std::string& prefix, std::vector<std::string> needles) {
    expect_rejected("--pfile " + shq(prefix), needles);
  }

  temp_dir tmp_;
  std::string out_dir_, good_, pgen_, pvar_, psam_;
};

TEST_F(PgenBadInput, GoodFileIsAccepted) {
  for (const auto& cmd : commands) {
    const command_outcome o = run_panoramix(cmd + " --pfile " + shq(good_) + " --threads 2 --out " + shq(out_dir_ + "/res"), tmp_);
    EXPECT_EQ(o.rc, 0) << cmd << ": " << o.err;
  }
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.bed"));
  EXPECT_TRUE(fs::exists(out_dir_ + "/res.rel.bin"));
}

TEST_F(PgenBadInput, MissingFiles) {
  for (const char* ext : {".pgen", ".pvar", ".psam"}) {
    const std::string p = fileset(std::string("missing") + (ext + 1), pgen_, pvar_, psam_);
    fs::remove(p + ext);
    expect_rejected_fileset(p, {p + ext, "cannot be opened"});
  }
}

TEST_F(PgenBadInput, NotAPgenOrAModeNotRead) {
  std::string b = pgen_;
  b[1] = 0x1c;
  expect_rejected_fileset(with_pgen("magic", b), {"magic.pgen", "not a .pgen file", "magic number"});
  const struct {
    char mode;
    std::vector<std::string> needles;
  } modes[] = {{0x11, {"storage mode 0x11", "plink2 --pfile PREFIX --make-bed"}},
               {0x03, {"storage mode 0x03", "dosages", "erase-dosage"}},
               {0x00, {"storage mode 0x00", "sample-major"}},
               {0x07, {"storage mode 0x07", "specification"}}};
  for (const auto& m : modes) {
    b = pgen_;
    b[2] = m.mode;
    auto needles = m.needles;
    needles.push_back("mode.pgen");
    expect_rejected_fileset(with_pgen("mode", b), needles);
  }
  b = pgen_;
  b[11] = char(b[11] | 8);  // a single-sample fused type/length layout
  expect_rejected_fileset(with_pgen("layout", b), {"layout.pgen", "header layout 8", "single-sample"});
}

TEST_F(PgenBadInput, CountsThatDisagreeWithTheHeader) {
  const std::string short_pvar = pvar_.substr(0, pvar_.rfind('\n', pvar_.size() - 2) + 1);
  const std::string p = with_pvar("count", short_pvar);
  expect_rejected_fileset(p, {p + ".pvar lists 59 variants", "header of " + p + ".pgen says 60"});
  const std::string short_psam = psam_.substr(0, psam_.rfind('\n', psam_.size() - 2) + 1);
  const std::string q = with_psam("samples", short_psam);
  expect_rejected_fileset(q, {q + ".psam lists 63 samples", "header of " + q + ".pgen says 64"});
}

TEST_F(PgenBadInput, TruncatedFiles) {
  const uint32_t j = 40;
  const std::string id = "'v" + std::to_string(j) + "'";
  const struct {
    size_t at;
    const char* name;
    std::vector<std::string> needles;
  } cuts[] = {{record_at(j) + 1, "cut_record", {"truncated", "variant 41 (" + id + ")", "record ends at byte"}},
              {record_at(j), "cut_boundary", {"truncated", "variant 41 (" + id + ")"}},
              {lengths_at() + 5, "cut_header", {"truncated .pgen header", "record lengths"}},
              {7, "cut_counts", {"truncated .pgen header", "12 needed"}}};
  for (const auto& c : cuts) {
    const std::string p = with_pgen(c.name, pgen_.substr(0, c.at));
    auto needles = c.needles;
    needles.push_back(p + ".pgen");
    expect_rejected_fileset(p, needles);
  }
  const std::string p = with_pgen("extra", pgen_ + std::string(3, '\0'));
  expect_rejected_fileset(p, {p + ".pgen", "3 bytes after the last variant record"});
}

TEST_F(PgenBadInput, CorruptHeader) {
  std::string b = pgen_;
  b[12] = char(b[12] + 1);  // the first block's offset
  expect_rejected_fileset(with_pgen("offset", b), {"offset.pgen", "corrupt .pgen header", "variant block 1"});
}

TEST_F(PgenBadInput, CorruptRecordTypeByte) {
  const uint32_t fixed = first_of_type(0), sparse = first_of_type(4);
  const auto name = [](uint32_t j) { return "variant " + std::to_string(j + 1) + " ('v" + std::to_string(j) + "')"; };
  expect_rejected_fileset(with_pgen("reserved", with_type(sparse, 5)),
                          {"reserved.pgen", name(sparse), "record type 0x05", "storage 5"});
  expect_rejected_fileset(with_pgen("multi", with_type(fixed, 8)),
                          {"multi.pgen", name(fixed), "multiallelic", "--max-alleles 2"});
  // A fixed-width record read as a difflist, a difflist as a fixed-width record: the first record
  // that does not decode is named.
  expect_rejected_fileset(with_pgen("as_sparse", with_type(fixed, 4)), {"as_sparse.pgen", name(fixed), "difflist"});
  expect_rejected_fileset(with_pgen("as_fixed", with_type(sparse, 0)),
                          {"as_fixed.pgen", name(sparse), "fixed-width main track takes 16"});
  // The first record of a block cannot be LD-compressed: nothing earlier to refer to.
  expect_rejected_fileset(with_pgen("ld_first", with_type(0, 2)), {"ld_first.pgen", name(0), "LD-compressed"});
}

TEST_F(PgenBadInput, CorruptDifflist) {
  const uint32_t sparse = first_of_type(4);
  std::string b = pgen_;
  const size_t at = record_at(sparse);
  ASSERT_GE(uint8_t(b[at]), 1) << "a non-empty difflist";
  b[at + 1] = char(200);  // the first sample index: past the 64 samples
  expect_rejected_fileset(with_pgen("index", b), {"index.pgen", "variant " + std::to_string(sparse + 1),
                                                  "sample index 200 out of range (64 samples)"});
  b = pgen_;
  b[at] = char(9);  // more entries than n/8 = 8
  expect_rejected_fileset(with_pgen("length", b), {"length.pgen", "variant " + std::to_string(sparse + 1), "n/8 = 8"});
}

TEST_F(PgenBadInput, PsamWithoutAColumnOrWithBadLines) {
  const struct {
    const char* name;
    std::string psam;
    std::vector<std::string> needles;
  } cases[] = {{"no_iid", "#FID\tSEX\n", {":1:", "no IID column"}},
               {"pat_only", "#IID\tPAT\n", {":1:", "PAT and MAT"}},
               {"twice", "#IID\tSEX\tSEX\n", {":1:", "SEX appears twice"}},
               {"short_line", "", {":3:", "2 fields, the header names 3 columns"}},
               {"iid_zero", "", {":2:", "IID '0'"}},
               {"duplicate", "", {":4:", "listed twice (first on line 2)"}}};
  // Lines of 64 samples under the good file's header (#FID IID SEX).
  const std::string header = psam_.substr(0, psam_.find('\n') + 1);
  ASSERT_EQ(header, "#FID\tIID\tSEX\n");
  std::vector<std::string> lines;
  for (size_t at = header.size(); at < psam_.size();) {
    const size_t nl = psam_.find('\n', at);
    lines.push_back(psam_.substr(at, nl - at + 1));
    at = nl + 1;
  }
  for (const auto& c : cases) {
    std::string s = c.psam;
    if (s.empty()) {
      std::vector<std::string> l = lines;
      if (std::string(c.name) == "short_line") l[1] = "f1\ts1\n";
      if (std::string(c.name) == "iid_zero") l[0] = "f0\t0\t1\n";
      if (std::string(c.name) == "duplicate") l[2] = l[0];
      s = header;
      for (const auto& x : l) s += x;
    } else {
      for (const auto& x : lines) s += x;
    }
    const std::string p = with_psam(c.name, s);
    auto needles = c.needles;
    needles[0] = p + ".psam" + needles[0];
    expect_rejected_fileset(p, needles);
  }
}

TEST_F(PgenBadInput, PvarWithoutAColumnOrWithBadLines) {
  const std::string header = pvar_.substr(0, pvar_.find('\n') + 1);
  ASSERT_EQ(header, "#CHROM\tPOS\tID\tREF\tALT\n");
  const std::string body = pvar_.substr(header.size());
  auto line_of = [&](int k) {  // 0-based body line
    size_t at = 0;
    for (int i = 0; i < k; ++i) at = body.find('\n', at) + 1;
    return std::make_pair(at, body.find('\n', at) - at);
  };
  {
    const std::string p = with_pvar("no_id", "#CHROM\tPOS\tREF\tALT\n" + body);
    expect_rejected_fileset(p, {p + ".pvar:1:", "no ID column"});
  }
  {
    const std::string p = with_pvar("unknown_col", "#CHROM\tPOS\tID\tREF\tALT\tDEPTH\n" + body);
    expect_rejected_fileset(p, {p + ".pvar:1:", "unrecognized .pvar column 'DEPTH'"});
  }
  {
    std::string b = body;
    const auto [at, len] = line_of(4);
    b.replace(at, len, "1\t12x\tv4\tA\tG");
    const std::string p = with_pvar("position", header + b);
    expect_rejected_fileset(p, {p + ".pvar:6:", "position '12x'"});
  }
  {
    std::string b = body;
    const auto [at, len] = line_of(7);
    b.replace(at, len, "1\t1049\tv7\tA\tG,T");
    const std::string p = with_pvar("multi", header + b);
    expect_rejected_fileset(p, {p + ".pvar:9:", "'v7' is multiallelic", "--max-alleles 2"});
  }
  {
    std::string b = body;
    const auto [at, len] = line_of(50);  // on chromosome 2; chromosome 1 comes back
    b.replace(at, len, "1\t99999\tv50\tA\tG");
    const std::string p = with_pvar("split", header + b);
    expect_rejected_fileset(p, {p + ".pvar:52:", "chromosome 1 comes back"});
  }
  {
    std::string b = body;
    const auto [at, len] = line_of(3);
    b.replace(at, len, "1\t1021");
    const std::string p = with_pvar("fields", header + b);
    expect_rejected_fileset(p, {p + ".pvar:5:", "2 fields, the header names 5 columns"});
  }
}

TEST_F(PgenBadInput, CorruptPvarZst) {
  const std::string z = tmp_.path("zst");
  ASSERT_EQ(plink2_make_pgen("--pfile " + shq(good_), "vzs", z), 0) << read_text(z + ".plink2.txt");
  const std::string bytes = file_bytes(z + ".pvar.zst");
  write_file(z + ".pvar.zst", bytes.substr(0, bytes.size() / 2));
  expect_rejected_fileset(z, {z + ".pvar.zst", "Zstd"});
  std::string b = bytes;
  b[4] = char(b[4] ^ 0xff);  // the frame header descriptor (plink2's frames carry no checksum: a flip
                             // inside the data may decompress to other text, which the .pvar rules see)
  write_file(z + ".pvar.zst", b);
  expect_rejected_fileset(z, {z + ".pvar.zst", "corrupt Zstd stream"});
}

TEST_F(PgenBadInput, DosagesAreRefusedByName) {
  // A VCF with DS imported with plink2's dosage=DS: dosage tracks the reader does not decode.
  std::string vcf = "##fileformat=VCFv4.2\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"GT\">\n"
                    "##FORMAT=<ID=DS,Number=1,Type=Float,Description=\"DS\">\n"
                    "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\tb\tc\td\n";
  for (int j = 0; j < 5; ++j)
    vcf += "1\t" + std::to_string(100 + j) + "\td" + std::to_string(j) +
           "\tA\tG\t.\t.\t.\tGT:DS\t0/1:0.9\t0/0:0.2\t1/1:1.7\t0/1:1.25\n";
  write_file(tmp_.path("dosage.vcf"), vcf);
  const std::string p = tmp_.path("dosage");
  ASSERT_EQ(plink2_make_pgen("--vcf " + shq(tmp_.path("dosage.vcf")) + " dosage=DS", "", p), 0)
      << read_text(p + ".plink2.txt");
  expect_rejected_fileset(p, {p + ".pgen", "variant 1 ('d0')", "dosage track", "erase-dosage"});
}

TEST_F(PgenBadInput, MultiallelicVariantsAreRefusedByName) {
  // users_vcf's second record is rsB, A -> G,T: plink2 keeps it multiallelic in the .pgen.
  write_file(tmp_.path("multi.vcf"), users_vcf({"a", "b", "c", "d"}, 10, 3, false));
  const std::string p = tmp_.path("multiallelic");
  ASSERT_EQ(plink2_make_pgen("--vcf " + shq(tmp_.path("multi.vcf")), "", p), 0) << read_text(p + ".plink2.txt");
  expect_rejected_fileset(p, {p + ".pvar:", "'rsB' is multiallelic (ALT G,T)", "--max-alleles 2"});
}

TEST_F(PgenBadInput, FlagsThatDoNotGoTogether) {
  expect_rejected("--pfile " + shq(good_) + " --double-id", {"--double-id"});
  expect_rejected("--pfile " + shq(good_) + " --vcf-min-gq 20", {"--vcf-min-gq"});
  expect_rejected("--pfile " + shq(good_) + " --bfile " + shq(good_), {"--bfile"});
  expect_rejected("--pfile " + shq(good_) + " --hard-call-threshold 0.2", {"--hard-call-threshold"});
}

}  // namespace
}  // namespace pmx::test
