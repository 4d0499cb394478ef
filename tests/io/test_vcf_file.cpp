// VCF/BCF reading against plink2: every call, ID and allele code that vcf_genotypes reads equals
// what `plink2 --vcf FILE --max-alleles 2 --snps-only --make-bed` writes (byte-identical .bed, the
// same .bim/.fam fields), on VCF and BCF exports of every ../shared/data set and on VCFs with the
// records users have. Hand-checked cases of the call rules and sample IDs come first.
#include <gtest/gtest.h>

#include "io/vcf_calls.hpp"
#include "io/vcf_sample_ids.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plink_write.hpp"
#include "panoramix/vcf_files.hpp"
#include "shared_data_sets.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {
namespace {

#define PMX_REQUIRE_VCF()                                                           \
  do {                                                                              \
    if (!::pmx::vcf_compiled_in()) GTEST_SKIP() << "this build has no htslib";      \
  } while (0)
// htslib's GT integers: (allele + 1) << 1 | phased; 0 = '.'.
constexpr int32_t A(int allele, bool phased = false) { return ((allele + 1) << 1) | (phased ? 1 : 0); }
constexpr int32_t dot = 0, end = io::gt_vector_end;

uint8_t code_at(const std::vector<uint8_t>& row, int i) { return (row[i >> 2] >> (2 * (i & 3))) & 3; }

TEST(VcfCalls, DiploidHaploidMissingAndPolyploid) {
  // 0/0, 0/1, 1|0, 1/1, ./., ., 1 (haploid), 0 (haploid), 0/1/1, empty
  const std::vector<int32_t> gt = {A(0), A(0), A(0), A(1), A(1, true), A(0, true), A(1), A(1), dot, dot,
                                   dot, end, A(1), end, A(0), end, end, end, end, end};
  // stride 2 for the first 8 samples; polyploid and empty in a stride-3 call below
  std::vector<uint8_t> row(2, 0);
  io::gt_row_problem p;
  EXPECT_EQ(io::encode_gt_row(gt.data(), 2, 8, 2, vcf_half_call::error, row.data(), p), 0);
  EXPECT_LT(p.sample, 0);
  const uint8_t want[8] = {code_hom_a2, code_het, code_het, code_hom_a1, code_missing, code_missing,
                           code_hom_a1, code_hom_a2};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(code_at(row, i), want[i]) << "sample " << i;

  const std::vector<int32_t> gt3 = {A(0), A(1), A(1), end, end, end, A(1), A(1), end};
  std::vector<uint8_t> row3(1, 0);
  EXPECT_EQ(io::encode_gt_row(gt3.data(), 3, 3, 2, vcf_half_call::error, row3.data(), p), 0);
  EXPECT_EQ(code_at(row3, 0), code_missing);  // triploid: plink2 reads it as missing
  EXPECT_EQ(code_at(row3, 1), code_missing);  // no GT for this sample
  EXPECT_EQ(code_at(row3, 2), code_hom_a1);
  EXPECT_EQ(row3[0] >> 6, 0) << "the padding call stays 0";
}

TEST(VcfCalls, HalfCallsFollowTheMode) {
  const std::vector<int32_t> gt = {dot, A(1), A(0), dot};  // "./1", "0/."
  const struct {
    vcf_half_call mode;
    uint8_t first, second;
  } cases[] = {{vcf_half_call::missing, code_missing, code_missing},
               {vcf_half_call::haploid, code_hom_a1, code_hom_a2},
               {vcf_half_call::reference, code_het, code_hom_a2}};
  for (const auto& c : cases) {
    std::vector<uint8_t> row(1, 0);
    io::gt_row_problem p;
    EXPECT_EQ(io::encode_gt_row(gt.data(), 2, 2, 2, c.mode, row.data(), p), 2);
    EXPECT_EQ(code_at(row, 0), c.first);
    EXPECT_EQ(code_at(row, 1), c.second);
  }
  std::vector<uint8_t> row(1, 0);
  io::gt_row_problem p;
  io::encode_gt_row(gt.data(), 2, 2, 2, vcf_half_call::error, row.data(), p);
  EXPECT_EQ(p.sample, 0);
  EXPECT_EQ(p.what, io::gt_row_problem::kind::half_call);
}

TEST(VcfCalls, AlleleBeyondTheRecordIsAProblem) {
  const std::vector<int32_t> gt = {A(0), A(1), A(0), A(2)};
  std::vector<uint8_t> row(1, 0);
  io::gt_row_problem p;
  io::encode_gt_row(gt.data(), 2, 2, 2, vcf_half_call::error, row.data(), p);
  EXPECT_EQ(p.sample, 1);
  EXPECT_EQ(p.what, io::gt_row_problem::kind::bad_allele);
  EXPECT_EQ(p.allele, 2);
  const std::vector<int32_t> mono = {A(1), A(1)};  // ALT '.': only allele 0 exists
  io::gt_row_problem q;
  io::encode_gt_row(mono.data(), 2, 1, 1, vcf_half_call::error, row.data(), q);
  EXPECT_EQ(q.what, io::gt_row_problem::kind::bad_allele);
}

TEST(VcfCalls, QualityBelowTheThresholdMasks) {
  std::vector<uint8_t> row = {static_cast<uint8_t>(code_het | code_hom_a1 << 2 | code_missing << 4 | code_hom_a2 << 6),
                              code_het};
  const std::vector<int32_t> gq = {19, 20, 5, io::int_missing, io::int_vector_end};
  EXPECT_EQ(io::mask_below(gq.data(), 1, 5, 20, row.data()), 1);  // only sample 0 was called and low
  EXPECT_EQ(code_at(row, 0), code_missing);
  EXPECT_EQ(code_at(row, 1), code_hom_a1);
  EXPECT_EQ(code_at(row, 2), code_missing);
  EXPECT_EQ(code_at(row, 3), code_hom_a2);  // '.' keeps the call, as plink2
  EXPECT_EQ(code_at(row, 4), code_het);
}

TEST(VcfSampleIds, ModesAsPlink2) {
  const std::vector<std::string> ids = {"f1_i1", "f2_i2_s2", "x_y"};
  vcf_options o;
  auto s = io::vcf_sample_records(ids, o, "x.vcf");
  EXPECT_EQ(s[1].fid, "0");
  EXPECT_EQ(s[1].iid, "f2_i2_s2");
  EXPECT_EQ(s[1].father, "0");
  EXPECT_EQ(s[1].phenotype, "-9");
  o.ids = vcf_sample_ids::double_id;
  s = io::vcf_sample_records(ids, o, "x.vcf");
  EXPECT_EQ(s[0].fid, "f1_i1");
  EXPECT_EQ(s[0].iid, "f1_i1");
  o.ids = vcf_sample_ids::delimited;
  s = io::vcf_sample_records(ids, o, "x.vcf");
  EXPECT_EQ(s[1].fid, "f2");
  EXPECT_EQ(s[1].iid, "i2");  // the SID is dropped
  EXPECT_THROW(io::vcf_sample_records({"a_b", "nodelim"}, o, "x.vcf"), input_error);
  EXPECT_THROW(io::vcf_sample_records({"a_b_c_d"}, o, "x.vcf"), input_error);
  EXPECT_THROW(io::vcf_sample_records({"a_b", "a_b_s"}, o, "x.vcf"), input_error);  // same FID/IID
  o.ids = vcf_sample_ids::const_fid;
  EXPECT_THROW(io::vcf_sample_records({"a b"}, o, "x.vcf"), input_error);
  try {
    io::vcf_sample_records({"a_b", "nodelim"}, vcf_options{.ids = vcf_sample_ids::delimited}, "x.vcf");
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("x.vcf: sample 2 ('nodelim')"), std::string::npos) << e.what();
  }
}

