// lmm_search on cuda (a thread block per variant) against the dense oracles of
// lmm_search_cases.hpp and the cpu backend, with the variants in host memory and in device memory
// (where the rotation leaves them); the 16-column case runs the host fall-back. Every test skips,
// saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include "lmm_search_cases.hpp"
#include "panoramix/executor_array.hpp"
#include "test_support.hpp"

using namespace pmx;

TEST(CudaLmmSearch, EveryCaseMatchesDenseOracleAndCpu) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
  for (const auto& p : lmm_search_cases::every_case()) {
    const auto cpu = lmm_search_cases::expect_fits(executor(backend::cpu, 2), p, p.Xt.data());
    executor_array<double> on_device(gpu, p.Xt.size());
    on_device.copy_from_host(p.Xt.data(), 0, p.Xt.size());
    for (const double* x : {p.Xt.data(), static_cast<const double*>(on_device.data())}) {
      const auto fits = lmm_search_cases::expect_fits(gpu, p, x);
      for (size_t j = 0; j < cpu.size(); ++j) {
        const std::string at = lmm_search_cases::where(p, static_cast<int64_t>(j));
        ASSERT_EQ(static_cast<int>(fits[j].status), static_cast<int>(cpu[j].status)) << at;
        if (cpu[j].status != lmm_fit_status::tested) continue;
        // Sums in another order: the searches agree to far below GEMMA's 1e-5 stop.
        EXPECT_NEAR(fits[j].lambda, cpu[j].lambda, 1e-9 * cpu[j].lambda) << at;
        EXPECT_NEAR(fits[j].beta, cpu[j].beta, 1e-10 * (std::fabs(cpu[j].beta) + cpu[j].se)) << at;
        EXPECT_NEAR(fits[j].se, cpu[j].se, 1e-10 * cpu[j].se) << at;
        EXPECT_NEAR(fits[j].logl, cpu[j].logl, 1e-11 * std::fabs(cpu[j].logl)) << at;
      }
    }
  }
}
