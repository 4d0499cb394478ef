// Accuracy of the Matérn covariance and its derivatives on the thesis' 2,601-point log grid
// against Arb at 1024 bits (matern_grid.hpp): the quadrature and trapezoid routes on the reference
// and cpu backends, and the Boost closed form (with finite differences in ν) for comparison.
#include <gtest/gtest.h>

#include <boost/math/special_functions/digamma.hpp>
#include <random>

#include "matern_grid.hpp"
#include "ops/matern_covariance/bessel_k.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

TEST(MaternAccuracy, QuadratureCpuMeetsTheTargetsOnTheWholeGrid) {
  expect_route_meets_targets(executor(backend::cpu, 2), matern_method::quadrature, "quadrature (cpu)");
}

TEST(MaternAccuracy, QuadratureReferenceMeetsTheTargetsOnTheWholeGrid) {
  expect_route_meets_targets(reference_executor(), matern_method::quadrature, "quadrature (reference, every node)");
}

// The trapezoid route serves the whole grid itself (κ ≤ 46 there, no exp-sinh fallback).
TEST(MaternAccuracy, TrapezoidCpuMeetsTheTargetsOnTheWholeGrid) {
  expect_route_meets_targets(executor(backend::cpu, 2), matern_method::trapezoid, "trapezoid (cpu)");
}

TEST(MaternAccuracy, TrapezoidReferenceMeetsTheTargetsOnTheWholeGrid) {
  expect_route_meets_targets(reference_executor(), matern_method::trapezoid, "trapezoid (reference)");
}

// Off the grid: 600 random (h, ν), log-uniform in [1e-4, 10]², each its own call (so that the
// per-call table covers one distance), the trapezoid and the host-device closed form against Arb.
TEST(MaternAccuracy, TrapezoidAndHostDeviceBesselOffTheGrid) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> e(-4, 1);
  grid_errors t, b;
  for (int i = 0; i < 600; ++i) {
    const double h = std::pow(10.0, e(rng)), nu = std::pow(10.0, e(rng));
    const arb_matern_value r = arb_matern(h, nu);
    double C, ds, dr, d1, d2;
    matern_covariance(executor(backend::cpu, 1), {1.0, 1.0, nu}, matern_method::trapezoid, &h, 1, {&C, &ds, &dr, &d1, &d2});
    t.C.add(C, r.C, h, nu), t.dsigma2.add(ds, r.C, h, nu), t.drho.add(dr, r.drho, h, nu);
    t.dnu.add(d1, r.dnu, h, nu), t.d2nu.add(d2, r.d2nu, h, nu);
    const detail::matern_point p = detail::matern_bessel_k_point(detail::make_bessel_consts(1.0, 1.0, nu), h);
    b.C.add(p.C, r.C, h, nu), b.dsigma2.add(p.dsigma2, r.C, h, nu), b.drho.add(p.drho, r.drho, h, nu);
  }
  print_grid_errors("trapezoid (cpu)", t, "at 600 random points");
  print_grid_errors("host-device Bessel K (C, dC/dsig2, dC/drho only)", b, "at 600 random points");
  expect_grid_targets(t);
  expect_grid_targets(b);
}

// Below the exp-sinh table's domain (a = νh²/(2ρ²) < 1e-12, where the quadrature loses most of
// 1 − C at small ν): the trapezoid route against Arb down to a = 1e-100 (at a = 1e-290, C still
// holds to 2e-16, but for ν ≥ 1 the ν- and ρ-derivatives, ~1e-280, underflow in the products of
// their terms).
TEST(MaternAccuracy, TrapezoidHoldsBelowTheExpSinhDomain) {
  grid_errors e;
  for (double nu : {1e-4, 0.1, 1.0, 3.3})
    for (double a : {1e-13, 1e-16, 1e-30, 1e-100}) {
      const double h = std::sqrt(2 * a / nu);
      const arb_matern_value r = arb_matern(h, nu);
      double C, ds, dr, d1, d2;
      matern_covariance(executor(backend::cpu, 1), {1.0, 1.0, nu}, matern_method::trapezoid, &h, 1, {&C, &ds, &dr, &d1, &d2});
      e.C.add(C, r.C, h, nu), e.dsigma2.add(ds, r.C, h, nu), e.drho.add(dr, r.drho, h, nu);
      e.dnu.add(d1, r.dnu, h, nu), e.d2nu.add(d2, r.d2nu, h, nu);
    }
  print_grid_errors("trapezoid (cpu)", e, "at 1e-100 <= a < 1e-12");
  expect_grid_targets(e);
}

// The Boost closed form: C to a few ulps where K_ν is accurate; the finite differences in ν are
// what the quadrature replaces (their error is printed, and bounded loosely to catch breakage).
TEST(MaternAccuracy, BesselClosedFormAgainstArb) {
  const grid_errors e = grid_errors_of(executor(backend::cpu, 2), matern_method::bessel);
  print_grid_errors("Boost cyl_bessel_k closed form, 5-point differences in nu (cpu)", e);
  EXPECT_LE(e.C.rel, 1e-12) << e.C.text();
  EXPECT_LE(e.drho.rel, 1e-12) << e.drho.text();
  EXPECT_LE(e.dnu.rel, 1e-3) << e.dnu.text();
}

