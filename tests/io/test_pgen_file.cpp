// .pgen reading against plink2: every call, ID and allele code that pgen_genotypes reads equals
// what `plink2 --pfile PREFIX --make-bed` writes from the same fileset (.bed/.bim/.fam byte for
// byte), on plink2's `--make-pgen` of every ../shared/data set (default, `vzs` for .pvar.zst,
// `format=2`), on hand-made filesets that make plink2 choose every record type (at sample counts
// around the difflist's index widths and past one block of 65536 variants), on a VCF with phased
// calls, on .psam/.pvar files with the columns plink2 writes and reads, on stored provisional-REF
// flags and on a .bed under .pgen names (mode 0x01). Hand-checked record decodings come first.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include "io/pgen_records.hpp"
#include "io/psam_file.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pgen_files.hpp"
#include "panoramix/plink_write.hpp"
#include "pgen_test_files.hpp"
#include "shared_data_sets.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {
namespace {

uint8_t code_at(const std::vector<uint8_t>& row, int i) { return (row[size_t(i) >> 2] >> (2 * (i & 3))) & 3; }

// Decodes `bytes` as a record of `type` over n samples; "" or the error.
std::string decode(const std::vector<uint8_t>& bytes, unsigned type, uint32_t n, std::vector<uint8_t>& row,
                   const std::vector<uint8_t>* base = nullptr) {
  row.assign((n + 3) / 4, 0xee);  // garbage: every call must be written
  return io::decode_pgen_record(bytes.data(), bytes.size(), type, n, base ? base->data() : nullptr, row.data());
}

// .bed codes (code_*) of the main-track categories 0 hom REF, 1 het, 2 hom ALT, 3 missing.
constexpr uint8_t REF = code_hom_a2, HET = code_het, ALT = code_hom_a1, MISS = code_missing;

void expect_row(const std::vector<uint8_t>& row, const std::vector<uint8_t>& want) {
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(code_at(row, int(i)), want[i]) << "sample " << i;
  if (want.size() % 4) {
    EXPECT_EQ(row.back() >> (2 * (want.size() % 4)), 0) << "padding calls must be 00";
  }
}

TEST(PgenRecords, FixedWidth) {
  // Categories 0 1 2 3 | 0 1 2 3 | 3 2: two bits each, sample 0 in the low bits.
  std::vector<uint8_t> row;
  ASSERT_EQ(decode({0xe4, 0xe4, 0x0b}, 0, 10, row), "");
  expect_row(row, {REF, HET, ALT, MISS, REF, HET, ALT, MISS, MISS, ALT});
  EXPECT_NE(decode({0xe4, 0xe4}, 0, 10, row).find("fixed-width main track takes 3"), std::string::npos);
  EXPECT_NE(decode({0xe4, 0xe4, 0x0b, 0}, 0, 10, row).find("1 bytes after its last track"), std::string::npos);
}

TEST(PgenRecords, DifflistFromEachCommonCategory) {
  // L = 2; first index 3 (one byte: 16 samples); no group sizes (one group); codes 1, 3 (0x0d);
  // one gap varint: 6 -> sample 9.
  const std::vector<uint8_t> rec = {0x02, 0x03, 0x0d, 0x06};
  std::vector<uint8_t> row;
  const uint8_t common[] = {REF, ALT, MISS};
  const unsigned types[] = {4, 6, 7};
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(decode(rec, types[k], 16, row), "");
    std::vector<uint8_t> want(16, common[k]);
    want[3] = HET, want[9] = MISS;
    expect_row(row, want);
  }
  EXPECT_EQ(decode({0x00}, 4, 5, row), "");  // an empty difflist: all hom REF
  expect_row(row, {REF, REF, REF, REF, REF});
}

TEST(PgenRecords, DifflistErrors) {
  std::vector<uint8_t> row;
  EXPECT_NE(decode({0x03, 0x03, 0x0d, 0x06, 0x01}, 4, 16, row).find("more than n/8 = 2"), std::string::npos);
  EXPECT_NE(decode({0x02, 0x03, 0x0d, 0x0d}, 4, 16, row).find("sample index 16 out of range"), std::string::npos);
  EXPECT_NE(decode({0x02, 0x03, 0x0d}, 4, 16, row).find("ends inside a difflist"), std::string::npos);
  EXPECT_NE(decode({0x02, 0x03}, 4, 16, row).find("difflist's index"), std::string::npos);
  EXPECT_NE(decode({0x80}, 4, 16, row).find("difflist's length"), std::string::npos);
  EXPECT_NE(decode({0x00}, 5, 16, row).find("storage 5"), std::string::npos);
}

