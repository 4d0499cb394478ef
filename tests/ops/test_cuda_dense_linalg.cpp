// dense_linalg on cuda (cuSOLVER; orthonormalize and dense_gemm on the host by contract) against
// the oracles of dense_linalg_cases.hpp and the reference backend, then larger matrices with
// host and device operands.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "dense_linalg_cases.hpp"

namespace pmx {
namespace {

namespace cases = dense_linalg_cases;
const executor ref = executor::reference();

std::vector<double> spd(int64_t n, uint64_t seed) {
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 20.0 * std::pow(0.9, static_cast<double>(i)) + 0.1;
  return test::matrix_with_spectrum(lambda, seed);
}

TEST(CudaDenseLinalg, ShiftedCholeskyOfADeviceMatrixLeavesItUnchanged) {
  PMX_REQUIRE_GPU();
#ifdef PMX_HAVE_CUDA
  const executor gpu(backend::cuda, 2);
  const int64_t n = 257, m = 2;
  const auto A = spd(n, 9);
  std::vector<double> B(n * m), Bh;
  for (size_t k = 0; k < B.size(); ++k) B[k] = std::sin(double(k));
  Bh = B;
  double* dA = nullptr;
  ASSERT_EQ(cudaMalloc(&dA, sizeof(double) * n * n), cudaSuccess);
  cudaMemcpy(dA, A.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
  const double d = shifted_cholesky_solve(gpu, n, dA, n, 0.7, m, B.data(), n);
  const double dh = shifted_cholesky_solve(executor(backend::cpu, 2), n, A.data(), n, 0.7, m, Bh.data(), n);
  // Residual and norm of the device matrix equal the host ones.
  std::vector<double> Rd(n * m), Rh(n * m);
  shifted_residual(gpu, n, dA, n, 0.7, m, B.data(), Bh.data(), Rd.data());
  shifted_residual(executor(backend::cpu, 2), n, A.data(), n, 0.7, m, B.data(), Bh.data(), Rh.data());
  for (int64_t i = 0; i < n * m; ++i) EXPECT_NEAR(Rd[i], Rh[i], 1e-12 * (std::fabs(Rh[i]) + 1)) << "residual " << i;
  const double nd = shifted_norm_inf(gpu, n, dA, n, 0.7), nh = shifted_norm_inf(executor(backend::cpu, 2), n, A.data(), n, 0.7);
  EXPECT_NEAR(nd, nh, 1e-13 * nh);
  std::vector<double> back(n * n);
  cudaMemcpy(back.data(), dA, sizeof(double) * n * n, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  EXPECT_EQ(back, A) << "the device matrix changed";
  EXPECT_NEAR(d, dh, 1e-11 * std::fabs(dh));
  for (int64_t i = 0; i < n * m; ++i) EXPECT_NEAR(B[i], Bh[i], 1e-10 * (std::fabs(Bh[i]) + 1)) << i;
#endif
}

TEST(CudaDenseLinalg, EveryCaseMatchesOraclesAndReference) {
  PMX_REQUIRE_GPU();
  cases::every_case(executor(backend::cuda, 2));
}

TEST(CudaDenseLinalg, CholeskySolveHostAndDeviceOperandsMatchReference) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
  const int64_t n = 300, m = 4;
  const auto A0 = spd(n, 5);
  std::vector<double> rhs(n * m);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : rhs) x = u(rng);
  auto A1 = A0, A2 = A0, X1 = rhs, X2 = rhs;
  const double d1 = cholesky_solve(ref, n, A1.data(), n, m, X1.data(), n);
  const double d2 = cholesky_solve(gpu, n, A2.data(), n, m, X2.data(), n);
  EXPECT_NEAR(d2, d1, 1e-11 * std::fabs(d1));
  for (int64_t i = 0; i < n * m; ++i) EXPECT_NEAR(X2[i], X1[i], 1e-10 * (std::fabs(X1[i]) + 1)) << i;
#ifdef PMX_HAVE_CUDA
  double *dA = nullptr, *dX = nullptr;
  ASSERT_EQ(cudaMalloc(&dA, sizeof(double) * n * n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dX, sizeof(double) * n * m), cudaSuccess);
  cudaMemcpy(dA, A0.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dX, rhs.data(), sizeof(double) * n * m, cudaMemcpyHostToDevice);
  const double d3 = cholesky_solve(gpu, n, dA, n, m, dX, n);
  std::vector<double> X3(n * m);
  cudaMemcpy(X3.data(), dX, sizeof(double) * n * m, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dX);
  EXPECT_NEAR(d3, d1, 1e-11 * std::fabs(d1)) << "device operands";
  for (int64_t i = 0; i < n * m; ++i) EXPECT_NEAR(X3[i], X1[i], 1e-10 * (std::fabs(X1[i]) + 1)) << "device operands " << i;
#endif
}

TEST(CudaDenseLinalg, EigenTopAndAllMatchReferenceWithHostAndDeviceOperands) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
#ifdef PMX_HAVE_CUDA
  const int64_t n = 200;
  const auto A0 = spd(n, 9);
  for (int64_t count : {int64_t{10}, n}) {
    auto A1 = A0;
    std::vector<double> w1(count), V1(n * count), w2(count), V2(n * count);
    symmetric_eigen(ref, n, A1.data(), n, count, w1.data(), V1.data(), n);
    double *dA = nullptr, *dV = nullptr;
    ASSERT_EQ(cudaMalloc(&dA, sizeof(double) * n * n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dV, sizeof(double) * n * count), cudaSuccess);
    cudaMemcpy(dA, A0.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
    symmetric_eigen(gpu, n, dA, n, count, w2.data(), dV, n);
    cudaMemcpy(V2.data(), dV, sizeof(double) * n * count, cudaMemcpyDeviceToHost);
    cudaFree(dA);
    cudaFree(dV);
    for (int64_t c = 0; c < count; ++c) {
      EXPECT_NEAR(w2[c], w1[c], 1e-12 * w1[0]) << c;
      if (c + 1 < count && w1[c] - w1[c + 1] < 1e-3 * w1[0]) continue;  // no clear gap: vectors not unique
      double dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += V1[c * n + i] * V2[c * n + i];
      EXPECT_NEAR(std::fabs(dot), 1.0, 1e-10) << "eigenvector " << c;
    }
    // Host operands, the many-columns path.
    auto A3 = A0;
    std::vector<double> w3(count), V3(n * count);
    symmetric_eigen(gpu, n, A3.data(), n, count, w3.data(), V3.data(), n);
    for (int64_t c = 0; c < count; ++c) {
      EXPECT_NEAR(w3[c], w1[c], 1e-12 * w1[0]) << c;
      double dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += V2[c * n + i] * V3[c * n + i];
      EXPECT_NEAR(std::fabs(dot), 1.0, 1e-10) << "eigenvector " << c;
    }
  }
#endif
}

}  // namespace
}  // namespace pmx
