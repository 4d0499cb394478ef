// sample_sums on cuda against the reference backend: every case of sample_sums_cases.hpp, then
// device-resident sums (S, N and a kept on the device across blocks, handed over at flush()) and
// the per-block fallback when a small budget leaves no room for them, with and without C; the
// Gaussian kernel finished on the device.
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

// Garbage outputs zeroed by the op: on a background host thread while the device multiplies
// (resident sums), and before the first per-block add when a small budget leaves them on the host.
TEST(CudaSampleSums, UninitialisedOutputsAreZeroedFirst) {
  PMX_REQUIRE_GPU();
  cases::uninitialised_outputs_are_zeroed_first(executor(backend::cuda, 4));
  if (HasFatalFailure()) return;
  executor small(backend::cuda, 4);
  small.set_device_memory_budget(int64_t{1} << 20);
  cases::uninitialised_outputs_are_zeroed_first(small);
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

// The kernel made on the device from the resident S (nothing n × n on the host), and from host
// sums into device memory (a budget too small for resident sums), against the definition.
TEST(CudaSampleSums, GaussianKernelOnTheDeviceMatchesDefinition) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);
  cases::gaussian_kernel_matches_definition(gpu, gpu, true);   // resident S, device K
  cases::gaussian_kernel_matches_definition(gpu, gpu, false);  // resident S (host S given), device K
  // A budget that leaves S on the host (1 MiB for n = 300, as in DeviceResidentAndFallback...):
  // the kernel made on the host and copied into device K equals the one made on the device.
  const int64_t n = 300;
  const packed_genotypes g = test::random_genotypes(n, 300, 0.0, 11);
  executor small(backend::cuda, 4);
  small.set_device_memory_budget(int64_t{1} << 20);
  std::vector<double> got[2];
  for (int route = 0; route < 2; ++route) {
    std::vector<int32_t> S(static_cast<size_t>(n * n), 0);
    executor_array<double> K(gpu, static_cast<size_t>(n * n));
    sample_sums s(route ? small : gpu, n, {.S = S.data(), .ld = n});
    EXPECT_STREQ(s.residence(), route ? "host" : "device");
    s.add(g.view(), {}, {}, false);
    s.finish_gaussian_kernel(0.003, nullptr, 0, K.data(), n);
    got[route].resize(K.size());
    K.copy_to_host(got[route].data(), 0, K.size());
  }
  for (size_t i = 0; i < got[0].size(); ++i) ASSERT_NEAR(got[1][i], got[0][i], 1e-15 * got[0][i]) << i;
  small.set_device_memory_budget(int64_t{16} << 10);
  try {  // resident S asked for where it cannot fit: named
    sample_sums s(small, 300, {.ld = 300, .S_on_device_only = true});
    FAIL() << "no error";
  } catch (const unsupported_error& e) {
    EXPECT_NE(std::string(e.what()).find("do not fit"), std::string::npos) << e.what();
  }
}