TEST(PgenRecords, DifflistIndexWidthsAndGroups) {
  EXPECT_EQ(io::pgen_sample_id_bytes(255), 1);
  EXPECT_EQ(io::pgen_sample_id_bytes(256), 2);  // plink2 writes 2 bytes from 256 samples on
  EXPECT_EQ(io::pgen_sample_id_bytes(65535), 2);
  EXPECT_EQ(io::pgen_sample_id_bytes(65536), 3);
  EXPECT_EQ(io::pgen_sample_id_bytes(1u << 24), 4);
  // 65 entries over 600 samples (2-byte indices): group 1 = samples 0, 2, ..., 126 (63 gaps of one
  // byte each: group size byte 0), group 2 = sample 500; all het (code 1 = 0x55 per 4 entries).
  std::vector<uint8_t> rec = {65, 0x00, 0x00, 0xf4, 0x01, 0x00};
  for (int k = 0; k < 17; ++k) rec.push_back(0x55);
  for (int k = 0; k < 63; ++k) rec.push_back(2);
  std::vector<uint8_t> row;
  ASSERT_EQ(decode(rec, 4, 600, row), "");
  std::vector<uint8_t> want(600, REF);
  for (int i = 0; i < 128; i += 2) want[size_t(i)] = HET;
  want[500] = HET;
  expect_row(row, want);
  rec[5] = 1;  // a group size that disagrees with its gaps
  EXPECT_NE(decode(rec, 4, 600, row).find("difflist group 1"), std::string::npos);
}

TEST(PgenRecords, OneBit) {
  // Categories 0 and 2 (byte 2): bits set for samples 0, 5, 15 (hom ALT); then a difflist: sample 7 het.
  std::vector<uint8_t> row;
  ASSERT_EQ(decode({0x02, 0x21, 0x80, 0x01, 0x07, 0x01}, 1, 16, row), "");
  std::vector<uint8_t> want(16, REF);
  want[0] = want[5] = want[15] = ALT, want[7] = HET;
  expect_row(row, want);
  // Categories 1 and 3 (byte 6): set bits missing, clear bits het.
  ASSERT_EQ(decode({0x06, 0x01, 0x00, 0x00}, 1, 10, row), "");
  expect_row(row, {MISS, HET, HET, HET, HET, HET, HET, HET, HET, HET});
  EXPECT_NE(decode({0x04, 0x01, 0x00}, 1, 10, row).find("category byte 4"), std::string::npos);
}

TEST(PgenRecords, LdCompressedAndInverted) {
  std::vector<uint8_t> base, row;
  ASSERT_EQ(decode({0x02, 0x21, 0x80, 0x01, 0x07, 0x01}, 1, 16, base), "");  // as in OneBit
  // LD: the base with sample 3 set het.
  ASSERT_EQ(decode({0x01, 0x03, 0x01}, 2, 16, row, &base), "");
  std::vector<uint8_t> want(16, REF);
  want[0] = want[5] = want[15] = ALT, want[7] = want[3] = HET;
  expect_row(row, want);
  // LD inverted: sample 5 set hom REF, then hom REF and hom ALT swapped everywhere (as plink2 reads it).
  ASSERT_EQ(decode({0x01, 0x05, 0x00}, 3, 16, row, &base), "");
  want.assign(16, ALT);
  want[0] = want[15] = REF, want[5] = ALT, want[7] = HET;
  expect_row(row, want);
  EXPECT_NE(decode({0x00}, 2, 16, row).find("LD-compressed"), std::string::npos);
}

TEST(PgenRecords, PhaseTrackIsSkippedByItsLength) {
  // Fixed codes 1 1 0 2 (two hets); phase track: bit 0 clear (all hets phased) + 2 phase bits.
  std::vector<uint8_t> row;
  ASSERT_EQ(decode({0x85, 0x04}, 0x10, 4, row), "");
  expect_row(row, {HET, HET, REF, ALT});
  // Bit 0 set: "phase present" bits for the 2 hets (1, 0), then one phase bit in its own byte.
  ASSERT_EQ(decode({0x85, 0x03, 0x01}, 0x10, 4, row), "");
  EXPECT_NE(decode({0x85, 0x03}, 0x10, 4, row).find("phase track"), std::string::npos);
  EXPECT_NE(decode({0x85}, 0x10, 4, row).find("phase track"), std::string::npos);
  EXPECT_NE(decode({0x85, 0x04}, 0x20, 4, row).find("tracks this reader does not decode"), std::string::npos);
}

