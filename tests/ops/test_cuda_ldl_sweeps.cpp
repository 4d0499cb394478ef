// ldl_sweeps on cuda against the reference backend on every case of ldl_sweeps_cases.hpp, with W
// in host memory and in device memory; the same bits on a second solve.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include "ldl_sweeps_cases.hpp"
#include "panoramix/executor_array.hpp"
#include "test_support.hpp"

using namespace pmx;
namespace cases = pmx::ldl_sweeps_cases;

TEST(CudaLdlSweeps, HostVectorsMatchReference) {
  PMX_REQUIRE_GPU();
  cases::matches_reference(executor(backend::cuda, 2), false, [](const ldl_sweeps& s, int64_t t, std::vector<double>& W) {
    std::vector<double> again = W;
    ldl_solve_permuted(s, t, W.data());
    ldl_solve_permuted(s, t, again.data());
    EXPECT_EQ(W, again) << "the same bits on a second solve";
  });
}

TEST(CudaLdlSweeps, DeviceVectorsMatchReference) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
  cases::matches_reference(gpu, false, [&](const ldl_sweeps& s, int64_t t, std::vector<double>& W) {
    executor_array<double> d(gpu, W.size());
    d.copy_from_host(W.data(), 0, W.size());
    ldl_solve_permuted(s, t, d.data());
    d.copy_to_host(W.data(), 0, W.size());
  });
}
