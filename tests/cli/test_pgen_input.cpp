// The command line on PLINK 2 filesets: `convert --pfile` writes the bytes `plink2 --pfile PREFIX
// --make-bed` writes (with .pvar and .pvar.zst), `make-bed --pfile` with filters the bytes of
// plink2 with the same filters, and grm / freq (with --keep/--extract) from --pfile give byte for
// byte what they give from the converted .bed.
#include <gtest/gtest.h>

#include <string>

#include "../io/pgen_test_files.hpp"
#include "input_format_checks.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

using PgenInput = input_format_test;

TEST_F(PgenInput, ConvertWritesWhatPlink2Writes) {
  const std::string bfile = shared_data("rice44k/UNL");  // 4.3 % missing calls, many LD records
  if (bfile.empty()) GTEST_SKIP() << "rice data absent";
  for (const char* modifiers : {"", "vzs"}) {
    SCOPED_TRACE(modifiers);
    const std::string p = work().path(std::string("rice_p") + modifiers), ref = work().path("rice_ref"),
                      ours = work().path("rice_ours");
    ASSERT_EQ(plink2_make_pgen("--bfile " + shq(bfile), modifiers, p), 0) << read_text(p + ".plink2.txt");
    ASSERT_EQ(plink2_pfile_make_bed(p, "", ref, *modifiers != 0), 0) << read_text(ref + ".plink2.txt");
    pmx("convert --pfile " + shq(p) + " --out " + shq(ours), "convert_rice");
    expect_same_bytes(ours, ref);
    const std::string log = read_text(ours + ".log");
    EXPECT_NE(log.find("PLINK 2 .pgen (storage mode 0x10)"), std::string::npos) << log;
    EXPECT_NE(log.find("LD-compressed"), std::string::npos) << log;
    if (*modifiers) {
      EXPECT_NE(log.find(".pvar.zst"), std::string::npos) << log;
    }
  }
}

// plink2's filters on a .pgen: the kept samples and variants are plink2's.
TEST_F(PgenInput, MakeBedWithFiltersAsPlink2) {
  const std::string bfile = shared_data("synbreed_cattle/cattle");
  if (bfile.empty()) GTEST_SKIP() << "cattle data absent";
  const std::string p = work().path("cattle_p");
  ASSERT_EQ(plink2_make_pgen("--bfile " + shq(bfile) + " --cow", "", p), 0) << read_text(p + ".plink2.txt");
  int k = 0;
  for (const std::string flags : {"--maf 0.05 --geno 0.02", "--chr 1-5 --mind 0.05", "--hwe 1e-4 --mac 30",
                                  "--not-chr 1-20 --max-maf 0.3", "--from-bp 1 --to-bp 50000000 --chr 7"}) {
    SCOPED_TRACE(flags);
    const std::string ref = work().path("cattle_ref" + std::to_string(k)), ours = work().path("cattle_ours" + std::to_string(k));
    ++k;
    ASSERT_EQ(plink2_pfile_make_bed(p, "--cow " + flags, ref), 0) << read_text(ref + ".plink2.txt");
    pmx("make-bed --pfile " + shq(p) + " --cow " + flags + " --out " + shq(ours), "make_bed_cattle");
    expect_same_bytes(ours, ref);
  }
}

// Statistics read the .pgen as they read the converted fileset: same bytes out.
TEST_F(PgenInput, StatisticsFromPfileEqualThoseFromTheConvertedBed) {
  const std::string bfile = shared_data("gapit_maize282/mdp_maize282");
  if (bfile.empty()) GTEST_SKIP() << "maize data absent";
  const std::string p = work().path("maize_p"), conv = work().path("maize_conv");
  ASSERT_EQ(plink2_make_pgen("--bfile " + shq(bfile), "", p), 0) << read_text(p + ".plink2.txt");
  pmx("convert --pfile " + shq(p) + " --out " + shq(conv), "maize_convert");
  expect_statistics_as_from_bed(conv, {"--pfile " + shq(p)},
                                {{"grm", {".rel.bin", ".rel.id"}},
                                 {"grm --format gcta", {".grm.bin", ".grm.N.bin", ".grm.id"}},
                                 {"freq", {".afreq"}}});
}

}  // namespace
}  // namespace pmx::test
