// `mpirun -np N panoramix grm` against the one-process run on the same data: the variants split
// over the ranks, the sums added over them to the owners of their rows, each owner finishing its
// whole rows and writing them at their place in the files (the text format's after the ranks before
// it have counted theirs). Integer outputs (GCTA's pair counts) must be the same
// bytes; the matrices equal within 1e-12 relative (the doubles are added in another order) and
// exactly symmetric, the text triangle the same numbers; the log says how many ranks ran. Data: simulated with missing calls (so the standardised N and
// VanRaden's missing-call corrections take part) and a variant count no rank count divides.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace pmx {
namespace {

using test::mpirun_panoramix;
using test::panoramix;
using test::read_doubles;
using test::read_text;
using test::run;
using test::shq;
using test::work;

double largest_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0, scale = 0;
  for (double x : b) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) / scale);
  return worst;
}

std::vector<double> read_text_numbers(const std::string& path) {
  std::istringstream in(read_text(path));
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return v;
}

TEST(GrmRanks, SplitOverRanksEqualsOneProcess) {
  if (std::string(PMX_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI (Debian: libopenmpi-dev)";
  const std::string d = work().path("grm_ranks");
  std::filesystem::create_directories(d);
  const std::string sim = d + "/sim";
  ASSERT_EQ(panoramix("simulate --samples 301 --variants 2003 --missing 0.03 --seed 41 --out " + shq(sim)), 0);
  for (const std::string method : {"standardized", "vanraden"}) {
    const std::string one = d + "/one_" + method;
    ASSERT_EQ(panoramix("grm --bfile " + shq(sim) + " --method " + method + " --format gcta --threads 1 --out " + shq(one)), 0);
    ASSERT_EQ(panoramix("grm --bfile " + shq(sim) + " --method " + method + " --threads 1 --out " + shq(one)), 0);
    for (int np : {2, 3}) {
      const std::string split = d + "/np" + std::to_string(np) + "_" + method;
      const std::string args = " grm --bfile " + shq(sim) + " --method " + method + " --device cpu --out ";
      ASSERT_EQ(run(mpirun_panoramix(np) + args + shq(split) + " --format gcta", split + ".stdout"), 0) << read_text(split + ".stdout");
      EXPECT_EQ(read_text(split + ".grm.N.bin"), read_text(one + ".grm.N.bin")) << method << " np " << np;
      EXPECT_EQ(read_text(split + ".grm.id"), read_text(one + ".grm.id"));
      ASSERT_EQ(run(mpirun_panoramix(np) + args + shq(split), split + ".stdout"), 0) << read_text(split + ".stdout");
      const std::vector<double> a = read_doubles(split + ".rel.bin"), b = read_doubles(one + ".rel.bin");
      ASSERT_EQ(a.size(), 301u * 301u);
      ASSERT_EQ(b.size(), a.size());
      EXPECT_LE(largest_relative_difference(a, b), 1e-12) << method << " np " << np;
      int64_t asymmetric = 0;  // each rank finishes whole rows: both halves must still agree bit for bit
      for (int64_t i = 0; i < 301; ++i)
        for (int64_t j = 0; j < i; ++j) asymmetric += std::memcmp(&a[i * 301 + j], &a[j * 301 + i], 8) != 0;
      EXPECT_EQ(asymmetric, 0) << method << " np " << np;
      // PLINK's text triangle: the same lines, values within the 6 digits printed.
      ASSERT_EQ(run(mpirun_panoramix(np) + args + shq(split) + " --format rel", split + ".stdout"), 0) << read_text(split + ".stdout");
      if (np == 2) {
        ASSERT_EQ(panoramix("grm --bfile " + shq(sim) + " --method " + method + " --format rel --threads 1 --out " + shq(one)), 0);
      }
      const std::vector<double> ta = read_text_numbers(split + ".rel"), tb = read_text_numbers(one + ".rel");
      ASSERT_EQ(ta.size(), 301u * 302u / 2);
      ASSERT_EQ(tb.size(), ta.size());
      for (size_t k = 0; k < ta.size(); ++k) ASSERT_NEAR(ta[k], tb[k], 1e-5 * std::max(1.0, std::fabs(tb[k]))) << k;
      EXPECT_EQ(read_text(split + ".rel.id"), read_text(one + ".rel.id"));
      EXPECT_NE(read_text(split + ".log").find("Ranks: " + std::to_string(np) + " processes"), std::string::npos);
    }
  }
}

TEST(GrmRanks, ARankWithoutRowsStillAddsItsVariants) {
  if (std::string(PMX_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI (Debian: libopenmpi-dev)";
  // 5 samples over 4 ranks: blocks of 2 rows, so rank 3 owns none but multiplies a quarter of the
  // variants, which the others' rows must include.
  const std::string d = work().path("grm_ranks_empty");
  std::filesystem::create_directories(d);
  const std::string sim = d + "/sim";
  ASSERT_EQ(panoramix("simulate --samples 5 --variants 203 --missing 0.05 --seed 7 --out " + shq(sim)), 0);
  for (const std::string method : {"standardized", "vanraden"}) {
    const std::string one = d + "/one_" + method, split = d + "/np4_" + method;
    const std::string args = " grm --bfile " + shq(sim) + " --method " + method + " --format gcta --device cpu --out ";
    ASSERT_EQ(panoramix(args.substr(1) + shq(one)), 0);
    ASSERT_EQ(run(mpirun_panoramix(4) + args + shq(split), split + ".stdout"), 0) << read_text(split + ".stdout");
    EXPECT_EQ(read_text(split + ".grm.N.bin"), read_text(one + ".grm.N.bin")) << method;
    const std::string a = read_text(split + ".grm.bin"), b = read_text(one + ".grm.bin");
    ASSERT_EQ(a.size(), 15u * sizeof(float));
    ASSERT_EQ(b.size(), a.size());
    for (size_t k = 0; k < 15; ++k) {
      float x, y;
      std::memcpy(&x, a.data() + 4 * k, 4);
      std::memcpy(&y, b.data() + 4 * k, 4);
      EXPECT_NEAR(x, y, 1e-6 * std::max(1.0f, std::fabs(y))) << method << " entry " << k;
    }
  }
}

TEST(GrmRanks, AnErrorOnTheRanksEndsTheRunNonZero) {
  if (std::string(PMX_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI (Debian: libopenmpi-dev)";
  const std::string out = work().path("grm_ranks_missing");
  EXPECT_NE(run(mpirun_panoramix(2) + " grm --bfile " + shq(out + "_absent") + " --device cpu --out " + shq(out), out + ".stdout"), 0);
  EXPECT_NE(read_text(out + ".stdout").find("Error"), std::string::npos);
}

}  // namespace
}  // namespace pmx
