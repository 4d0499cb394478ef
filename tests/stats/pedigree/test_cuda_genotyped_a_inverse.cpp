// A_gg⁻¹ with its LDLᵀ sweeps on the GPU (use_device) against the same operator on the CPU's
// threads and against cholmod_solve2 on the same factor, on the livestock-like pedigree of
// a_inverse_cases.hpp; t = 1, 3 and 6; a second apply gives the same bits.
// Skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "a_inverse_cases.hpp"
#include "panoramix/genotyped_a_inverse.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

TEST(CudaGenotypedAInverse, DeviceSweepsMatchCpuSweepsAndCholmod) {
  PMX_REQUIRE_GPU();
  const test::typed_pedigree tp = test::livestock_pedigree(5000, 12, 12);
  const auto Ainv = a_inverse(tp.ped);
  genotyped_a_inverse cpu(Ainv, tp.genotyped, 2), gpu(Ainv, tp.genotyped, 2);
  const std::string note = gpu.use_device(executor(backend::cuda, 2));
  ASSERT_NE(note.find("on the GPU"), std::string::npos) << note;
  ASSERT_EQ(gpu.solve_levels(), cpu.solve_levels());
  const auto k = static_cast<int64_t>(tp.genotyped.size());
  for (int64_t t : {1, 3, 6}) {
    const auto X = test::random_block(k, t, 40 + t);
    std::vector<double> Yc(k * t), Yg(k * t), Yg2(k * t), Ych(k * t);
    cpu.apply(t, X.data(), Yc.data());
    gpu.apply(t, X.data(), Yg.data());
    gpu.apply(t, X.data(), Yg2.data());
    cpu.use_cholmod_solve(true);
    cpu.apply(t, X.data(), Ych.data());
    cpu.use_cholmod_solve(false);
    EXPECT_EQ(Yg, Yg2) << "t = " << t << ": the same bits on a second apply";
    EXPECT_LE(test::relative_error(Yg, Yc), 1e-13) << "t = " << t << ": GPU vs CPU sweeps";
    EXPECT_LE(test::relative_error(Yg, Ych), 1e-13) << "t = " << t << ": GPU sweeps vs cholmod_solve2";
    int64_t same = 0;
    for (size_t i = 0; i < Yg.size(); ++i) same += Yg[i] == Yc[i];
    std::printf("    t = %lld: %lld of %zu entries bit-identical to the CPU sweeps, %s\n", static_cast<long long>(t),
                static_cast<long long>(same), Yg.size(), note.c_str());
  }
}

}  // namespace
}  // namespace pmx
