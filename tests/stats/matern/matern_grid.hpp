// The thesis' 51 × 51 log grid (h, ν) ∈ {10^−4, 10^−3.9, …, 10^1}², σ² = ρ = 1, against the Arb
// oracle (arb_matern.hpp), shared by the cpu and cuda accuracy tests.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "arb_matern.hpp"
#include "panoramix/ops/matern_covariance.hpp"

namespace pmx::test {

inline constexpr int grid_side = 51;

/// Arb at every grid point, computed once per test program (≈ 1.5 s). Index [ν index][h index].
inline const std::vector<arb_matern_value>& arb_grid() {
  static const std::vector<arb_matern_value> g = [] {
    std::vector<arb_matern_value> v(grid_side * grid_side);
    for (int j = 0; j < grid_side; ++j)
      for (int i = 0; i < grid_side; ++i) v[j * grid_side + i] = arb_matern(log_grid(i), log_grid(j));
    return v;
  }();
  return g;
}

/// Worst relative error of one quantity and where.
struct worst_error {
  double rel = 0, h = 0, nu = 0, value = 0;
  void add(double got, double want, double h_, double nu_) {
    const double e = want == 0 ? std::fabs(got) : std::fabs(got - want) / std::fabs(want);
    if (!(e <= rel)) rel = e, h = h_, nu = nu_, value = want;  // NaN counts as worst
  }
  std::string text() const {
    char b[160];
    std::snprintf(b, sizeof b, "%.3g at h = %.4g, nu = %.4g (value %.6g)", rel, h, nu, value);
    return b;
  }
};

struct grid_errors {
  worst_error C, dnu, d2nu, drho, dsigma2;
};

/// Evaluates the op on `exec` over the grid (one call per ν, all 51 distances, host memory) and
/// collects the worst relative errors against Arb (without `nu_derivatives`: C, dC/dσ², dC/dρ).
inline grid_errors grid_errors_of(const executor& exec, matern_method method, int stride = 1,
                                  bool nu_derivatives = true) {
  grid_errors e;
  const auto& ref = arb_grid();
  std::vector<double> h(grid_side), C(grid_side), ds(grid_side), dr(grid_side), d1(grid_side), d2(grid_side);
  for (int i = 0; i < grid_side; ++i) h[i] = log_grid(i);
  for (int j = 0; j < grid_side; ++j) {
    const double nu = log_grid(j);
    matern_covariance(exec, {1.0, 1.0, nu}, method, h.data(), grid_side,
                      {C.data(), ds.data(), dr.data(), nu_derivatives ? d1.data() : nullptr,
                       nu_derivatives ? d2.data() : nullptr},
                      stride);
    for (int i = 0; i < grid_side; ++i) {
      const arb_matern_value& r = ref[j * grid_side + i];
      EXPECT_GE(r.accurate_bits, 64) << "Arb ball too wide at h = " << h[i] << ", nu = " << nu;
      e.C.add(C[i], r.C, h[i], nu);
      e.dsigma2.add(ds[i], r.C, h[i], nu);
      e.drho.add(dr[i], r.drho, h[i], nu);
      if (!nu_derivatives) continue;
      e.dnu.add(d1[i], r.dnu, h[i], nu);
      e.d2nu.add(d2[i], r.d2nu, h[i], nu);
    }
  }
  return e;
}

inline void print_grid_errors(const std::string& what, const grid_errors& e,
                              const std::string& where = "on the 51x51 log grid") {
  std::printf("%s %s, worst relative error against Arb (1024 bits):\n", what.c_str(), where.c_str());
  std::printf("  C        %s\n  dC/dsig2 %s\n  dC/drho  %s\n  dC/dnu   %s\n  d2C/dnu2 %s\n", e.C.text().c_str(),
              e.dsigma2.text().c_str(), e.drho.text().c_str(), e.dnu.text().c_str(), e.d2nu.text().c_str());
}

/// The targets: C (and dC/dσ², dC/dρ) 1e-14, dC/dν 1e-10, d²C/dν² 1e-8 relative.
inline void expect_grid_targets(const grid_errors& e) {
  EXPECT_LE(e.C.rel, 1e-14) << e.C.text();
  EXPECT_LE(e.dsigma2.rel, 1e-14) << e.dsigma2.text();
  EXPECT_LE(e.drho.rel, 1e-14) << e.drho.text();
  EXPECT_LE(e.dnu.rel, 1e-10) << e.dnu.text();
  EXPECT_LE(e.d2nu.rel, 1e-8) << e.d2nu.text();
}

/// One route on one backend over the grid: prints its worst errors as `what` and expects the targets.
inline void expect_route_meets_targets(const executor& exec, matern_method method, const std::string& what,
                                       bool nu_derivatives = true) {
  const grid_errors e = grid_errors_of(exec, method, 1, nu_derivatives);
  print_grid_errors(what, e);
  expect_grid_targets(e);
}

}  // namespace pmx::test
