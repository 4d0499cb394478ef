// The command line on VCF/BCF input: `convert` writes what plink2 writes from the same file, and
// grm / freq / pca (with --keep/--extract) from --vcf or --bcf give byte for byte what they give
// from the converted .bed.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "panoramix/vcf_files.hpp"
#include "test_support.hpp"
#include "../io/vcf_test_files.hpp"
#include "input_format_checks.hpp"

namespace pmx::test {
namespace {

class VcfInput : public input_format_test {
 protected:
  void SetUp() override {
    input_format_test::SetUp();
    if (!IsSkipped() && !vcf_compiled_in()) GTEST_SKIP() << "this build has no htslib";
  }
};

TEST_F(VcfInput, ConvertWritesWhatPlink2Writes) {
  const std::string vcf = work().path("users.vcf"), gz = work().path("users.vcf.gz");
  write_file(vcf, users_vcf({"fam1_ind1", "ind_2_x", "plain", "a_b_c", "z"}, 300, 7, false));
  ASSERT_TRUE(write_bgzf(vcf, gz, 5000));
  for (const std::string flags : {"", "--double-id", "--vcf-min-gq 25 --vcf-min-dp 5", "--const-fid x"}) {
    SCOPED_TRACE(flags);
    const std::string ref = work().path("users_ref"), ours = work().path("users_ours");
    ASSERT_EQ(plink2_make_bed("--vcf", gz, flags, ref), 0) << read_text(ref + ".plink2.txt");
    pmx("convert --vcf " + shq(gz) + " " + flags + " --out " + shq(ours), "convert_users");
    expect_same_fileset(read_fileset(ours), read_fileset(ref));
    const std::string log = read_text(ours + ".log");
    EXPECT_NE(log.find("multi-allelic"), std::string::npos) << log;
    EXPECT_NE(log.find("VCF, bgzip"), std::string::npos) << log;
  }
}

TEST_F(VcfInput, ConvertBcfOfADataSet) {
  const std::string bfile = shared_data("bglr_mice/mice");
  if (bfile.empty()) GTEST_SKIP() << "mice data absent";
  const std::string exp = work().path("mice_exp"), ref = work().path("mice_ref"), ours = work().path("mice_ours");
  ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " --chr-set 19 --export bcf --out " + shq(exp)), 0);
  ASSERT_EQ(plink2_make_bed("--bcf", exp + ".bcf", "--chr-set 19", ref), 0);
  pmx("convert --bcf " + shq(exp + ".bcf") + " --mouse --out " + shq(ours), "convert_mice");
  expect_same_fileset(read_fileset(ours), read_fileset(ref));
}

// Statistics read the VCF as they read the converted fileset: same bytes out.
TEST_F(VcfInput, StatisticsFromVcfEqualThoseFromTheConvertedBed) {
  const std::string bfile = shared_data("gapit_maize282/mdp_maize282");
  if (bfile.empty()) GTEST_SKIP() << "maize data absent";
  const std::string exp = work().path("maize_exp"), conv = work().path("maize_conv");
  ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " --export vcf bgz --out " + shq(exp)), 0);
  ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " --export bcf --out " + shq(exp)), 0);
  const std::string vcf = exp + ".vcf.gz", bcf = exp + ".bcf";
  pmx("convert --vcf " + shq(vcf) + " --out " + shq(conv), "maize_convert");
  expect_statistics_as_from_bed(conv, {"--vcf " + shq(vcf), "--bcf " + shq(bcf)},
                                {{"grm", {".rel.bin", ".rel.id"}},
                                 {"grm --format gcta", {".grm.bin", ".grm.N.bin", ".grm.id"}},
                                 {"freq", {".afreq"}},
                                 {"pca --pcs 4 --exact", {".eigenval", ".eigenvec"}}});
}

// An analysis that asks for its genotypes through analysis_context reads --vcf too (a.bfile carries
// the file): gblup's breeding values and variance components are the same bytes.
TEST_F(VcfInput, GblupFromVcfEqualsGblupFromTheFileset) {
  const std::string sim = work().path("gsim"), out_bed = work().path("g_bed"), out_vcf = work().path("g_vcf");
  pmx("simulate --samples 200 --variants 2000 --seed 4 --out " + shq(sim), "gsim");
  ASSERT_EQ(run("plink2 --bfile " + shq(sim) + " --export vcf bgz --out " + shq(sim)), 0);
  std::string pheno;
  int k = 0;
  for (const std::string& line : field_lines(sim + ".fam")) {
    std::istringstream ss(line);
    std::string fid, iid;
    ss >> fid >> iid;
    pheno += fid + " " + iid + " " + std::to_string((k * 7919 % 101) / 10.0) + "\n";
    ++k;
  }
  write_file(sim + ".pheno", pheno);
  pmx("gblup --bfile " + shq(sim) + " --pheno " + shq(sim + ".pheno") + " --h2 0.4 --out " + shq(out_bed), "g_bed");
  pmx("gblup --vcf " + shq(sim + ".vcf.gz") + " --id-delim --pheno " + shq(sim + ".pheno") + " --h2 0.4 --out " +
          shq(out_vcf),
      "g_vcf");
  for (const char* ext : {".gebv", ".vc", ".fixef"}) {
    EXPECT_FALSE(file_bytes(out_bed + ext).empty()) << ext;
    EXPECT_EQ(file_bytes(out_vcf + ext), file_bytes(out_bed + ext)) << ext;
  }
}

}  // namespace
}  // namespace pmx::test
