// The command line on BGEN input: `convert --bgen` writes what `plink2 --bgen FILE ref-first
// --make-bed` writes from the same file (with the sample block's IDs and with --sample), and grm /
// freq (with --keep/--extract) from --bgen give byte for byte what they give from the converted .bed.
#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"
#include "../io/bgen_test_files.hpp"
#include "input_format_checks.hpp"

namespace pmx::test {
namespace {

using BgenInput = input_format_test;

TEST_F(BgenInput, ConvertWritesWhatPlink2Writes) {
  const std::string bfile = shared_data("rice44k/UNL");  // 4.3 % missing calls
  if (bfile.empty()) GTEST_SKIP() << "rice data absent";
  for (const char* what : {"bgen-1.2 bits=8", "bgen-1.3"}) {
    SCOPED_TRACE(what);
    const std::string exp = work().path("rice_exp"), ref = work().path("rice_ref"), ours = work().path("rice_ours");
    ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " --export " + what + " --out " + shq(exp)), 0);
    for (const std::string& sample : {std::string(), exp + ".sample"}) {
      ASSERT_EQ(plink2_bgen_make_bed(exp + ".bgen", sample, "", ref), 0) << read_text(ref + ".plink2.txt");
      pmx("convert --bgen " + shq(exp + ".bgen") + (sample.empty() ? "" : " --sample " + shq(sample)) + " --out " +
              shq(ours),
          "convert_rice");
      expect_same_fileset(read_fileset(ours), read_fileset(ref));
      EXPECT_NE(read_text(ours + ".log").find("BGEN layout 2"), std::string::npos);
    }
  }
}

TEST_F(BgenInput, HandMadeFileWithIdFlags) {
  const std::string file = work().path("hand.bgen"), ref = work().path("hand_ref"), ours = work().path("hand_ours");
  write_file(file, bgen_bytes(random_bgen({"f1_a", "f2_b", "f3_c", "f4_d", "f5_e", "f6_f", "f7_g"}, 200, 16, 1, 21)));
  for (const std::string flags : {"", "--double-id", "--id-delim", "--hard-call-threshold 0.25"}) {
    SCOPED_TRACE(flags);
    ASSERT_EQ(plink2_bgen_make_bed(file, "", flags, ref), 0) << read_text(ref + ".plink2.txt");
    pmx("convert --bgen " + shq(file) + " " + flags + " --out " + shq(ours), "convert_hand");
    expect_same_fileset(read_fileset(ours), read_fileset(ref));
  }
}

// Statistics read the BGEN as they read the converted fileset: same bytes out.
TEST_F(BgenInput, StatisticsFromBgenEqualThoseFromTheConvertedBed) {
  const std::string bfile = shared_data("gapit_maize282/mdp_maize282");
  if (bfile.empty()) GTEST_SKIP() << "maize data absent";
  const std::string exp = work().path("maize_bgen"), conv = work().path("maize_bgen_conv");
  ASSERT_EQ(run("plink2 --bfile " + shq(bfile) + " --export bgen-1.3 bits=8 --out " + shq(exp)), 0);
  const std::string bgen = exp + ".bgen";
  pmx("convert --bgen " + shq(bgen) + " --out " + shq(conv), "maize_bgen_convert");
  expect_statistics_as_from_bed(conv, {"--bgen " + shq(bgen)},
                                {{"grm", {".rel.bin", ".rel.id"}},
                                 {"grm --format gcta", {".grm.bin", ".grm.N.bin", ".grm.id"}},
                                 {"freq", {".afreq"}}});
}

}  // namespace
}  // namespace pmx::test