// ---- against plink2 -------------------------------------------------------------------------

void expect_every_record_type(const pgen_read_counts& c) {
  EXPECT_GT(c.fixed_width, 0);
  EXPECT_GT(c.one_bit, 0);
  EXPECT_GT(c.sparse, 0);
  EXPECT_GT(c.ld, 0);
  EXPECT_GT(c.ld_inverted, 0);
}

/// Reads PREFIX with `o`, writes it as a fileset, and checks it byte for byte against plink2's
/// --make-bed of the same PREFIX. Returns the reader's record counts.
pgen_read_counts expect_plink2_fileset(const std::string& prefix, const pgen_options& o, const std::string& flags,
                                       bool vzs = false) {
  SCOPED_TRACE(prefix + " " + flags);
  const std::string ref = prefix + ".plink2", ours = prefix + ".pmx";
  EXPECT_EQ(plink2_pfile_make_bed(prefix, flags, ref, vzs), 0) << read_text(ref + ".plink2.txt");
  const pgen_genotypes p(prefix, o);
  write_plink_fileset(ours, p, plink_text_style::plink2);  // block by block, as convert writes
  expect_same_bytes(ours, ref);
  return p.counts();
}

// Every data set through plink2 --make-pgen (default, vzs, format=2) reads back as plink2 reads
// it, and between them the sets hold every record type plink2 writes by default.
TEST(PgenFile, SharedDataSetsAsPlink2ReadsThem) {
  PMX_REQUIRE_PLINK2();
  pgen_read_counts total;
  const int seen = for_each_shared_data_set([&](const data_set& d, const std::string& bfile, const std::string& name) {
    for (const char* modifiers : {"", "vzs", "format=2"}) {
      const std::string prefix = work().path(name + ".pgen" + (*modifiers ? std::string(".") + modifiers : ""));
      ASSERT_EQ(plink2_make_pgen("--bfile " + shq(bfile) + " " + d.chr_flags, modifiers, prefix), 0)
          << read_text(prefix + ".plink2.txt");
      ASSERT_EQ(std::filesystem::exists(prefix + ".pvar.zst"), std::string(modifiers) == "vzs");
      pgen_options o;
      o.chromosomes = chromosome_set{d.autosomes};
      o.threads = 2;
      const pgen_read_counts c = expect_plink2_fileset(prefix, o, d.chr_flags, std::string(modifiers) == "vzs");
      if (HasFatalFailure()) return;
      if (*modifiers == 0) {
        total.fixed_width += c.fixed_width, total.one_bit += c.one_bit, total.sparse += c.sparse;
        total.ld += c.ld, total.ld_inverted += c.ld_inverted;
      }
      if (std::string(modifiers) == "format=2") {
        EXPECT_EQ(c.fixed_width, int64_t(read_fileset(prefix + ".pmx").bim.size()));
      }
    }
  });
  if (seen == 0) GTEST_SKIP() << "no data set under ../shared/data";
  std::printf("record types over the data sets: %lld fixed-width, %lld 1-bit, %lld difflist, %lld LD, %lld LD-inverted\n",
              (long long)total.fixed_width, (long long)total.one_bit, (long long)total.sparse, (long long)total.ld,
              (long long)total.ld_inverted);
  expect_every_record_type(total);
}

// Hand-made filesets: every record type at each size, difflist indices of 1 and 2 bytes (255, 256,
// 257 samples) and a file of two blocks of variants (LD compression restarts at variant 65537).
TEST(PgenFile, EveryRecordTypeAsPlink2ReadsIt) {
  PMX_REQUIRE_PLINK2();
  const struct {
    int64_t n, m;
  } sizes[] = {{5, 300}, {64, 400}, {255, 400}, {256, 400}, {257, 400}, {1000, 300}, {24, 70000}};
  for (const auto& s : sizes) {
    const std::string base = work().path("hand_" + std::to_string(s.n) + "x" + std::to_string(s.m));
    write_record_type_fileset(base, s.n, s.m, uint64_t(s.n * 31 + s.m));
    ASSERT_EQ(plink2_make_pgen("--bfile " + shq(base), "", base + "_p"), 0) << read_text(base + "_p.plink2.txt");
    pgen_options o;
    o.threads = 2;
    const pgen_read_counts c = expect_plink2_fileset(base + "_p", o, "");
    if (HasFatalFailure()) return;
    SCOPED_TRACE(std::to_string(s.n) + " samples");
    if (s.n >= 64) expect_every_record_type(c);  // (difflists need n/8 entries of room)
  }
}

