// dense_linalg on cuda (cuSOLVER) against the cpu backend (LAPACK, itself checked against long
// double elimination and known spectra in test_dense_linalg.cpp), with host and device operands.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "panoramix/error.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

const executor cpu(backend::cpu, 2);

std::vector<double> spd(int64_t n, uint64_t seed) {
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 20.0 * std::pow(0.9, i) + 0.1;
  return test::matrix_with_spectrum(lambda, seed);
}

TEST(CudaDenseLinalg, CholeskySolveHostOperandsMatchesCpu) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
  const int64_t n = 300, m = 4;
  const auto A0 = spd(n, 5);
  std::vector<double> rhs(n * m);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : rhs) x = u(rng);
  auto A1 = A0, A2 = A0, X1 = rhs, X2 = rhs;
  const double d1 = cholesky_solve(cpu, n, A1.data(), n, m, X1.data(), n);
  const double d2 = cholesky_solve(gpu, n, A2.data(), n, m, X2.data(), n);
  EXPECT_NEAR(d2, d1, 1e-11 * std::fabs(d1));
  for (int64_t i = 0; i < n * m; ++i) EXPECT_NEAR(X2[i], X1[i], 1e-10 * (std::fabs(X1[i]) + 1)) << i;
}

TEST(CudaDenseLinalg, EigenTopAndAllMatchCpuWithDeviceOperands) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
#ifdef PMX_HAVE_CUDA
  const int64_t n = 200;
  const auto A0 = spd(n, 9);
  for (int64_t count : {int64_t{10}, n}) {
    auto A1 = A0;
    std::vector<double> w1(count), V1(n * count), w2(count), V2(n * count);
    symmetric_eigen(cpu, n, A1.data(), n, count, w1.data(), V1.data(), n);
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

TEST(CudaShiftedSolve, ManyShiftsOfOneResidentMatrixMatchClosedForms) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
  const int64_t n = 300, m = 3;
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = 3.0 * std::pow(0.97, i);
  const auto A = test::matrix_with_spectrum(lambda, 4);
  std::vector<double> B(n * m);
  for (int64_t i = 0; i < n * m; ++i) B[i] = std::cos(0.11 * i) - 0.1;
  const shifted_operand op(gpu, n, A.data(), n);
  for (double h2 : {0.05, 0.5, 0.5, 0.95, 0.05}) {  // repeats reuse the kept factor
    auto X = B;
    const double logdet = shifted_cholesky_solve(op, h2, 1 - h2, m, X.data(), n);
    EXPECT_LT(test::shifted_solve_error(A, lambda, h2, 1 - h2, B, X, m, logdet), 1e-12) << "h2 " << h2;
  }
  auto X = B;
  EXPECT_THROW(shifted_cholesky_solve(op, 1.0, -4.0, m, X.data(), n), numeric_error);
}

}  // namespace
}  // namespace pmx
