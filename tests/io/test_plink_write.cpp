// write_plink_fileset's .bed: rows written from where they are when they already have the file's
// layout, copied with the padding calls zeroed when they do not (a stride wider than a row, or
// padding calls that are not 00); the calls are the same either way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "panoramix/plink_write.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {
namespace {

std::vector<sample_record> samples(int n) {
  std::vector<sample_record> s;
  for (int i = 0; i < n; ++i) s.push_back({"f", "s" + std::to_string(i), "0", "0", 0, "-9"});
  return s;
}

std::vector<variant_record> variants(int m) {
  std::vector<variant_record> v;
  for (int j = 0; j < m; ++j) v.push_back({"1", "v" + std::to_string(j), 0, 10 + j, "A", "C"});
  return v;
}

TEST(PlinkWrite, BedRowsWithAndWithoutTheFilesLayout) {
  const int n = 7, m = 5, row = 2;  // 7 samples: the last byte of a row holds one padding call
  std::vector<uint8_t> clean(size_t(m * row));
  for (int j = 0; j < m; ++j) clean[size_t(j * row)] = uint8_t(0x1b + j), clean[size_t(j * row + 1)] = uint8_t(0x26 ^ j);
  const std::string expected = std::string("\x6c\x1b\x01", 3) + std::string(clean.begin(), clean.end());
  const std::string p = work().path("as_is");
  write_plink_fileset(p, samples(n), variants(m), {clean.data(), n, m, row});
  EXPECT_EQ(file_bytes(p + ".bed"), expected);

  std::vector<uint8_t> dirty = clean;  // padding calls set: the file still gets 00
  for (int j = 0; j < m; ++j) dirty[size_t(j * row + 1)] |= 0xc0;
  write_plink_fileset(p, samples(n), variants(m), {dirty.data(), n, m, row});
  EXPECT_EQ(file_bytes(p + ".bed"), expected);

  std::vector<uint8_t> strided(size_t(m * 3), 0xff);  // rows 3 bytes apart
  for (int j = 0; j < m; ++j) strided[size_t(j * 3)] = clean[size_t(j * row)], strided[size_t(j * 3 + 1)] = clean[size_t(j * row + 1)];
  write_plink_fileset(p, samples(n), variants(m), {strided.data(), n, m, 3});
  EXPECT_EQ(file_bytes(p + ".bed"), expected);
}

}  // namespace
}  // namespace pmx::test
