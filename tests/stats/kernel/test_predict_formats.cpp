// krr and rr --predict read TEST in every input format: TEST exported by plink2 as VCF (bgzipped),
// BCF, BGEN (8-bit, REF first as the reader takes it; hard calls exact) and .pgen gives the same weights, predictions and accuracy
// files as the .bed that `panoramix convert` writes from that export (the same reader, so the same
// sample IDs and A1 alleles); the .bed of TEST itself, given as PREFIX.bed, is the PREFIX run.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "panoramix/vcf_files.hpp"
#include "ridge_test_data.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

// The outputs of a krr or rr run that must agree.
void expect_same_outputs(const std::string& a, const std::string& b) {
  for (const char* ext : {".weights", ".beta", ".pred", ".eval"}) {
    const bool in_a = std::filesystem::exists(a + ext), in_b = std::filesystem::exists(b + ext);
    EXPECT_EQ(in_a, in_b) << ext;
    if (in_a && in_b) {
      EXPECT_EQ(read_text(a + ext), read_text(b + ext)) << ext;
    }
  }
}

TEST(PredictFormats, EveryTestFormatPredictsAsItsConvertedBed) {
  PMX_REQUIRE_PLINK2();
  if (!have_program("plink1.9")) GTEST_SKIP() << "plink1.9 absent: no TEST split";
  const simulated& d = simulated_data();
  const std::string dir = d.dir + "/formats";
  std::filesystem::create_directories(dir);
  struct format {
    const char* name;
    const char* plink2_export;  // plink2 flags writing TEST in the format
    std::string file;           // what --predict and convert get
    const char* convert_flag;
  };
  std::vector<format> formats = {
      {"bgen", "--export bgen-1.2 bits=8 ref-first", dir + "/t_bgen.bgen", "--bgen"},
      {"pgen", "--make-pgen", dir + "/t_pgen", "--pfile"},
  };
  if (vcf_compiled_in()) {  // htslib
    formats.push_back({"vcf", "--export vcf bgz", dir + "/t_vcf.vcf.gz", "--vcf"});
    formats.push_back({"bcf", "--export bcf", dir + "/t_bcf.bcf", "--bcf"});
  }
  const std::string runs[] = {"krr --gamma 2e-4 --alpha 0.7", "krr --kernel ibs --alpha 0.05", "rr --lambda 50"};
  int k = 0;
  for (const format& f : formats) {
    SCOPED_TRACE(f.name);
    ASSERT_EQ(run("plink2 --bfile " + shq(d.test) + " " + f.plink2_export + " --out " + shq(dir + "/t_" + f.name),
                  dir + "/t_" + f.name + ".plink2.txt"),
              0);
    const std::string converted = dir + "/conv_" + f.name;
    ASSERT_EQ(panoramix(std::string("convert ") + f.convert_flag + " " + shq(f.file) + " --out " + shq(converted),
                        converted + ".txt"),
              0)
        << read_text(converted + ".log");
    for (const std::string& command : runs) {
      SCOPED_TRACE(command);
      const std::string from_format = dir + "/p" + std::to_string(k), from_bed = dir + "/q" + std::to_string(k++);
      const std::string common = command + " --bfile " + shq(d.train) + " --pheno " + shq(d.pheno) +
                                 " --all-pheno --threads 2 --predict ";
      ASSERT_EQ(panoramix(common + shq(f.file) + " --out " + shq(from_format)), 0) << read_text(from_format + ".log");
      ASSERT_EQ(panoramix(common + shq(converted) + " --out " + shq(from_bed)), 0) << read_text(from_bed + ".log");
      EXPECT_TRUE(std::filesystem::exists(from_format + ".pred"));
      expect_same_outputs(from_format, from_bed);
    }
  }
  // PREFIX.bed names the same fileset as PREFIX.
  const std::string a = dir + "/bed_a", b = dir + "/bed_b";
  const std::string common = "rr --lambda 50 --bfile " + shq(d.train) + " --pheno " + shq(d.pheno) + " --all-pheno --predict ";
  ASSERT_EQ(panoramix(common + shq(d.test + ".bed") + " --out " + shq(a)), 0) << read_text(a + ".log");
  ASSERT_EQ(panoramix(common + shq(d.test) + " --out " + shq(b)), 0) << read_text(b + ".log");
  expect_same_outputs(a, b);
  EXPECT_TRUE(std::filesystem::exists(a + ".eval"));
}

}  // namespace
}  // namespace pmx::test