// ---- against plink2 -------------------------------------------------------------------------

/// Reads `file` with `o`, writes the fileset at `prefix`, and compares it with plink2's.
void expect_plink2_fileset(const std::string& flag, const std::string& file, const vcf_options& o,
                           const std::string& plink2_flags, const std::string& name) {
  SCOPED_TRACE(name + ": " + file + " " + plink2_flags);
  const std::string ref = work().path(name + ".plink2"), ours = work().path(name + ".pmx");
  ASSERT_EQ(plink2_make_bed(flag, file, plink2_flags, ref), 0) << read_text(ref + ".plink2.txt");
  const vcf_genotypes v(file, o);
  write_plink_fileset(ours, v.samples(), v.variants(), v.mapped_block(0, v.n_variants()));
  expect_same_fileset(read_fileset(ours), read_fileset(ref));
  EXPECT_EQ(v.counts().records, v.n_variants() + v.counts().multiallelic + v.counts().non_snp);
}

// Every data set exported by plink2 as bgzipped VCF and as BCF reads back as plink2 reads it.
TEST(VcfFile, SharedDataSetsAsPlink2ReadsThem) {
  PMX_REQUIRE_VCF();
  PMX_REQUIRE_PLINK2();
  const int seen = for_each_shared_data_set([](const data_set& d, const std::string& bfile, const std::string& name) {
    const std::string exp = work().path(name + ".export");
    for (const char* what : {"vcf bgz", "bcf"}) {
      ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " " + d.chr_flags + " --export " + what +
                        " --threads 2 --out " + shq(exp),
                    exp + ".txt"),
                0)
          << read_text(exp + ".txt");
      const bool is_bcf = std::string(what) == "bcf";
      const std::string file = exp + (is_bcf ? ".bcf" : ".vcf.gz");
      vcf_options o;
      o.chromosomes = chromosome_set{d.autosomes};
      o.threads = 2;
      expect_plink2_fileset(is_bcf ? "--bcf" : "--vcf", file, o, d.chr_flags, name + (is_bcf ? ".bcf" : ".vcf"));
      if (HasFatalFailure()) return;
    }
  });
  if (seen == 0) GTEST_SKIP() << "no data set under ../shared/data";
}

