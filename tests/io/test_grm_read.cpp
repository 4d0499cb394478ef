// read_gcta_grm: a NaN or infinite entry of PREFIX.grm.bin is refused where it is read, naming the
// file, the entry (row, column, 1-based) and its samples (issue #29: a NaN GRM used to make
// gblup's eigensolver run forever); finite values are read exactly as the floats they are.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/grm_files.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// n samples "F<i> I<i>", lower triangle row by row: entry (i, j) = i + j / 8 (exact in float).
std::string write_grm(const std::string& name, int64_t n, int64_t bad_i, int64_t bad_j, float bad) {
  const std::string prefix = test::work().path(name);
  std::ofstream id(prefix + ".grm.id"), bin(prefix + ".grm.bin", std::ios::binary);
  for (int64_t i = 0; i < n; ++i) {
    id << "F" << i << " I" << i << "\n";
    for (int64_t j = 0; j <= i; ++j) {
      const float v = i == bad_i && j == bad_j ? bad : static_cast<float>(i) + static_cast<float>(j) / 8;
      bin.write(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
  return prefix;
}

TEST(GrmRead, FiniteEntriesReadExactly) {
  const std::string prefix = write_grm("ok", 4, -1, -1, 0);
  const grm_file g = read_gcta_grm(prefix);
  ASSERT_EQ(g.n, 4);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      EXPECT_EQ(g.G[i * 4 + j], static_cast<double>(i) + static_cast<double>(j) / 8);
      EXPECT_EQ(g.G[j * 4 + i], g.G[i * 4 + j]);
    }
}

TEST(GrmRead, NonFiniteEntriesAreNamed) {
  const float inf = std::numeric_limits<float>::infinity();
  for (const auto& [v, text] : std::vector<std::pair<float, std::string>>{
           {std::numeric_limits<float>::quiet_NaN(), "nan"}, {inf, "inf"}, {-inf, "-inf"}}) {
    const std::string prefix = write_grm("bad_" + text, 5, 3, 1, v);
    try {
      read_gcta_grm(prefix);
      ADD_FAILURE() << "accepted " << text;
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()), "--grm file '" + prefix + ".grm.bin': entry (row 4, column 2) is " + text +
                                           " (samples 'F3 I3' and 'F1 I1'): a GRM must hold finite numbers");
    }
  }
}

}  // namespace
}  // namespace pmx
