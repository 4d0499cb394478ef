// The cpu backend of matern_covariance (windowed sums, OpenMP) against the reference (every node),
// the Bessel route against the quadrature, and the op's precondition checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "matern_backend_cases.hpp"
#include "ops/matern_covariance/bessel_k.hpp"
#include "ops/matern_covariance/trapezoid.hpp"
#include "panoramix/error.hpp"

namespace pmx::test {
namespace {

TEST(MaternBackends, CpuMatchesReference) {
  for (int64_t n : {1, 3, 33, 1001}) check_matern_backend(executor(backend::cpu, 2), n, 7 + n);
}

TEST(MaternBackends, TrapezoidMatchesQuadratureReference) {
  for (int64_t n : {1, 33, 1001}) check_matern_backend(executor(backend::cpu, 2), n, 17 + n, matern_method::trapezoid);
  check_matern_backend(reference_executor(), 501, 5, matern_method::trapezoid);
}

TEST(MaternBackends, BesselRouteMatchesQuadrature) {
  std::vector<double> h = matern_case_distances(500, 3);
  for (double& x : h) x = std::min(std::max(x, 1e-6), 100.0);  // where K_ν is representable
  for (double nu : {0.05, 0.5, 1.7, 6.0}) {
    std::vector<double> q(h.size()), b(h.size()), qr(h.size()), br(h.size());
    const matern_params p{1.5, 0.6, nu};
    matern_covariance(executor(backend::cpu, 2), p, matern_method::quadrature, h.data(), 500, {.C = q.data(), .drho = qr.data()});
    matern_covariance(executor(backend::cpu, 2), p, matern_method::bessel, h.data(), 500, {.C = b.data(), .drho = br.data()});
    for (size_t i = 0; i < h.size(); ++i) {
      if (b[i] < 1e-290) continue;  // K_ν underflows before the quadrature's terms do
      EXPECT_NEAR(q[i], b[i], 1e-13 * b[i]) << h[i] << " " << nu;
      if (br[i] > 1e-290) {
        EXPECT_NEAR(qr[i], br[i], 1e-13 * br[i]) << h[i] << " " << nu;
      }
    }
  }
}

// The host-device closed form (the cuda `bessel` route's functions, run here) against the
// trapezoid route on random and extreme distances, ν up to the quadrature's range: C and dC/dρ to
// 2e-14 where the trapezoid sums serve (trap_applies), 1e-13 where its exp-sinh fallback does
// (large x and ν: that route's rounding, e.g. 1e-14 at ν = 80, x = 57, against mpmath).
TEST(MaternBackends, HostDeviceBesselKMatchesTrapezoid) {
  const int64_t n = 2001;
  const std::vector<double> h = matern_case_distances(n, 29);
  for (double nu : {1e-4, 0.1, 0.5, 1.0, 2.5, 10.0, 40.0, 150.0}) {
    const matern_params p{1.3, 0.8, nu};
    std::vector<double> C(n), dr(n);
    matern_covariance(executor(backend::cpu, 2), p, matern_method::trapezoid, h.data(), n, {.C = C.data(), .drho = dr.data()});
    const detail::bessel_consts k = detail::make_bessel_consts(p.sigma2, p.rho, p.nu);
    for (int64_t i = 0; i < n; ++i) {
      const detail::matern_point w = detail::matern_bessel_k_point(k, h[i]);
      ASSERT_TRUE(std::isfinite(w.C) && std::isfinite(w.drho) && w.C >= 0) << h[i] << " " << nu;
      // below the exp-sinh and trapezoid tables (a < 1e-12, or h² underflowing) they are off
      const double a = nu * h[i] * h[i] / (2 * p.rho * p.rho);
      if (a < 1e-12 || C[i] < 1e-280) continue;
      const double tol = detail::trap_applies(nu, a) ? 2e-14 : 1e-13;
      EXPECT_NEAR(w.C, C[i], tol * C[i]) << h[i] << " " << nu;
      EXPECT_NEAR(w.drho, dr[i], tol * std::fabs(dr[i])) << h[i] << " " << nu;
    }
  }
}

TEST(MaternBackends, BesselRouteNamesUnrepresentableDistances) {
  const double h = 1e-300;
  double C = 0;
  EXPECT_THROW(matern_covariance(executor(backend::cpu, 1), {1, 1, 6}, matern_method::bessel, &h, 1, {.C = &C}),
               numeric_error);
}

TEST(MaternBackends, RejectsInvalidParametersAndDistances) {
  const executor cpu(backend::cpu, 1);
  double h = 1, C = 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(matern_covariance(cpu, {1, 1, 0}, matern_method::quadrature, &h, 1, {.C = &C}), logic_error);
  EXPECT_THROW(matern_covariance(cpu, {1, 1, -1}, matern_method::quadrature, &h, 1, {.C = &C}), logic_error);
  EXPECT_THROW(matern_covariance(cpu, {1, 0, 1}, matern_method::quadrature, &h, 1, {.C = &C}), logic_error);
  EXPECT_THROW(matern_covariance(cpu, {0, 1, 1}, matern_method::quadrature, &h, 1, {.C = &C}), logic_error);
  EXPECT_THROW(matern_covariance(cpu, {1, 1, 200}, matern_method::quadrature, &h, 1, {.C = &C}), logic_error);
  for (double bad : {-1.0, nan, std::numeric_limits<double>::infinity()})
    EXPECT_THROW(matern_covariance(cpu, {1, 1, 1}, matern_method::quadrature, &bad, 1, {.C = &C}), logic_error);
}

}  // namespace
}  // namespace pmx::test