// A VCF with phased and unphased calls, haploid chromosomes, indels: plink2 stores phase tracks
// (8-bit record types), which are skipped; the calls are plink2's.
TEST(PgenFile, PhasedVcfImportAsPlink2ReadsIt) {
  PMX_REQUIRE_PLINK2();
  std::vector<std::string> ids;
  for (int i = 0; i < 90; ++i) ids.push_back("id" + std::to_string(i));
  const std::string vcf = work().path("phased.vcf"), prefix = work().path("phased");
  write_file(vcf, users_vcf(ids, 300, 17, false));
  ASSERT_EQ(plink2_make_pgen("--vcf " + shq(vcf) + " --max-alleles 2", "", prefix), 0)
      << read_text(prefix + ".plink2.txt");
  pgen_options o;
  const pgen_read_counts c = expect_plink2_fileset(prefix, o, "");
  EXPECT_GT(c.phased, 0);
}

// .psam and .pvar columns: no FID (FID 0), SID (dropped), parents, sex codes, phenotypes
// (categorical skipped, binary, quantitative in %g); a .pvar with CM, QUAL/FILTER/INFO, "chr"
// names, and one without header (.bim layout).
TEST(PgenFile, PsamAndPvarColumnsAsPlink2ReadsThem) {
  PMX_REQUIRE_PLINK2();
  const std::string base = work().path("cols");
  write_record_type_fileset(base, 6, 40, 5);
  ASSERT_EQ(plink2_make_pgen("--bfile " + shq(base), "", base), 0) << read_text(base + ".plink2.txt");
  const std::string psams[] = {
      "#IID\tSEX\tPHENO1\tcat\nA\t1\t1.5\tx\nB\tF\tNA\ty\nC\tNA\t2\tz\nD\t0\t-9\tNONE\nE\tm\t0\tx\nF\tf\t1e-7\ty\n",
      "#FID\tIID\tSID\tPAT\tMAT\tSEX\tq\nf1\tA\ts1\tD\t0\t2\t1\nf1\tB\t0\tA\tD\tNA\t2\nf2\tC\ts\t0\t0\t1\t0\n"
      "f2\tD\t0\t0\t0\t1\tNA\nf3\tE\t0\t0\t0\t1\t-9\nf3\tF\t0\t0\t0\t2\t2\n",
      "## comment\n#IID\tcat\tq\tb\nA\tx\t1.50\t1\nB\ty\t3e0\t2\nC\tz\t0\t1\nD\tNONE\t0.123456789\t2\n"
      "E\tx\t-9.0\tNA\nF\ty\t123456789\t0\n",
      "f1 A 0 0 1 2\nf1 B A 0 2 1\nf1 C 0 0 0 -9\nf2 D 0 0 1 1\nf2 E 0 0 2 2\nf2 F 0 0 1 0\n"};
  const auto bim = field_lines(base + ".bim");
  auto pvar_of = [&](int layout) {
    std::string s = layout == 0 ? "##fileformat=VCFv4.3\n##INFO=<ID=X,Number=0,Type=Flag,Description=\"x\">\n"
                                  "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tCM\n"
                                : "";
    for (size_t j = 0; j < bim.size(); ++j) {
      std::vector<std::string> f;
      std::istringstream ss(bim[j]);
      for (std::string x; ss >> x;) f.push_back(x);
      if (layout == 0)
        s += "chr" + f[0] + "\t" + f[3] + "\t" + f[1] + "\t" + f[5] + "\t" + f[4] + "\t" + (j % 2 ? "30" : ".") +
             "\tPASS\t" + (j % 3 ? "X" : ".") + "\t" + std::to_string(0.25 * double(j)) + "\n";
      else
        s += f[0] + " " + f[1] + " " + std::to_string(j) + ".5 " + f[3] + " " + f[4] + " " + f[5] + "\n";
    }
    return s;
  };
  int k = 0;
  for (const std::string& psam : psams)
    for (int layout : {0, 1}) {
      const std::string p = work().path("cols" + std::to_string(k++));
      std::filesystem::copy_file(base + ".pgen", p + ".pgen");
      write_file(p + ".psam", psam);
      write_file(p + ".pvar", pvar_of(layout));
      expect_plink2_fileset(p, {}, "");
      if (HasFatalFailure()) return;
    }
  // Five columns without a header: the specification allows it, plink2 does not; neither do we.
  const std::string p = work().path("cols_five");
  std::filesystem::copy_file(base + ".pgen", p + ".pgen");
  std::filesystem::copy_file(base + ".pvar", p + ".pvar");
  write_file(p + ".psam", "f1 A 0 0 1\nf1 B 0 0 2\nf1 C 0 0 0\nf2 D 0 0 1\nf2 E 0 0 2\nf2 F 0 0 1\n");
  EXPECT_NE(plink2_pfile_make_bed(p, "", p + ".plink2"), 0);
  try {
    pgen_genotypes{p};
    ADD_FAILURE() << "a five-column .psam was read";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(p + ".psam:1: 5 fields"), std::string::npos) << e.what();
  }
}

