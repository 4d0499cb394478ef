// solve_kernel_ridge on cuda, K in host and in device memory: the same answers as on the cpu for
// fp32, adaptive with classical refinement, adaptive with GMRES-IR, and an fp64 fallback.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "panoramix/kernel_ridge.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

TEST(CudaKernelRidge, HostAndDeviceKernelsMatchCpu) {
  PMX_REQUIRE_GPU();
#ifdef PMX_HAVE_CUDA
  const int64_t n = 192, t = 3;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 100 * std::pow(1e3, -double(i) / double(n - 1));
  const std::vector<double> K = matrix_with_spectrum(lambda, 3);
  std::vector<double> Y(n * t);
  for (int64_t i = 0; i < n * t; ++i) Y[i] = std::sin(0.37 * double(i)) + 0.5;
  double* dK = nullptr;
  ASSERT_EQ(cudaMalloc(&dK, sizeof(double) * n * n), cudaSuccess);
  cudaMemcpy(dK, K.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
  struct c {
    solve_precision p;
    refinement_method r;
    double tile_accuracy;
    bool falls_back;
  };
  for (const c k : {c{solve_precision::fp32, refinement_method::classical, 1e-3, false},
                    c{solve_precision::adaptive, refinement_method::classical, 1e-3, false},
                    c{solve_precision::adaptive, refinement_method::gmres, 0.05, false},
                    c{solve_precision::adaptive, refinement_method::classical, 0.05, true}}) {
    kernel_ridge_options o;
    o.precision = k.p, o.refinement = k.r, o.tile = 32, o.tile_accuracy = k.tile_accuracy, o.accuracy = 1e-11;
    const auto cpu = solve_kernel_ridge(executor(backend::cpu, 2), n, K.data(), 0.1, t, Y.data(), o);
    for (const double* k_ptr : {K.data(), static_cast<const double*>(dK)}) {
      const auto gpu = solve_kernel_ridge(executor(backend::cuda, 2), n, k_ptr, 0.1, t, Y.data(), o);
      const std::string what = std::string(solve_precision_name(k.p)) + "/" + refinement_name(k.r) +
                               (k_ptr == dK ? " device K" : " host K");
      EXPECT_EQ(gpu.fallback.empty(), !k.falls_back) << what << ": " << gpu.fallback;
      EXPECT_EQ(cpu.fallback.empty(), !k.falls_back) << what << " (cpu): " << cpu.fallback;
      EXPECT_LE(gpu.backward_error, 1e-11) << what;
      EXPECT_EQ(gpu.map.p, cpu.map.p) << what;
      double num = 0, den = 0;
      for (int64_t i = 0; i < n * t; ++i) num += std::pow(gpu.W[i] - cpu.W[i], 2), den += cpu.W[i] * cpu.W[i];
      EXPECT_LT(std::sqrt(num / den), 1e3 * 1e-11) << what;  // both within κ·accuracy of the solution
    }
  }
  // A factor that is not positive definite as rounded: the fp64 fallback reads the device K there.
  std::vector<double> lambda2(n);
  for (int64_t i = 0; i < n; ++i) lambda2[i] = 100 * std::pow(1e4, -double(i) / double(n - 1));
  const std::vector<double> K2 = matrix_with_spectrum(lambda2, 3);
  cudaMemcpy(dK, K2.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
  kernel_ridge_options o;
  o.precision = solve_precision::adaptive, o.tile = 32, o.tile_accuracy = 0.5, o.accuracy = 1e-11;
  const auto r = solve_kernel_ridge(executor(backend::cuda, 2), n, dK, 1e-3, t, Y.data(), o);
  EXPECT_NE(r.fallback.find("factorisation failed"), std::string::npos) << r.fallback;
  EXPECT_EQ(r.used, solve_precision::fp64);
  EXPECT_LE(r.backward_error, 1e-14);
  cudaFree(dK);
#endif
}

}  // namespace
}  // namespace pmx