// The same calls as the original .bed: plink2's export keeps A2 as REF and A1 as ALT.
TEST(VcfFile, ExportOfAFilesetRoundTrips) {
  PMX_REQUIRE_VCF();
  PMX_REQUIRE_PLINK2();
  const std::string bfile = shared_data("gapit_maize282/mdp_maize282");
  if (bfile.empty()) GTEST_SKIP() << "maize data absent";
  const std::string exp = work().path("maize_rt");
  ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " --export vcf bgz --out " + shq(exp)), 0);
  const vcf_genotypes v(exp + ".vcf.gz");
  const std::string bed = file_bytes(bfile + ".bed");
  ASSERT_EQ(static_cast<int64_t>(bed.size()), 3 + v.n_variants() * ((v.n_samples() + 3) / 4));
  const variant_major_view g = v.mapped_block(0, v.n_variants());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(g.data), bed.size() - 3), bed.substr(3));
}

const std::vector<std::string> underscore_ids = {"fam1_ind1", "ind_2_x", "plain", "a_b_c", "z", "F_7", "q_q"};

// Records users have, plain text and bgzipped, with each set of flags, as plink2 reads them.
TEST(VcfFile, UsersRecordsAsPlink2ReadsThem) {
  PMX_REQUIRE_VCF();
  PMX_REQUIRE_PLINK2();
  const std::string vcf = work().path("users.vcf"), gz = work().path("users.vcf.gz");
  write_file(vcf, users_vcf(underscore_ids, 400, 11, false));
  ASSERT_TRUE(write_bgzf(vcf, gz, 3000)) << "python3 needed to write BGZF";
  const struct {
    const char* flags;
    vcf_options o;
  } cases[] = {
      {"", {}},
      {"--double-id", {.ids = vcf_sample_ids::double_id}},
      {"--const-fid fx", {.ids = vcf_sample_ids::const_fid, .const_fid = "fx"}},
      {"--vcf-min-gq 20", {.min_gq = 20}},
      {"--vcf-min-dp 10", {.min_dp = 10}},
      {"--vcf-min-gq 31 --vcf-min-dp 1", {.min_gq = 31, .min_dp = 1}},
  };
  int k = 0;
  for (const auto& c : cases) {
    expect_plink2_fileset("--vcf", vcf, c.o, c.flags, "users" + std::to_string(k));
    expect_plink2_fileset("--vcf", gz, c.o, c.flags, "users_gz" + std::to_string(k++));
    if (HasFatalFailure()) return;
  }
  const vcf_genotypes v(vcf);
  EXPECT_EQ(v.counts().without_gt, 1);
  EXPECT_GT(v.counts().multiallelic, 0);
  EXPECT_GT(v.counts().non_snp, 0);
  EXPECT_GT(v.counts().unsorted, 0);
  EXPECT_EQ(v.format(), "VCF");
  EXPECT_EQ(vcf_genotypes(gz).format(), "VCF, bgzip");
}

