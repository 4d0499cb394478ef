// The cuda backend of matern_covariance: the accuracy targets on the thesis' log grid against Arb
// (as the cpu test), the reference backend on random and adversarial distances, and distances in
// device memory.
#include <gtest/gtest.h>
#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "matern_backend_cases.hpp"
#include "matern_grid.hpp"
#include "ops/matern_covariance/bessel_k.hpp"

namespace pmx::test {
namespace {

TEST(CudaMatern, QuadratureMeetsTheTargetsOnTheWholeGrid) {
  PMX_REQUIRE_GPU();
  expect_route_meets_targets(executor(backend::cuda), matern_method::quadrature, "quadrature (cuda)");
}

TEST(CudaMatern, TrapezoidMeetsTheTargetsOnTheWholeGrid) {
  PMX_REQUIRE_GPU();
  expect_route_meets_targets(executor(backend::cuda), matern_method::trapezoid, "trapezoid (cuda)");
}

// The cuda `bessel` route (host-device closed form): C, dC/dσ², dC/dρ.
TEST(CudaMatern, BesselMeetsTheTargetsOnTheWholeGrid) {
  PMX_REQUIRE_GPU();
  expect_route_meets_targets(executor(backend::cuda), matern_method::bessel, "Bessel K closed form (cuda; no nu-derivatives)",
                             false);
}

// The same functions on the host and the device, on random and extreme distances: equal to
// rounding, which differs where nvcc contracts a product and a sum into an FMA and in CUDA's exp,
// log and pow (≤ 2 ulp); the recurrence to ν = 150 multiplies 150 such factors, hence 1e-13.
TEST(CudaMatern, BesselMatchesTheHostDeviceCodeOnTheHost) {
  PMX_REQUIRE_GPU();
  const int64_t n = 4099;
  const std::vector<double> h = matern_case_distances(n, 23);
  for (double nu : {1e-4, 0.1, 0.5, 1.0, 2.5, 10.0, 40.0, 150.0}) {
    const matern_params p{1.3, 0.8, nu};
    std::vector<double> C(n), dr(n);
    matern_covariance(executor(backend::cuda), p, matern_method::bessel, h.data(), n, {.C = C.data(), .drho = dr.data()});
    const detail::bessel_consts k = detail::make_bessel_consts(p.sigma2, p.rho, p.nu);
    for (int64_t i = 0; i < n; ++i) {
      const detail::matern_point w = detail::matern_bessel_k_point(k, h[i]);
      ASSERT_NEAR(C[i], w.C, 1e-13 * w.C + 1e-300) << h[i] << " " << nu;
      ASSERT_NEAR(dr[i], w.drho, 1e-13 * std::fabs(w.drho) + 1e-300) << h[i] << " " << nu;
    }
  }
}

TEST(CudaMatern, MatchesReference) {
  PMX_REQUIRE_GPU();
  for (int64_t n : {1, 31, 32, 33, 1001, 4099}) check_matern_backend(executor(backend::cuda), n, 11 + n);
}

TEST(CudaMatern, TrapezoidMatchesQuadratureReference) {
  PMX_REQUIRE_GPU();
  for (int64_t n : {1, 33, 1001, 4099}) check_matern_backend(executor(backend::cuda), n, 17 + n, matern_method::trapezoid);
}

// Distances and outputs in device memory (the trapezoid route then finds the distances' range on
// the device), against the cpu backend of the same route.
TEST(CudaMatern, DeviceMemoryOperands) {
  PMX_REQUIRE_GPU();
#ifdef PMX_HAVE_CUDA
  const int64_t n = 5000;
  const std::vector<double> h = matern_case_distances(n, 5);
  const matern_params p{1.0, 0.7, 0.8};
  double *d_h = nullptr, *d_c = nullptr, *d_1 = nullptr;
  ASSERT_EQ(cudaMalloc(&d_h, n * 8), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_c, n * 8), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_1, n * 8), cudaSuccess);
  cudaMemcpy(d_h, h.data(), n * 8, cudaMemcpyHostToDevice);
  for (matern_method m : {matern_method::quadrature, matern_method::trapezoid}) {
    std::vector<double> want(n), want1(n), got(n), got1(n);
    matern_covariance(executor(backend::cpu, 2), p, m, h.data(), n, {.C = want.data(), .dnu = want1.data()});
    matern_covariance(executor(backend::cuda), p, m, d_h, n, {.C = d_c, .dnu = d_1});
    cudaMemcpy(got.data(), d_c, n * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(got1.data(), d_1, n * 8, cudaMemcpyDeviceToHost);
    for (int64_t i = 0; i < n; ++i) {
      if (matern_small_distance(p, h[i])) continue;  // outside the exp-sinh table's domain (the op's header)
      EXPECT_NEAR(got[i], want[i], 1e-14 * want[i]) << matern_method_name(m) << " " << h[i];
      EXPECT_NEAR(got1[i], want1[i], 1e-12 * (std::fabs(want1[i]) + 1e4 * want[i])) << matern_method_name(m) << " " << h[i];
    }
  }
  cudaFree(d_h), cudaFree(d_c), cudaFree(d_1);
#endif
}

}  // namespace
}  // namespace pmx::test
