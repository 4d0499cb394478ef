// BGEN reading against plink2: every call, ID and allele code that bgen_genotypes reads equals what
// `plink2 --bgen FILE ref-first [--sample FILE] --make-bed` writes (byte-identical .bed, the same
// .bim/.fam fields), on plink2's BGEN v1.2 (zlib) and v1.3 (zstd) exports of every ../shared/data
// set at 8 and 16 bits, and on hand-made files (every bit depth plink2 reads, uncompressed, zlib and
// zstd, haploid, phased, missing and uncertain calls). Hand-checked decoding cases come first.
#include <gtest/gtest.h>


#include "io/bgen_probabilities.hpp"
#include "io/oxford_sample_file.hpp"
#include "panoramix/bgen_files.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plink_write.hpp"
#include "bgen_test_files.hpp"
#include "genotype_source_checks.hpp"
#include "shared_data_sets.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {
namespace {

uint8_t code_at(const std::vector<uint8_t>& row, int i) { return (row[i >> 2] >> (2 * (i & 3))) & 3; }

// One variant's uncompressed block, as the writer lays it out.
std::string block_of(const bgen_variant& v) {
  bgen_spec s;
  s.ids.assign(v.calls.size(), "x");
  s.compression = 0;
  s.sample_block = false;
  s.variants = {v};
  const std::string all = bgen_bytes(s);
  // header (4 + 20) + ids + chrom + pos + K + alleles + C
  size_t at = 24 + 2 + v.snp_id.size() + 2 + v.rsid.size() + 2 + v.chrom.size() + 4 + 2;
  for (const auto& a : v.alleles) at += 4 + a.size();
  return all.substr(at + 4);
}

std::string decode(const bgen_variant& v, std::vector<uint8_t>& row, io::bgen_row_counts& counts,
                   double threshold = 0.1) {
  const std::string b = block_of(v);
  row.assign((v.calls.size() + 3) / 4, 0);
  return io::decode_bgen_probabilities(reinterpret_cast<const uint8_t*>(b.data()), b.size(),
                                       int64_t(v.calls.size()), 2, io::bgen_hard_call_units(threshold), row.data(),
                                       counts);
}

TEST(BgenProbabilities, HardCallsAsPlink2) {
  bgen_variant v;
  v.bits = 8;
  // P(11), P(12) of 255: exact calls, the 0.1 boundary on both sides, an uncertain call, missing.
  v.calls = {{2, false, {255, 0}},  {2, false, {0, 255}}, {2, false, {0, 0}},   {2, false, {230, 25}},
             {2, false, {229, 26}}, {2, false, {0, 230}}, {2, false, {100, 100}}, {2, true, {255, 0}},
             {1, false, {0}},       {1, false, {255}},    {0, false, {}}};
  std::vector<uint8_t> row;
  io::bgen_row_counts counts;
  ASSERT_EQ(decode(v, row, counts), "");
  // 25/255 = 0.098 -> 0 ALT; 26/255 = 0.102 -> missing; P(12) 230, P(22) 25 -> 280/255 = 1.098 -> het;
  // 210/255 = 0.82 -> missing; haploid P(1) = 0 -> 2 ALT (hom A1).
  const uint8_t want[] = {code_hom_a2, code_het, code_hom_a1, code_hom_a2, code_missing, code_het,
                          code_missing, code_missing, code_hom_a1, code_hom_a2, code_missing};
  for (int i = 0; i < 11; ++i) EXPECT_EQ(code_at(row, i), want[i]) << "sample " << i;
  EXPECT_EQ(counts.missing, 2);
  EXPECT_EQ(counts.uncertain, 2);
  EXPECT_EQ(row[2] >> 6, 0) << "the padding call stays 0";
}

TEST(BgenProbabilities, PhasedHaplotypesAndOddBitDepths) {
  for (int bits : {1, 3, 13, 28}) {
    SCOPED_TRACE(bits);
    const uint32_t top = uint32_t((uint64_t(1) << bits) - 1);
    bgen_variant v;
    v.bits = bits;
    v.phased = true;
    v.calls = {{2, false, {top, top}}, {2, false, {top, 0}}, {2, false, {0, 0}}, {1, false, {0}}, {2, true, {0, 0}}};
    std::vector<uint8_t> row;
    io::bgen_row_counts counts;
    ASSERT_EQ(decode(v, row, counts), "");
    const uint8_t want[] = {code_hom_a2, code_het, code_hom_a1, code_hom_a1, code_missing};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(code_at(row, i), want[i]) << "sample " << i;
  }
}

TEST(BgenProbabilities, ThresholdIsPlink2s) {
  EXPECT_EQ(io::bgen_hard_call_units(0.1), 1638u);  // plink2's kDosageMid / 10
  EXPECT_EQ(io::bgen_hard_call_units(0), 0u);
  bgen_variant v;
  v.bits = 20;
  // Dosages 104858/1048575 = 0.1000004 and 104864/1048575 = 0.1000062: plink2 rounds them to
  // 1638/16384 and 1639/16384 first, so the first (above 0.1) is still a call.
  const uint32_t top = 1048575;
  v.calls = {{2, false, {top - 104858, 104858}}, {2, false, {top - 104864, 104864}}};
  std::vector<uint8_t> row;
  io::bgen_row_counts counts;
  ASSERT_EQ(decode(v, row, counts), "");
  EXPECT_EQ(code_at(row, 0), code_hom_a2);
  EXPECT_EQ(code_at(row, 1), code_missing);
  ASSERT_EQ(decode(v, row, counts, 0.0), "");
  EXPECT_EQ(code_at(row, 0), code_missing);
}

TEST(BgenProbabilities, BadBlocksAreNamed) {
  bgen_variant v;
  v.calls = {{2, false, {200, 100}}};
  std::vector<uint8_t> row;
  io::bgen_row_counts counts;
  EXPECT_NE(decode(v, row, counts).find("sum above 1"), std::string::npos);
  v.calls = {{3, false, {0, 0, 0}}};
  EXPECT_NE(decode(v, row, counts).find("ploidy above 2"), std::string::npos);
  v.calls = {{2, false, {0, 0}}};
  v.bits = 30;
  EXPECT_NE(decode(v, row, counts).find("30-bit"), std::string::npos);
  v.bits = 8;
  const std::string b = block_of(v);
  EXPECT_NE(io::decode_bgen_probabilities(reinterpret_cast<const uint8_t*>(b.data()), b.size() - 1, 1, 2, 1638,
                                          row.data(), counts)
                .find("probabilities need"),
            std::string::npos);
}

TEST(OxfordSampleFile, IdsSexAndFirstPhenotype) {
  const std::string p = work().path("ids.sample");
  write_file(p, "ID_1 ID_2 missing sex bin q\n0 0 0 D B P\nF1 I1 0 1 1 1.50\nF2 I2 0.1 2 0 NA\nF3 I3 0 NA NA 3e0\n");
  const auto s = io::read_oxford_samples(p);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].fid, "F1");
  EXPECT_EQ(s[0].iid, "I1");
  EXPECT_EQ(s[0].sex, 1);
  EXPECT_EQ(s[1].sex, 2);
  EXPECT_EQ(s[2].sex, 0);
  EXPECT_EQ(s[0].phenotype, "2");  // the first phenotype column is binary: 1 -> case (2)
  EXPECT_EQ(s[1].phenotype, "1");
  EXPECT_EQ(s[2].phenotype, "-9");
  write_file(p, "ID_1 ID_2 missing sex\n0 0 0 D\nF1 I1 0 male\n");
  EXPECT_THROW(io::read_oxford_samples(p), input_error);
  write_file(p, "ID_1 ID_2 missing\n0 0 0\nF1 I1 0\nF1 I1 0\n");
  EXPECT_THROW(io::read_oxford_samples(p), input_error);
}

