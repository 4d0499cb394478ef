// The command line on BGEN input: `convert --bgen` writes what `plink2 --bgen FILE ref-first
// --make-bed` writes from the same file (with the sample block's IDs and with --sample), and grm /
// freq (with --keep/--extract) from --bgen give byte for byte what they give from the converted .bed.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "test_support.hpp"
#include "../io/bgen_test_files.hpp"

namespace pmx::test {
namespace {

class BgenInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_program("plink2")) GTEST_SKIP() << "plink2 is not installed";
  }
  void pmx(const std::string& args, const std::string& name) {
    const std::string log = work().path(name + ".txt");
    ASSERT_EQ(panoramix(args + " --threads 2", log), 0) << args << "\n" << read_text(log);
  }
};

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
  const std::string keep = work().path("maize_bgen.keep"), extract = work().path("maize_bgen.extract");
  {
    auto field = [](const std::string& line, int k) {
      std::istringstream ss(line);
      std::string f;
      for (int i = 0; i <= k; ++i) ss >> f;
      return f;
    };
    const auto fam = field_lines(conv + ".fam"), bim = field_lines(conv + ".bim");
    std::string k, e;
    for (size_t i = 0; i < fam.size(); i += 2) k += field(fam[i], 0) + " " + field(fam[i], 1) + "\n";
    for (size_t j = 0; j < bim.size(); ++j)
      if (j % 3) e += field(bim[j], 1) + "\n";
    write_file(keep, k);
    write_file(extract, e);
  }
  const struct {
    const char* command;
    std::vector<const char*> outputs;
  } stats[] = {{"grm", {".rel.bin", ".rel.id"}},
               {"grm --format gcta", {".grm.bin", ".grm.N.bin", ".grm.id"}},
               {"freq", {".afreq"}}};
  int k = 0;
  for (const auto& s : stats)
    for (const std::string& sel : {std::string(), "--keep " + shq(keep) + " --extract " + shq(extract)}) {
      SCOPED_TRACE(std::string(s.command) + " " + sel);
      const std::string a = work().path("bgen_from_bed" + std::to_string(k)),
                        b = work().path("bgen_from_bgen" + std::to_string(k));
      ++k;
      pmx(std::string(s.command) + " --bfile " + shq(conv) + " " + sel + " --out " + shq(a), "stat_bed");
      pmx(std::string(s.command) + " --bgen " + shq(bgen) + " " + sel + " --out " + shq(b), "stat_bgen");
      for (const char* ext : s.outputs) {
        const std::string want = file_bytes(a + ext);
        EXPECT_FALSE(want.empty()) << ext;
        EXPECT_EQ(file_bytes(b + ext), want) << ext << " from --bgen";
      }
    }
}

}  // namespace
}  // namespace pmx::test
