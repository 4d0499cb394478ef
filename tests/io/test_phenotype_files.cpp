// read_phenotype_table (PLINK --pheno/--covar files), the numbers of each field (issue #29): PLINK's
// missing codes read as NaN; any other text must be a finite number, so "inf", "-inf" and values
// that overflow a double (1e999) are refused with file:line, the column and the value. The oracle
// is the file's own text.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/phenotypes.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string p = test::work().path(name);
  std::ofstream(p) << text;
  return p;
}

std::string refusal(const std::string& path) {
  try {
    read_phenotype_table(path, "--pheno");
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PhenotypeFiles, MissingCodesAndFiniteNumbers) {
  const auto path = write("ok.txt", "FID IID a b\nf1 i1 -9 1e-400\nf2 i2 NA -1.5e300\nf3 i3 nan +2\nf4 i4 NaN .\n"
                                    "f5 i5 na 3\nf6 i6 NAN -9.0\n");
  const phenotype_table t = read_phenotype_table(path, "--pheno");
  ASSERT_EQ(t.rows(), 6);
  for (int r = 0; r < 6; ++r) EXPECT_TRUE(std::isnan(t.values[0][r])) << r;
  EXPECT_EQ(t.values[1][0], 0.0);  // underflow reads as 0, as strtod gives it
  EXPECT_EQ(t.values[1][1], -1.5e300);
  EXPECT_EQ(t.values[1][2], 2.0);
  EXPECT_TRUE(std::isnan(t.values[1][3]));
  EXPECT_EQ(t.values[1][4], 3.0);
  EXPECT_TRUE(std::isnan(t.values[1][5]));
}

TEST(PhenotypeFiles, InfiniteAndOverflowingValuesAreRefused) {
  for (const char* bad : {"inf", "-inf", "+inf", "Infinity", "1e999", "-1e999", "-nan"}) {
    const auto path = write(std::string("bad_") + bad + ".txt", std::string("FID IID a b\nf1 i1 1 2\nf2 i2 3 ") + bad + "\n");
    EXPECT_EQ(refusal(path), path + ":3: column 4 ('b'): value '" + bad +
                                 "' is not a finite number (infinite or beyond +-1.8e308; missing values are -9, NA "
                                 "or nan)");
  }
  const auto text = write("text.txt", "f1 i1 1x\n");
  EXPECT_EQ(refusal(text), text + ":1: column 3 ('1'): value '1x' is not a number (missing values are -9, NA or nan)");
}

}  // namespace
}  // namespace pmx