// ---- against plink2 -------------------------------------------------------------------------

/// Reads `file` with `o`, writes the fileset at `prefix`, and compares it with plink2's.
void expect_plink2_fileset(const std::string& file, const bgen_options& o, const std::string& plink2_flags,
                           const std::string& name) {
  SCOPED_TRACE(name + ": " + file + " " + o.sample_file + " " + plink2_flags);
  const std::string ref = work().path(name + ".plink2"), ours = work().path(name + ".pmx");
  ASSERT_EQ(plink2_bgen_make_bed(file, o.sample_file, plink2_flags, ref), 0) << read_text(ref + ".plink2.txt");
  const bgen_genotypes b(file, o);
  write_plink_fileset(ours, b.samples(), b.variants(), b.mapped_block(0, b.n_variants()));
  expect_same_fileset(read_fileset(ours), read_fileset(ref));
}

// Every data set exported by plink2 as BGEN v1.2 (zlib) and v1.3 (zstd), 8 and 16 bits, reads back
// as plink2 reads it, with the sample block's IDs and with the .sample file's.
TEST(BgenFile, SharedDataSetsAsPlink2ReadsThem) {
  PMX_REQUIRE_PLINK2();
  const int seen = for_each_shared_data_set([](const data_set& d, const std::string& bfile, const std::string& name) {
    int k = 0;
    for (const char* what : {"bgen-1.2 bits=8", "bgen-1.2", "bgen-1.3 bits=8", "bgen-1.3"}) {
      const std::string exp = work().path(name + ".export" + std::to_string(k++));
      ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " " + d.chr_flags + " --export " + what +
                        " --threads 2 --out " + shq(exp),
                    exp + ".txt"),
                0)
          << read_text(exp + ".txt");
      const std::string header = file_bytes(exp + ".bgen").substr(0, 28);
      ASSERT_EQ(header[20] & 3, std::string(what).find("1.2") != std::string::npos ? 1 : 2) << "compression";
      bgen_options o;
      o.chromosomes = chromosome_set{d.autosomes};
      o.threads = 2;
      expect_plink2_fileset(exp + ".bgen", o, d.chr_flags, name + ".block");
      if (HasFatalFailure()) return;
      o.sample_file = exp + ".sample";
      expect_plink2_fileset(exp + ".bgen", o, d.chr_flags, name + ".sample");
      if (HasFatalFailure()) return;
    }
  });
  if (seen == 0) GTEST_SKIP() << "no data set under ../shared/data";
}

