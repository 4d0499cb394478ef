// `mpirun -np 2 panoramix grm --device cuda` (one GPU per rank: the sums stay on the devices,
// are mirrored there and added to the rows' owners through NCCL) against one process on the cpu
// backend: GCTA's pair counts the same bytes, the matrices within 1e-12 relative and exactly
// symmetric. Data with missing calls (N on the device; the standardised C of the blocks with
// missing calls through the host) and a block without any (C on the int8 route).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace pmx {
namespace {

using test::panoramix;
using test::read_doubles;
using test::read_text;
using test::run;
using test::shq;
using test::work;

TEST(CudaGrmRanks, TwoGpusEqualOneCpuProcess) {
  PMX_REQUIRE_GPU();
  if (std::string(PMX_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI (Debian: libopenmpi-dev)";
  if (cuda_device_count() < 2) GTEST_SKIP() << "one GPU per rank: this machine has " << cuda_device_count();
  const std::string d = work().path("cuda_grm_ranks");
  std::filesystem::create_directories(d);
  const std::string sim = d + "/sim", clean = d + "/clean";
  ASSERT_EQ(panoramix("simulate --samples 1203 --variants 3001 --missing 0.02 --seed 43 --out " + shq(sim)), 0);
  ASSERT_EQ(panoramix("simulate --samples 1203 --variants 2001 --seed 44 --out " + shq(clean)), 0);
  const std::string mpirun = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") + PMX_MPIEXEC +
                             " -n 2 --bind-to none " + PMX_BINARY;
  for (const std::string& data : {sim, clean})
    for (const std::string method : {"standardized", "vanraden"}) {
      const std::string one = data + "_one_" + method, two = data + "_two_" + method;
      const std::string args = " --bfile " + shq(data) + " --method " + method;
      ASSERT_EQ(panoramix("grm" + args + " --device cpu --format gcta --out " + shq(one)), 0);
      ASSERT_EQ(panoramix("grm" + args + " --device cpu --out " + shq(one)), 0);
      ASSERT_EQ(run(mpirun + " grm" + args + " --device cuda --format gcta --out " + shq(two), two + ".stdout"), 0)
          << read_text(two + ".stdout");
      EXPECT_EQ(read_text(two + ".grm.N.bin"), read_text(one + ".grm.N.bin")) << data << " " << method;
      ASSERT_EQ(run(mpirun + " grm" + args + " --device cuda --out " + shq(two), two + ".stdout"), 0)
          << read_text(two + ".stdout");
      const std::vector<double> a = read_doubles(two + ".rel.bin"), b = read_doubles(one + ".rel.bin");
      ASSERT_EQ(a.size(), b.size());
      double scale = 0, worst = 0;
      int64_t asymmetric = 0;
      for (double x : b) scale = std::max(scale, std::fabs(x));
      for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) / scale);
      for (int64_t i = 0; i < 1203; ++i)
        for (int64_t j = 0; j < i; ++j) asymmetric += std::memcmp(&a[i * 1203 + j], &a[j * 1203 + i], 8) != 0;
      EXPECT_LE(worst, 1e-12) << data << " " << method;
      EXPECT_EQ(asymmetric, 0) << data << " " << method;
      const std::string log = read_text(two + ".log");
      EXPECT_NE(log.find("Ranks: 2 processes"), std::string::npos) << log;
      EXPECT_NE(log.find("accumulated on the device"), std::string::npos) << log;
    }
}

}  // namespace
}  // namespace pmx
