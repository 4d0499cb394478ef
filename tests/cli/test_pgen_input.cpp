// The command line on PLINK 2 filesets: `convert --pfile` writes the bytes `plink2 --pfile PREFIX
// --make-bed` writes (with .pvar and .pvar.zst), `make-bed --pfile` with filters the bytes of
// plink2 with the same filters, and grm / freq (with --keep/--extract) from --pfile give byte for
// byte what they give from the converted .bed.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "../io/pgen_test_files.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

class PgenInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_program("plink2")) GTEST_SKIP() << "plink2 is not installed";
  }
  void pmx(const std::string& args, const std::string& name) {
    const std::string log = work().path(name + ".txt");
    ASSERT_EQ(panoramix(args + " --threads 2", log), 0) << args << "\n" << read_text(log);
  }
};

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
  const std::string keep = work().path("maize.keep"), extract = work().path("maize.extract");
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
      const std::string a = work().path("pgen_from_bed" + std::to_string(k)),
                        b = work().path("pgen_from_pgen" + std::to_string(k));
      ++k;
      pmx(std::string(s.command) + " --bfile " + shq(conv) + " " + sel + " --out " + shq(a), "stat_bed");
      pmx(std::string(s.command) + " --pfile " + shq(p) + " " + sel + " --out " + shq(b), "stat_pgen");
      for (const char* ext : s.outputs) {
        const std::string want = file_bytes(a + ext);
        EXPECT_FALSE(want.empty()) << ext;
        EXPECT_EQ(file_bytes(b + ext), want) << ext << " from --pfile";
      }
    }
}

}  // namespace
}  // namespace pmx::test