// Hand-made files at every bit depth plink2 reads, each compression: the hard calls of haploid,
// phased, missing and near-threshold probabilities are plink2's, call for call.
TEST(BgenFile, HandMadeFilesAsPlink2ReadsThem) {
  PMX_REQUIRE_PLINK2();
  std::vector<std::string> ids;
  for (int i = 0; i < 37; ++i) ids.push_back("s" + std::to_string(i));
  int k = 0;
  for (int bits : {1, 2, 3, 5, 8, 10, 12, 16, 20, 23, 24, 28}) {
    const int compression = k % 3;
#ifndef PMX_TEST_ZSTD
    if (compression == 2) continue;
#endif
    const std::string file = work().path("hand" + std::to_string(k) + ".bgen");
    write_file(file, bgen_bytes(random_bgen(ids, 150, bits, compression, 100 + uint64_t(k))));
    ++k;
    bgen_options o;
    o.threads = 3;
    expect_plink2_fileset(file, o, "", "hand" + std::to_string(bits));
    if (HasFatalFailure()) return;
  }
}

TEST(BgenFile, HardCallThresholdAsPlink2) {
  PMX_REQUIRE_PLINK2();
  std::vector<std::string> ids;
  for (int i = 0; i < 50; ++i) ids.push_back("s" + std::to_string(i));
  for (int bits : {8, 16}) {
    const std::string file = work().path("thresh" + std::to_string(bits) + ".bgen");
    write_file(file, bgen_bytes(random_bgen(ids, 100, bits, 1, 9)));
    for (double t : {0.0, 0.05, 0.2, 0.49}) {
      bgen_options o;
      o.hard_call_threshold = t;
      expect_plink2_fileset(file, o, "--hard-call-threshold " + std::to_string(t), "thresh");
      if (HasFatalFailure()) return;
    }
  }
}

// Every call on and next to the boundaries of plink2's rounding (its integer dosage
// floor((16384 v + 2^(B-1)) / (2^B - 1)) of the first allele) and of the threshold, at every bit
// depth plink2 reads, unphased, phased and haploid, thresholds 0 to 0.49.
TEST(BgenFile, HardCallBoundariesAsPlink2) {
  PMX_REQUIRE_PLINK2();
  int k = 0;
  for (int bits : {1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 20, 24, 28})
    for (double t : {0.0, 0.1, 0.05, 0.2, 0.4999}) {
      const std::string file = work().path("bounds" + std::to_string(k++) + ".bgen");
      write_file(file, bgen_bytes(boundary_bgen(bits, io::bgen_hard_call_units(t), 1)));
      bgen_options o;
      o.hard_call_threshold = t;
      expect_plink2_fileset(file, o, "--hard-call-threshold " + std::to_string(t),
                            "bounds" + std::to_string(bits) + "_" + std::to_string(t));
      if (HasFatalFailure()) return;
    }
}

// Sample-block IDs under plink2's ID flags, and a .sample file with sex and a phenotype.
TEST(BgenFile, SampleIdsAsPlink2) {
  PMX_REQUIRE_PLINK2();
  const std::vector<std::string> ids = {"fam1_ind1", "fam2_ind2", "f_3", "f4_i4"};
  const std::string file = work().path("ids.bgen");
  write_file(file, bgen_bytes(random_bgen(ids, 20, 8, 1, 3)));
  const struct {
    vcf_sample_ids mode;
    const char* flags;
  } modes[] = {{vcf_sample_ids::const_fid, ""}, {vcf_sample_ids::double_id, "--double-id"},
               {vcf_sample_ids::delimited, "--id-delim"}};
  for (const auto& m : modes) {
    bgen_options o;
    o.ids.ids = m.mode;
    expect_plink2_fileset(file, o, m.flags, "ids");
    if (HasFatalFailure()) return;
  }
  bgen_options o;
  o.sample_file = work().path("ids.sample");
  write_file(o.sample_file, "ID_1 ID_2 missing sex pheno\n0 0 0 D P\nA a 0 1 1.5\nB b 0 2 2\nC c 0 0 -9\nD d 0 1 7\n");
  expect_plink2_fileset(file, o, "", "ids_sample");
}

TEST(BgenFile, BlocksAreViewsOfTheRows) {
  std::vector<std::string> ids = {"a", "b", "c", "d", "e"};
  const std::string file = work().path("views.bgen");
  write_file(file, bgen_bytes(random_bgen(ids, 30, 8, 0, 5)));
  const bgen_genotypes b(file);
  EXPECT_EQ(b.n_samples(), 5);
  EXPECT_EQ(b.n_variants(), 30);
  expect_blocks_are_views_of_the_rows(b, 3, 10);
  EXPECT_EQ(b.format(), "BGEN layout 2, uncompressed");
}

}  // namespace
}  // namespace pmx::test