// Some REF alleles set (and swapped) with --ref-allele: the header stores the provisional-REF flags
// per variant (byte 12 = 0xc0), in both the variable-width and the fixed-width layout.
TEST(PgenFile, StoredProvisionalRefFlags) {
  PMX_REQUIRE_PLINK2();
  const std::string base = work().path("refs"), refs = work().path("refs.txt");
  write_record_type_fileset(base, 90, 200, 4);
  std::string r;
  for (int j = 0; j < 200; j += 9) r += "v" + std::to_string(j) + "\t" + (j % 2 ? "A" : "G") + "\n";
  write_file(refs, r);
  for (const char* modifiers : {"", "format=2"}) {
    const std::string p = work().path(std::string("refs_p") + modifiers);
    ASSERT_EQ(plink2_make_pgen("--bfile " + shq(base) + " --ref-allele force " + shq(refs) + " 2 1", modifiers, p), 0)
        << read_text(p + ".plink2.txt");
    ASSERT_EQ(uint8_t(file_bytes(p + ".pgen")[11]), 0xc0) << "per-variant provisional-REF flags";
    expect_plink2_fileset(p, {}, "");
    if (HasFatalFailure()) return;
  }
}

// A PLINK 1 fileset under .pgen/.pvar/.psam names (storage mode 0x01, headerless .pvar and .psam in
// .bim and .fam column order) reads as plink2 reads it.
TEST(PgenFile, PlinkOneFilesetUnderPgenNames) {
  PMX_REQUIRE_PLINK2();
  const std::string base = work().path("bed_named"), p = work().path("bed_as_pgen");
  write_record_type_fileset(base, 37, 120, 9);
  std::filesystem::copy_file(base + ".bed", p + ".pgen");
  std::filesystem::copy_file(base + ".bim", p + ".pvar");
  std::filesystem::copy_file(base + ".fam", p + ".psam");
  const pgen_read_counts c = expect_plink2_fileset(p, {}, "");
  EXPECT_EQ(c.fixed_width, 120);
  EXPECT_EQ(file_bytes(p + ".pmx.bed"), file_bytes(base + ".bed"));
}

// Blocks are decoded as they are read: any bounds (starting on an LD-compressed record, whose
// base lies before the block; across the 65536-variant block boundary) give the rows of the whole.
TEST(PgenFile, BlocksOfAnyBoundsAreTheRowsOfTheWhole) {
  PMX_REQUIRE_PLINK2();
  const std::string base = work().path("blocks");
  write_record_type_fileset(base, 80, 66000, 6);
  ASSERT_EQ(plink2_make_pgen("--bfile " + shq(base), "", base + "_p"), 0);
  pgen_options o;
  o.threads = 3;
  const pgen_genotypes p(base + "_p", o);
  ASSERT_GT(p.counts().ld + p.counts().ld_inverted, 100);
  EXPECT_EQ(p.mapped_block(0, 10).data, nullptr);
  EXPECT_EQ(p.format(), "PLINK 2 .pgen (storage mode 0x10)");
  const packed_genotypes whole = p.read_block(0, p.n_variants());
  EXPECT_EQ(file_bytes(base + ".bed").substr(3),
            std::string(reinterpret_cast<const char*>(whole.row(0)), size_t(whole.row_bytes() * p.n_variants())));
  std::mt19937_64 rng(5);
  for (int k = 0; k < 200; ++k) {
    const int64_t first = k < 2 ? 65530 : int64_t(rng() % uint64_t(p.n_variants()));
    const int64_t count = std::min<int64_t>(p.n_variants() - first, 1 + int64_t(rng() % (k % 3 ? 40 : 3000)));
    const packed_genotypes b = p.read_block(first, count);
    ASSERT_EQ(std::memcmp(b.row(0), whole.row(first), size_t(count * b.row_bytes())), 0)
        << "block " << first << " + " << count;
  }
  EXPECT_EQ(p.read_block(7, 0).n_variants(), 0);
}

}  // namespace
}  // namespace pmx::test
