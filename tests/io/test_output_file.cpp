// output_file::write_rows: lines formatted in batches on threads are written in row order — the
// same bytes as one fprintf after the other (the oracle, written by this test), for row counts
// around the batch size and any thread count; a formatter that throws fails the write loudly and
// the file is never committed.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/output_file.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double value_of(int64_t r) { return static_cast<double>(r) * 1.2345678901234567 - 1e6 / (r + 1.0); }

TEST(OutputFile, WriteRowsEqualsRowByRowPrintf) {
  test::temp_dir dir;
  for (int64_t rows : {int64_t{0}, int64_t{1}, int64_t{16383}, int64_t{16384}, int64_t{100001}}) {
    const std::string want_path = dir.path("want.txt");
    {
      FILE* f = std::fopen(want_path.c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fprintf(f, "header\n");
      for (int64_t r = 0; r < rows; ++r) std::fprintf(f, "id%lld\t%.10g\n", static_cast<long long>(r), value_of(r));
      std::fclose(f);
    }
    for (int threads : {1, 3, 8}) {
      const std::string path = dir.path("got_" + std::to_string(rows) + "_" + std::to_string(threads) + ".txt");
      output_file out(path);
      out.write("header\n");
      out.write_rows(rows, threads, [](int64_t r, std::string& text) {
        char b[64];
        text.append(b, static_cast<size_t>(std::snprintf(b, sizeof b, "id%lld\t%.10g\n", static_cast<long long>(r), value_of(r))));
      });
      out.commit();
      EXPECT_EQ(slurp(path), slurp(want_path)) << rows << " rows on " << threads << " threads";
    }
  }
}

TEST(OutputFile, WriteRowsFormatterThatThrowsLeavesNoFile) {
  test::temp_dir dir;
  const std::string path = dir.path("bad.txt");
  {
    output_file out(path);
    EXPECT_THROW(out.write_rows(50000, 2,
                                [](int64_t r, std::string& text) {
                                  if (r == 40000) throw input_error("row 40000");
                                  text += "x\n";
                                }),
                 logic_error);
  }  // destroyed without commit(): the temporary goes too
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

}  // namespace
}  // namespace pmx
