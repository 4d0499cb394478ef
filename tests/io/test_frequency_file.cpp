// read_frequency_file: PLINK 1.9 .frq and PLINK 2 .afreq files matched to a fileset by variant
// ID, A1 frequencies (1 − f where the file counts the .bim's A2), and an error naming file and
// line for each kind of bad input. The oracle is the file's own numbers.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/frequency_file.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

// Three variants v0 (A/C), v1 (G/T), v2 (A/G), four samples.
std::string fileset(test::temp_dir& dir) {
  const auto g = test::random_genotypes(4, 3, 0.0, 1, false);
  std::vector<sample_record> s(4);
  for (int i = 0; i < 4; ++i) s[i] = {"f", "s" + std::to_string(i), "0", "0", 1, "-9"};
  const std::vector<variant_record> v = {
      {"1", "v0", 0, 1, "A", "C"}, {"1", "v1", 0, 2, "G", "T"}, {"2", "v2", 0, 3, "A", "G"}};
  write_plink_fileset(dir.path("d"), s, v, g.view());
  return dir.path("d");
}

std::string write(test::temp_dir& dir, const std::string& name, const std::string& text) {
  const std::string p = dir.path(name);
  std::ofstream(p) << text;
  return p;
}

void expect_input_error(const std::string& path, const plink_fileset& data, const std::string& text) {
  try {
    read_frequency_file(path, data);
    ADD_FAILURE() << "no error for " << path;
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(FrequencyFile, Plink19FrqCountsA1OrFlips) {
  test::temp_dir dir;
  const plink_fileset data(fileset(dir));
  // v1 counted on T (the .bim A2): 1 − 0.25; an extra variant is ignored; order differs.
  const std::string f = write(dir, "a.frq",
                              " CHR  SNP   A1   A2   MAF  NCHROBS\n"
                              "   2   v2    A    G  0.125      8\n"
                              "   1   v0    A    C  0.5        8\n"
                              "   1   v1    T    G  0.25       8\n"
                              "   3   vx    A    G  0.3        8\n");
  const auto p = read_frequency_file(f, data);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], 0.5);
  EXPECT_EQ(p[1], 0.75);
  EXPECT_EQ(p[2], 0.125);
}

TEST(FrequencyFile, Plink2Afreq) {
  test::temp_dir dir;
  const plink_fileset data(fileset(dir));
  // ALT is the counted allele: v0 ALT = A (the .bim A1), v1 ALT = T (A2: flipped).
  const std::string f = write(dir, "a.afreq",
                              "#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n"
                              "1\tv0\tC\tA\t0.375\t8\n"
                              "1\tv1\tG\tT\t0.125\t8\n"
                              "2\tv2\tG\tA\t1\t8\n");
  const auto p = read_frequency_file(f, data);
  EXPECT_EQ(p[0], 0.375);
  EXPECT_EQ(p[1], 0.875);
  EXPECT_EQ(p[2], 1.0);
}

// PLINK 1.9's own --freq output (A1 = its minor allele, which may be the .bim A2) read back gives
// the A1 frequencies counted from the genotypes.
TEST(FrequencyFile, ReadsPlink19Output) {
  if (!test::have_program("plink1.9")) GTEST_SKIP() << "plink1.9 is not on PATH; cannot compare against it";
  test::temp_dir dir;
  const auto g = test::random_genotypes(60, 40, 0.1, 9, false);
  std::vector<sample_record> s(60);
  for (int i = 0; i < 60; ++i) s[i] = {"f", "s" + std::to_string(i), "0", "0", 1 + i % 2, "-9"};
  std::vector<variant_record> v(40);
  for (int l = 0; l < 40; ++l) v[l] = {"1", "v" + std::to_string(l), 0, l + 1, "A", "C"};
  write_plink_fileset(dir.path("d"), s, v, g.view());
  ASSERT_EQ(test::run("plink1.9 --bfile " + dir.path("d") + " --freq --out " + dir.path("d"), dir.path("p.out")), 0);
  const plink_fileset data(dir.path("d"));
  const auto p = read_frequency_file(dir.path("d") + ".frq", data);
  const auto view = g.view();
  int flipped = 0;
  for (int l = 0; l < 40; ++l) {
    int64_t a1 = 0, called = 0;
    for (int64_t i = 0; i < 60; ++i) {
      const int code = (view.row(l)[i / 4] >> (2 * (i % 4))) & 3;
      if (code == 1) continue;
      called += 2;
      a1 += code == 0 ? 2 : code == 2 ? 1 : 0;
    }
    const double want = double(a1) / double(called);
    EXPECT_NEAR(p[l], want, 1e-4) << "variant " << l;  // .frq prints 4 significant digits
    flipped += want > 0.5;
  }
  EXPECT_GT(flipped, 0) << "no variant exercised the A2-counted case";
}

TEST(FrequencyFile, Errors) {
  test::temp_dir dir;
  const plink_fileset data(fileset(dir));
  EXPECT_THROW(read_frequency_file(dir.path("absent.frq"), data), io_error);
  const std::string head = "CHR SNP A1 A2 MAF\n";
  expect_input_error(write(dir, "h.frq", "CHR SNP A1 FREQ\n1 v0 A 0.5\n"), data, ":1: expected a PLINK .frq");
  expect_input_error(write(dir, "s.frq", head + "1 v0 A C 0.5\n1 v1 G\n"), data, "s.frq:3: short line");
  expect_input_error(write(dir, "n.frq", head + "1 v0 A C abc\n"), data, "n.frq:2: frequency 'abc' is not a number");
  expect_input_error(write(dir, "j.frq", head + "1 v0 A C 0.5abc\n"), data, "j.frq:2: frequency '0.5abc' is not a number");
  expect_input_error(write(dir, "r.frq", head + "1 v0 A C 1.5\n"), data, "r.frq:2: frequency out of [0, 1]");
  // Issue #29: NaN, infinite and overflowing frequencies named with their value and column.
  for (const char* bad : {"nan", "inf", "-inf", "1e999"})
    expect_input_error(write(dir, std::string("nf") + bad + ".frq", head + "1 v0 A C " + bad + "\n"), data,
                       std::string("nf") + bad + ".frq:2: frequency '" + bad + "' is not a finite number (column 5, MAF)");
  expect_input_error(write(dir, "neg.frq", head + "1 v0 A C -0.25\n"), data,
                     "neg.frq:2: frequency out of [0, 1]: '-0.25' (column 5, MAF)");
  expect_input_error(write(dir, "m.frq", head + "1 v0 A C 0.5\n1 v1 G T 0.5\n"), data, "variant 'v2'");
  expect_input_error(write(dir, "a.frq", head + "1 v0 A C 0.5\n1 v1 G T 0.5\n2 v2 C T 0.5\n"), data,
                     "a.frq:4: alleles of 'v2' (C/T) do not match the .bim (A/G)");
}
