// The cuda sparse product (cuSPARSE on a resident CSR) against the long-double product and the
// reference backend: every case of sparse_product_cases.hpp, then a large matrix with host and
// device vectors and the same bits on a second call, and a device budget too small for the matrix
// (unsupported_error, which callers turn into cpu products).
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
#include "sparse_product_cases.hpp"

namespace pmx {
namespace {

namespace cases = sparse_product_cases;

TEST(CudaSparseProduct, EveryCaseMatchesLongDoubleProductAndReference) {
  PMX_REQUIRE_GPU();
  cases::every_case(executor(backend::cuda, 2));
}

TEST(CudaSparseProduct, LargeMatrixHostAndDeviceVectorsSameBitsEveryCall) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
  const int64_t n = 200000;
  const cases::csr_matrix a = cases::random_symmetric(n, 3, 40 + n);
  for (const csr_view& m : {a.narrow(), a.wide()}) {
    const sparse_operand reference(executor::reference(), m), device_side(gpu, m);
    ASSERT_NE(device_side.device(), nullptr);
    for (int64_t t : {1, 3, 10}) {
      const auto X = cases::random_block(n, t, static_cast<uint64_t>(n + t));
      std::vector<double> want(n * t), got(n * t, 7.0);
      sparse_multiply(reference, t, X.data(), want.data());
      sparse_multiply(device_side, t, X.data(), got.data());
      const std::string what = "n = " + std::to_string(n) + ", t = " + std::to_string(t) +
                               (m.col32 ? ", 32-bit columns" : ", 64-bit columns");
      EXPECT_LE(cases::error_in_bounds(m, t, X, got, &want), 1.0) << what << ", host vectors";
      // The same bits on a second call (deterministic algorithms).
      std::vector<double> again(n * t);
      sparse_multiply(device_side, t, X.data(), again.data());
      EXPECT_EQ(got, again) << what;
#ifdef PMX_HAVE_CUDA
      double *dX = nullptr, *dY = nullptr;
      ASSERT_EQ(cudaMalloc(&dX, sizeof(double) * n * t), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dY, sizeof(double) * n * t), cudaSuccess);
      cudaMemcpy(dX, X.data(), sizeof(double) * n * t, cudaMemcpyHostToDevice);
      // From pageable memory the copy may still be in flight when cudaMemcpy returns, and the
      // product runs on a non-blocking stream.
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
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

TEST(CudaSparseProduct, TooSmallBudgetIsUnsupported) {
  PMX_REQUIRE_GPU();
  const cases::csr_matrix a = cases::random_symmetric(100000, 3, 5);
  executor gpu(backend::cuda, 2);
  gpu.set_device_memory_budget(int64_t{1} << 20);  // the matrix alone takes ~5 MiB
  try {
    sparse_operand d(gpu, a.narrow());
    ADD_FAILURE() << "no unsupported_error";
  } catch (const unsupported_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pmx