// The host-device Bessel-K closed form (the cuda `bessel` route) run on the host: C, dC/dσ² and
// dC/dρ to the same targets as the quadrature.
TEST(MaternAccuracy, HostDeviceBesselKMeetsTheTargetsOnTheWholeGrid) {
  grid_errors e;
  const auto& ref = arb_grid();
  for (int j = 0; j < grid_side; ++j) {
    const detail::bessel_consts k = detail::make_bessel_consts(1.0, 1.0, log_grid(j));
    for (int i = 0; i < grid_side; ++i) {
      const detail::matern_point p = detail::matern_bessel_k_point(k, log_grid(i));
      const arb_matern_value& r = ref[j * grid_side + i];
      e.C.add(p.C, r.C, log_grid(i), log_grid(j));
      e.dsigma2.add(p.dsigma2, r.C, log_grid(i), log_grid(j));
      e.drho.add(p.drho, r.drho, log_grid(i), log_grid(j));
    }
  }
  print_grid_errors("host-device Bessel K (C, dC/dsig2, dC/drho only)", e);
  EXPECT_LE(e.C.rel, 1e-14) << e.C.text();
  EXPECT_LE(e.dsigma2.rel, 1e-14) << e.dsigma2.text();
  EXPECT_LE(e.drho.rel, 1e-14) << e.drho.text();
}

// The second derivative identity C″ = I″/Γ − 2ψC′ − (ψ² + ψ′)C: Arb agrees with it above (the
// quadrature meets 1e-8); the thesis' printed form, without ψ²C, is off by ψ(ν)² C.
TEST(MaternAccuracy, ThesisSecondDerivativeMissesPsiSquaredTerm) {
  const double h = 1.0, nu = 1.5;
  const arb_matern_value r = arb_matern(h, nu);
  double C = 0, d2 = 0;
  matern_covariance(executor(backend::cpu, 1), {1.0, 1.0, nu}, matern_method::quadrature, &h, 1,
                    {.C = &C, .d2nu = &d2});
  const double psi = boost::math::digamma(nu);
  const double thesis = d2 + psi * psi * C;  // I″/Γ − 2ψC′ − ψ′C
  EXPECT_LE(std::fabs(d2 - r.d2nu), 1e-8 * std::fabs(r.d2nu));
  EXPECT_GT(std::fabs(thesis - r.d2nu), 1e-3 * std::fabs(r.d2nu));
}

// σ² scales C and every derivative but dC/dσ²; ρ enters through h/ρ only (checked against Arb at
// ρ ≠ 1, where dC/dρ is not −(h/ρ) dC/dh at ρ = 1 by accident).
TEST(MaternAccuracy, ScaleAndRangeAgainstArb) {
  const double sigma2 = 2.5, rho = 0.37;
  const double hs[] = {1e-3, 0.05, 0.4, 1.3, 4.0};
  const double nus[] = {0.02, 0.5, 2.2, 7.0};
  for (double nu : nus) {
    double C[5], ds[5], dr[5], d1[5], d2[5];
    matern_covariance(executor(backend::cpu, 2), {sigma2, rho, nu}, matern_method::quadrature, hs, 5,
                      {C, ds, dr, d1, d2});
    for (int i = 0; i < 5; ++i) {
      const arb_matern_value r = arb_matern(hs[i], nu, rho);
      EXPECT_NEAR(C[i], sigma2 * r.C, 1e-14 * sigma2 * r.C) << hs[i] << " " << nu;
      EXPECT_NEAR(ds[i], r.C, 1e-14 * r.C);
      EXPECT_NEAR(dr[i], sigma2 * r.drho, 1e-14 * std::fabs(sigma2 * r.drho)) << hs[i] << " " << nu;
      EXPECT_NEAR(d1[i], sigma2 * r.dnu, 1e-10 * std::fabs(sigma2 * r.dnu)) << hs[i] << " " << nu;
      EXPECT_NEAR(d2[i], sigma2 * r.d2nu, 1e-8 * std::fabs(sigma2 * r.d2nu)) << hs[i] << " " << nu;
    }
  }
}

TEST(MaternAccuracy, ZeroDistanceAndExponentialCase) {
  // h = 0: C = σ², derivatives 0. ν = 1/2: C = σ² exp(−h/ρ) exactly.
  const double h[] = {0.0, 0.3, 2.0};
  double C[3], d1[3];
  matern_covariance(executor(backend::cpu, 1), {3.0, 1.5, 0.5}, matern_method::quadrature, h, 3, {.C = C, .dnu = d1});
  EXPECT_EQ(C[0], 3.0);
  EXPECT_EQ(d1[0], 0.0);
  for (int i = 1; i < 3; ++i) EXPECT_NEAR(C[i], 3.0 * std::exp(-h[i] / 1.5), 1e-14 * C[i]);
}

}  // namespace
}  // namespace pmx::test
