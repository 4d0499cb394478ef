// What the command-line tests of the input formats (VCF/BCF, BGEN, .pgen) share: a fixture that
// needs plink2 (the oracle) and runs panoramix, and the check that statistics read from the format
// give, byte for byte, what they give from the `.bed` that `convert` wrote from it, over all
// samples and variants and over a --keep/--extract selection.
#pragma once
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../io/vcf_test_files.hpp"
#include "test_support.hpp"

namespace pmx::test {

/// Runs `panoramix args --threads 2` (output to `log`); fails the test with its output when it fails.
inline void expect_panoramix_ok(const std::string& args, const std::string& log) {
  ASSERT_EQ(panoramix(args + " --threads 2", log), 0) << args << "\n" << read_text(log);
}

/// Base of those tests: skips without plink2; pmx() runs panoramix (log under work()).
class input_format_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_program("plink2")) GTEST_SKIP() << "plink2 is not installed";
  }
  static void pmx(const std::string& args, const std::string& name) {
    expect_panoramix_ok(args, work().path(name + ".txt"));
  }
};

/// A statistic and the files it writes beside its --out prefix.
struct statistic {
  const char* command;
  std::vector<const char*> outputs;
};

/// Writes CONV.keep (every other sample of CONV.fam) and CONV.extract (2 variants in 3 of
/// CONV.bim); returns "--keep CONV.keep --extract CONV.extract".
inline std::string keep_and_extract_of(const std::string& conv) {
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
  write_file(conv + ".keep", k);
  write_file(conv + ".extract", e);
  return "--keep " + shq(conv + ".keep") + " --extract " + shq(conv + ".extract");
}

/// Runs each of `stats` (with --threads 2) on `--bfile conv` and on each of `inputs` ("--vcf
/// FILE", ...), without and with keep_and_extract_of(conv), and checks each output file's bytes.
inline void expect_statistics_as_from_bed(const std::string& conv, const std::vector<std::string>& inputs,
                                          const std::vector<statistic>& stats) {
  const auto pmx = expect_panoramix_ok;
  const std::string selection = keep_and_extract_of(conv);
  int k = 0;
  for (const auto& s : stats)
    for (const std::string& sel : {std::string(), selection}) {
      SCOPED_TRACE(std::string(s.command) + " " + sel);
      const std::string a = conv + ".stat_bed" + std::to_string(k);
      pmx(std::string(s.command) + " --bfile " + shq(conv) + " " + sel + " --out " + shq(a), a + ".txt");
      for (size_t f = 0; f < inputs.size(); ++f) {
        const std::string b = conv + ".stat" + std::to_string(f) + "_" + std::to_string(k);
        pmx(std::string(s.command) + " " + inputs[f] + " " + sel + " --out " + shq(b), b + ".txt");
        for (const char* ext : s.outputs) {
          const std::string want = file_bytes(a + ext);
          EXPECT_FALSE(want.empty()) << ext;
          EXPECT_EQ(file_bytes(b + ext), want) << ext << " from " << inputs[f];
        }
      }
      ++k;
    }
}

}  // namespace pmx::test
