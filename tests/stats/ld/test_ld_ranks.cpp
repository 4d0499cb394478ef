// `mpirun -np N panoramix ld --r2 square` (and --r square) against the one-process run on the same
// data: each rank computes its share of the square's chunk pairs (and their transposes) and writes
// them at their place in the one .ld.bin, which must be the same bytes (every value comes from
// exact integer sums and the same double operations, whatever the split). Data with missing calls
// and a variant count no rank count divides; a launch with more chunks than variants (ranks with
// few or no blocks). The blocks themselves: every entry of the square once over the ranks. The
// pair table likewise: each rank lists the pairs of its share of the first variants and the lines
// land in order in the one .ld — the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "panoramix/ld.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

using test::mpirun_panoramix;
using test::panoramix;
using test::read_text;
using test::run;
using test::shq;
using test::work;

TEST(LdRanks, BlocksCoverTheSquareOnceAndBalance) {
  for (const int64_t m : {0, 1, 3, 17, 100, 1001})
    for (int P = 1; P <= 6; ++P) {
      std::vector<int> seen(static_cast<size_t>(m * m), 0);
      int64_t least = m * m, most = 0;
      for (int r = 0; r < P; ++r) {
        int64_t work = 0;
        std::vector<char> reads(static_cast<size_t>(m), 0);
        for (const ld_square_block& b : ld_square_blocks_of_rank(m, r, P)) {
          ASSERT_TRUE(b.r0 < b.r1 && b.c0 < b.c1 && b.r1 <= m && b.c1 <= m);
          work += (b.r1 - b.r0) * (b.c1 - b.c0);
          for (int64_t i = b.r0; i < b.r1; ++i) {
            reads[i] = 1;
            for (int64_t j = b.c0; j < b.c1; ++j) {
              reads[j] = 1;
              ++seen[i * m + j];
              if (b.r0 != b.c0) ++seen[j * m + i];  // written transposed too
            }
          }
        }
        least = std::min(least, work), most = std::max(most, work);
        // Beyond 2 ranks no rank reads every variant (1/P + 1/2 of the chunks, about).
        if (P >= 3 && m >= 100) {
          EXPECT_LT(std::count(reads.begin(), reads.end(), 1), m) << m << " " << P << " " << r;
        }
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), m * m) << m << " variants, " << P << " ranks";
      if (m >= 1001) {
        EXPECT_LE(double(most), 1.15 * double(least)) << P << " ranks";
      }
    }
}

TEST(LdRanks, SquareSplitOverRanksIsTheSameBytes) {
  if (std::string(PMX_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI (Debian: libopenmpi-dev)";
  const std::string d = work().path("ld_ranks");
  std::filesystem::create_directories(d);
  const std::string sim = d + "/sim", tiny = d + "/tiny";
  ASSERT_EQ(panoramix("simulate --samples 203 --variants 1501 --missing 0.03 --seed 9 --out " + shq(sim)), 0);
  ASSERT_EQ(panoramix("simulate --samples 50 --variants 3 --missing 0.1 --seed 10 --out " + shq(tiny)), 0);
  struct job {
    std::string data, stat;
    int np;
  };
  for (const job& j : {job{sim, "--r2", 2}, job{sim, "--r2", 3}, job{sim, "--r", 4}, job{tiny, "--r2", 4}}) {
    const std::string tag = std::filesystem::path(j.data).filename().string() + j.stat.substr(2) + "_np" + std::to_string(j.np);
    const std::string one = d + "/one_" + tag, split = d + "/split_" + tag;
    ASSERT_EQ(panoramix("ld --bfile " + shq(j.data) + " " + j.stat + " square --threads 1 --out " + shq(one)), 0);
    ASSERT_EQ(run(mpirun_panoramix(j.np) + " ld --bfile " + shq(j.data) + " " + j.stat + " square --out " + shq(split), split + ".stdout"), 0)
        << read_text(split + ".stdout");
    const std::string a = read_text(one + ".ld.bin"), b = read_text(split + ".ld.bin");
    EXPECT_FALSE(a.empty()) << tag;
    EXPECT_TRUE(a == b) << tag << ": " << a.size() << " and " << b.size() << " bytes";
    const std::string log = read_text(split + ".log");
    EXPECT_NE(log.find("blocks split over " + std::to_string(j.np) + " ranks"), std::string::npos) << log;
    for (const auto& f : std::filesystem::directory_iterator(d))  // no temporary left behind
      EXPECT_EQ(f.path().string().find(".tmp."), std::string::npos) << f.path();
  }
  // The pair table: each rank lists its rows' pairs, rank 0's temporary gets them in order. The
  // default window, a wide one with frequencies, and --inter-chr with --memory 1 (rows whose
  // windows exceed a chunk stream their partners).
  for (const std::string& args : {std::string("--r2"),
                                  std::string("--r2 with-freqs --ld-window 99999 --ld-window-kb 1000 --ld-window-r2 0"),
                                  std::string("--r inter-chr --ld-window-r2 0.05 --memory 1")})
    for (int np : {2, 3}) {
      const std::string one = d + "/table_one", split = d + "/table_np" + std::to_string(np);
      ASSERT_EQ(panoramix("ld --bfile " + shq(sim) + " " + args + " --threads 1 --out " + shq(one)), 0) << args;
      ASSERT_EQ(run(mpirun_panoramix(np) + " ld --bfile " + shq(sim) + " " + args + " --out " + shq(split), split + ".stdout"), 0)
          << read_text(split + ".stdout");
      const std::string a = read_text(one + ".ld"), b = read_text(split + ".ld");
      EXPECT_GT(std::count(a.begin(), a.end(), '\n'), 100) << args;
      EXPECT_TRUE(a == b) << args << ", " << np << " ranks: " << a.size() << " and " << b.size() << " bytes";
      EXPECT_NE(read_text(split + ".log").find("rows split over " + std::to_string(np) + " ranks"), std::string::npos);
    }
  for (const auto& f : std::filesystem::directory_iterator(d))  // no temporary or part left behind
    EXPECT_EQ(f.path().string().find(".tmp."), std::string::npos) << f.path();
}

}  // namespace
}  // namespace pmx