TEST(VcfFile, IdDelimiterAsPlink2) {
  PMX_REQUIRE_VCF();
  PMX_REQUIRE_PLINK2();
  const std::string vcf = work().path("delim.vcf");
  write_file(vcf, users_vcf({"f1_i1", "f2_i2_s2", "x_y", "F_7", "p_q_r", "a_b"}, 60, 5, false));
  expect_plink2_fileset("--vcf", vcf, {.ids = vcf_sample_ids::delimited}, "--id-delim", "delim_");
  const std::string vcf2 = work().path("delim2.vcf");
  write_file(vcf2, users_vcf({"f1-i1", "f2-i2", "x-y"}, 30, 6, false));
  expect_plink2_fileset("--vcf", vcf2, {.ids = vcf_sample_ids::delimited, .id_delim = '-'}, "--id-delim -",
                        "delim_dash");
}

TEST(VcfFile, HalfCallModesAsPlink2) {
  PMX_REQUIRE_VCF();
  PMX_REQUIRE_PLINK2();
  const std::string vcf = work().path("half.vcf");
  write_file(vcf, users_vcf(underscore_ids, 200, 23, true));
  const struct {
    const char* flag;
    vcf_half_call mode;
  } cases[] = {{"m", vcf_half_call::missing}, {"h", vcf_half_call::haploid}, {"r", vcf_half_call::reference}};
  for (const auto& c : cases)
    expect_plink2_fileset("--vcf", vcf, {.half_call = c.mode}, std::string("--vcf-half-call ") + c.flag,
                          std::string("half_") + c.flag);
  EXPECT_GT(vcf_genotypes(vcf, {.half_call = vcf_half_call::missing}).counts().half_calls, 0);
  // plink2's default refuses them, and so do we, naming the record and the sample.
  EXPECT_NE(plink2_make_bed("--vcf", vcf, "", work().path("half_e")), 0);
  try {
    vcf_genotypes v(vcf);
    ADD_FAILURE() << "a half-call was accepted";
  } catch (const input_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(vcf + ": record "), std::string::npos) << m;
    EXPECT_NE(m.find("half-call"), std::string::npos) << m;
    EXPECT_NE(m.find("--vcf-half-call"), std::string::npos) << m;
  }
}

// Blocks served from memory: views without copies, copies equal to the views.
TEST(VcfFile, BlocksAreViewsOfTheRows) {
  PMX_REQUIRE_VCF();
  const std::string vcf = work().path("blocks.vcf");
  write_file(vcf, users_vcf({"a", "b", "c", "d", "e"}, 50, 3, false));
  const vcf_genotypes v(vcf);
  ASSERT_GT(v.n_variants(), 10);
  const variant_major_view all = v.mapped_block(0, v.n_variants());
  const variant_major_view part = v.mapped_block(3, 5);
  EXPECT_EQ(part.data, all.row(3));
  const packed_genotypes copy = v.read_block(3, 5);
  for (int64_t j = 0; j < 5; ++j)
    for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(copy.view().code(i, j), all.code(i, j + 3));
}

}  // namespace
}  // namespace pmx::test
