// sample_sums on cuda against the reference backend: every case of sample_sums_cases.hpp, then
// device-resident sums (S, N and a kept on the device across blocks, handed over at flush()) and
// the per-block fallback when a small budget leaves no room for them, with and without C.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include "panoramix/error.hpp"
#include "sample_sums_cases.hpp"

using namespace pmx;
namespace cases = pmx::sample_sums_cases;

TEST(CudaSampleSums, EveryCaseMatchesReference) {
  PMX_REQUIRE_GPU();
  cases::every_case_matches_reference(executor(backend::cuda, 4));
}

TEST(CudaSampleSums, DeviceResidentAndFallbackMatchReference) {
  PMX_REQUIRE_GPU();
  struct budget_case {
    int64_t bytes;
    const char* residence;
  };
  for (int64_t n : {int64_t{1}, int64_t{5}, int64_t{130}, int64_t{300}}) {
    const cases::blocks b = cases::make(n, {1, 37, 2000, 700}, 2, 100);
    for (unsigned which : {cases::want_S | cases::want_N | cases::want_a, unsigned{cases::want_all}}) {
      const cases::outputs want = cases::run(executor::reference(), b, which, -1);
      for (budget_case bc : {budget_case{0, "device"}, budget_case{int64_t{2560} << 10, "device"},
                             budget_case{int64_t{1} << 20, "host"}}) {
        if (n < 300 && bc.bytes) continue;  // the budget cases are sized for n = 300
        // With C the resident sums get half of the budget: 2.5 MiB then leaves them no room.
        const char* expected = (which & cases::want_C) && bc.bytes == (int64_t{2560} << 10) ? "host" : bc.residence;
        executor gpu(backend::cuda, 4);
        if (bc.bytes) gpu.set_device_memory_budget(bc.bytes);
        std::string residence;
        const cases::outputs got = cases::run(gpu, b, which, 1, &residence);
        const std::string what = cases::describe(b, which) + ", budget " + std::to_string(bc.bytes);
        EXPECT_EQ(residence, expected) << what;
        cases::expect_sums(want, got, b, which, what);
        if (HasFatalFailure()) return;
      }
    }
  }
}
