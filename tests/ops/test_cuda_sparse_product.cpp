// The cuda sparse product (cuSPARSE on a resident CSR) against the cpu one, itself checked against
// a dense long-double product in test_genotyped_a_inverse.cpp: random symmetric matrices with 32-
// and 64-bit columns, 1 and several columns, host and device vectors, and a device budget too
// small for the matrix (unsupported_error, which callers turn into cpu products). Each row's error
// must stay within c·u·Σ_k |S_ik X_kc|, c the row's nonzero count plus 2.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "panoramix/error.hpp"
#include "panoramix/genotyped_a_inverse.hpp"
#include "panoramix/ops/sparse_product.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// A random symmetric n × n matrix as its lower triangle: the diagonal and about `per_row`
// off-diagonal entries per row at random columns (duplicates merged), values in (−1, 1).
sparse_symmetric random_symmetric(int64_t n, int per_row, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  sparse_symmetric s;
  s.n = n;
  s.row_start.push_back(0);
  for (int64_t r = 0; r < n; ++r) {
    std::vector<int64_t> cols;
    for (int q = 0; q < per_row && r > 0; ++q) cols.push_back(static_cast<int64_t>(rng() % r));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    cols.push_back(r);
    for (int64_t c : cols) {
      s.col.push_back(c);
      s.value.push_back(c == r ? 4.0 + u(rng) : u(rng));
    }
    s.row_start.push_back(static_cast<int64_t>(s.col.size()));
  }
  return s;
}

// max over entries of |got − want| / (c·u·Σ_k |S_ik X_kc|), c = the row's nonzeros + 2.
double error_in_bounds(const csr_view& m, int64_t t, const std::vector<double>& X, const std::vector<double>& want,
                       const std::vector<double>& got) {
  double worst = 0;
  for (int64_t r = 0; r < m.n; ++r)
    for (int64_t c = 0; c < t; ++c) {
      double sum_abs = 0;
      for (int64_t k = m.row_start[r]; k < m.row_start[r + 1]; ++k) {
        const int64_t j = m.col32 ? m.col32[k] : m.col64[k];
        sum_abs += std::abs(m.value[k] * X[j * t + c]);
      }
      const double bound = static_cast<double>(m.row_start[r + 1] - m.row_start[r] + 2) * 0x1p-53 * sum_abs;
      const double e = std::abs(got[r * t + c] - want[r * t + c]);
      if (e > 0) worst = std::max(worst, bound > 0 ? e / bound : INFINITY);
    }
  return worst;
}

TEST(CudaSparseProduct, MatchesCpuHostAndDeviceVectors) {
  PMX_REQUIRE_GPU();
  const executor cpu(backend::cpu, 2), gpu(backend::cuda, 2);
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{1000}, int64_t{200000}}) {
    const sparse_symmetric s = random_symmetric(n, 3, 40 + n);
    const sparse_symmetric_operator op(s);
    csr_view narrow = op.csr();
    ASSERT_NE(narrow.col32, nullptr);
    // The same matrix with 64-bit columns (the device then indexes with 64 bits throughout).
    const std::vector<int64_t> col64(narrow.col32, narrow.col32 + narrow.nonzeros());
    csr_view wide = narrow;
    wide.col32 = nullptr;
    wide.col64 = col64.data();
    for (const csr_view& m : {narrow, wide}) {
      const sparse_operand host_side(cpu, m), device_side(gpu, m);
      ASSERT_NE(device_side.device(), nullptr);
      for (int64_t t : {1, 3, 10}) {
        std::mt19937_64 rng(n + t);
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<double> X(n * t), want(n * t), got(n * t, 7.0);
        for (double& x : X) x = u(rng);
        sparse_multiply(host_side, t, X.data(), want.data());
        sparse_multiply(device_side, t, X.data(), got.data());
        const std::string what = "n = " + std::to_string(n) + ", t = " + std::to_string(t) +
                                 (m.col32 ? ", 32-bit columns" : ", 64-bit columns");
        EXPECT_LE(error_in_bounds(m, t, X, want, got), 1.0) << what << ", host vectors";
        // The same bits on a second call (deterministic algorithms).
        std::vector<double> again(n * t);
        sparse_multiply(device_side, t, X.data(), again.data());
        EXPECT_EQ(got, again) << what;
#ifdef PMX_HAVE_CUDA
        double *dX = nullptr, *dY = nullptr;
        ASSERT_EQ(cudaMalloc(&dX, sizeof(double) * n * t), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dY, sizeof(double) * n * t), cudaSuccess);
        cudaMemcpy(dX, X.data(), sizeof(double) * n * t, cudaMemcpyHostToDevice);
        sparse_multiply(device_side, t, dX, dY);
        std::vector<double> from_device(n * t);
        cudaMemcpy(from_device.data(), dY, sizeof(double) * n * t, cudaMemcpyDeviceToHost);
        cudaFree(dX);
        cudaFree(dY);
        EXPECT_EQ(from_device, got) << what << ", device vectors";
#endif
      }
    }
  }
}

TEST(CudaSparseProduct, TooSmallBudgetIsUnsupported) {
  PMX_REQUIRE_GPU();
  const sparse_symmetric s = random_symmetric(100000, 3, 5);
  const sparse_symmetric_operator op(s);
  executor gpu(backend::cuda, 2);
  gpu.set_device_memory_budget(int64_t{1} << 20);  // the matrix alone takes ~5 MiB
  try {
    sparse_operand d(gpu, op.csr());
    ADD_FAILURE() << "no unsupported_error";
  } catch (const unsupported_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pmx
