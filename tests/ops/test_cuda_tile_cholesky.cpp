// tile_cholesky on cuda against the host backends (the reference for small matrices, cpu beyond):
// FP32 tiles solve to FP32 accuracy; maps mixing every precision give the host backends' solutions
// up to FP32 accumulation order; residuals and norms equal the FP64 ones; the precision rule reads
// device memory as host memory; a matrix that is not positive definite is named.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "panoramix/error.hpp"
#include "panoramix/ops/tile_cholesky.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

// Made on first use, after PMX_REQUIRE_GPU: a cuda executor cannot be made where CUDA is absent.
const executor& gpu_executor() {
  static const executor e(backend::cuda, 2);
  return e;
}
const executor cpu(backend::cpu, 4);

std::vector<double> spd(int64_t n, double kappa, uint64_t seed) {
  std::vector<double> lambda(n);
  for (int64_t i = 0; i < n; ++i) lambda[i] = std::pow(kappa, -double(i) / double(n - 1));
  return matrix_with_spectrum(lambda, seed);
}

// A map whose off-diagonal tiles cycle through every precision.
tile_precision_map every_precision(int64_t n, int64_t tile) {
  tile_precision_map m = tile_precision_map::uniform(n, tile);
  int k = 0;
  for (int64_t i = 0; i < m.tiles; ++i)
    for (int64_t j = 0; j < i; ++j) m.p[i * m.tiles + j] = static_cast<tile_precision>(k++ % 4);
  return m;
}

double rel(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * (a[i] - b[i]), den += b[i] * b[i];
  return std::sqrt(num / den);
}

std::vector<double> solved(const executor& exec, const std::vector<double>& A, int64_t n, double shift,
                           const tile_precision_map& map, const std::vector<double>& b, int64_t m) {
  tile_cholesky f(exec, n, A.data(), n, shift, map);
  std::vector<double> x = b;
  f.solve(x.data(), n, m);
  return x;
}

TEST(CudaTileCholesky, MatchesHostBackends) {
  PMX_REQUIRE_GPU();
  const executor& gpu = gpu_executor();
  struct c {
    int64_t n, tile;
    double shift;
  };
  for (const c k : {c{200, 32, 0.0}, c{333, 64, 0.5}, c{96, 96, 0.0}, c{1000, 128, 0.1}}) {
    const std::vector<double> A = spd(k.n, 50, 3 + k.n);
    const int64_t m = 3;
    std::vector<double> b(k.n * m);
    for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.1 * double(i));
    const executor& host = k.n <= 400 ? executor::reference() : cpu;
    // FP32 everywhere: both at FP32 accuracy of the same system.
    const auto map32 = tile_precision_map::uniform(k.n, k.tile);
    const auto x_host = solved(host, A, k.n, k.shift, map32, b, m), x_gpu = solved(gpu, A, k.n, k.shift, map32, b, m);
    EXPECT_LT(rel(x_gpu, x_host), 50 * double(k.n) * unit_roundoff(tile_precision::fp32)) << k.n;
    // Every precision: the same rounded system; differences are those of FP32 accumulation order
    // (and the rare operand that then rounds to the neighbouring low-precision value), far below the
    // error the low precisions themselves make against the FP32 solution.
    const auto mapx = every_precision(k.n, k.tile);
    const auto y_host = solved(host, A, k.n, k.shift, mapx, b, m), y_gpu = solved(gpu, A, k.n, k.shift, mapx, b, m);
    if (mapx.tiles > 1) {
      const double low_error = rel(y_host, x_host);
      EXPECT_GT(low_error, 1e-4) << "the low precisions made no difference";
      EXPECT_LT(rel(y_gpu, y_host), 0.05 * low_error) << k.n;
    }
    // FP64 products with A + shift·I.
    tile_cholesky fg(gpu, k.n, A.data(), k.n, k.shift, mapx), fh(cpu, k.n, A.data(), k.n, k.shift, mapx);
    std::vector<double> rg(k.n * m), rh(k.n * m);
    fg.residual(y_host.data(), b.data(), rg.data(), m);
    fh.residual(y_host.data(), b.data(), rh.data(), m);
    EXPECT_LT(rel(rg, rh), 1e-12);
    EXPECT_NEAR(fg.norm_inf(), fh.norm_inf(), 1e-13 * fh.norm_inf());
  }
}

TEST(CudaTileCholesky, DeviceMatrixAndPrecisionRule) {
  PMX_REQUIRE_GPU();
#ifdef PMX_HAVE_CUDA
  const executor& gpu = gpu_executor();
  const int64_t n = 640, tile = 64;
  const std::vector<double> A = spd(n, 10, 8);
  double* dA = nullptr;
  ASSERT_EQ(cudaMalloc(&dA, sizeof(double) * n * n), cudaSuccess);
  cudaMemcpy(dA, A.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
  for (double eps : {1e-1, 1e-2, 1e-3}) {
    const tile_precision_map mh = choose_tile_precisions(cpu, A.data(), n, n, 0.25, tile, eps);
    const tile_precision_map md = choose_tile_precisions(gpu, dA, n, n, 0.25, tile, eps);
    EXPECT_EQ(mh.p, md.p) << eps;
    std::vector<double> b(n, 1.0);
    tile_cholesky fd(gpu, n, dA, n, 0.25, md);
    std::vector<double> xd = b, xh = solved(cpu, A, n, 0.25, mh, b, 1);
    fd.solve(xd.data(), n, 1);
    EXPECT_LT(rel(xd, xh), 1e-2 * eps + 1e-5) << eps;
  }
  cudaFree(dA);
#endif
}

TEST(CudaTileCholesky, NotPositiveDefiniteIsNamed) {
  PMX_REQUIRE_GPU();
  const executor& gpu = gpu_executor();
  const int64_t n = 100;
  std::vector<double> lambda(n, 1.0);
  lambda[n - 1] = -0.5;
  const std::vector<double> A = matrix_with_spectrum(lambda, 3);
  try {
    tile_cholesky f(gpu, n, A.data(), n, 0.0, tile_precision_map::uniform(n, 32));
    FAIL() << "an indefinite matrix was factorised";
  } catch (const numeric_error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pmx
