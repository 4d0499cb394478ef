// Backend cases of matern_covariance shared by the cpu and cuda tests: random and adversarial
// distances (0, tiny, huge, the C = 1/2 switch region) compared with the reference backend, which
// sums every node of the table (the windowed sums must leave out only negligible nodes).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "panoramix/ops/matern_covariance.hpp"
#include "test_support.hpp"

namespace pmx::test {

inline std::vector<double> matern_case_distances(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> e(-7, 1.5);
  std::vector<double> h(static_cast<size_t>(n));
  for (auto& x : h) x = std::pow(10.0, e(rng));
  const double special[] = {0.0, 1e-300, 1e-12, 1e-6, 0.5, 1.0, 30.0, 1e3, 1e300};
  for (size_t i = 0; i < std::size(special) && i < h.size(); ++i) h[i * 7 % h.size()] = special[i];
  return h;
}

/// Runs exec against the reference on n distances for several (σ², ρ, ν) and strides. With
/// `method` trapezoid (which has no stride): against the reference's quadrature at stride 1, i.e.
/// the trapezoid sums against the exp-sinh sums, each within its error of the true value.
inline void check_matern_backend(const executor& exec, int64_t n, uint64_t seed,
                                 matern_method method = matern_method::quadrature) {
  const matern_params ps[] = {{1.0, 1.0, 1e-4}, {2.0, 0.3, 0.1}, {0.7, 2.0, 0.5}, {1.0, 1.0, 1.0},
                              {1.3, 0.8, 2.5}, {1.0, 1.0, 10.0}, {1.0, 5.0, 40.0}};
  const std::vector<double> h = matern_case_distances(n, seed);
  for (int stride : {1, 4})
    for (const matern_params& p : ps) {
      if (method != matern_method::quadrature && stride != 1) continue;
      std::vector<double> w[5], r[5];
      for (int o = 0; o < 5; ++o) w[o].assign(h.size(), -1), r[o].assign(h.size(), -1);
      matern_covariance(reference_executor(), p, matern_method::quadrature, h.data(), n,
                        {r[0].data(), r[1].data(), r[2].data(), r[3].data(), r[4].data()}, stride);
      matern_covariance(exec, p, method, h.data(), n,
                        {w[0].data(), w[1].data(), w[2].data(), w[3].data(), w[4].data()}, stride);
      // Rounding of differently ordered sums: C to a few ulps; the ν-derivatives inherit the
      // cancellation of I′/Γ − ψC near their zeros, so they are compared relative to the scale of
      // that difference (|C′| + |ψ C|, |ψ| ≤ 1e4 here). Distances with 0 < a = νh²/(2ρ²) < 1e-12
      // lie outside the domain the table serves (the header: its smallest node cuts the integrals
      // there, so both backends are off, differently): they are left out here.
      // C, dC/dσ², dC/dρ: each backend within 1e-14 of the true sum of the same nodes, so the two
      // within 2e-14 of each other (seen: 1.03e-14 at ν = 40 with stride 4, cuda's window and exp
      // against the reference's full sum).
      const double tol[5] = {2e-14, 2e-14, 2e-14, 1e-12, 1e-11};
      for (int64_t i = 0; i < n; ++i)
        for (int o = 0; o < 5; ++o) {
          const double a = p.nu * h[i] * h[i] / (2 * p.rho * p.rho);
          if (a > 0 && a < 1e-12) continue;
          const double c_scale = std::fabs(r[0][i]);
          const double scale = o <= 2 ? std::fabs(r[o][i]) : std::fabs(r[o][i]) + c_scale * 1e4;
          ASSERT_LE(std::fabs(w[o][i] - r[o][i]), tol[o] * scale + 1e-300)
              << "output " << o << " at h = " << h[i] << ", nu = " << p.nu << ", rho = " << p.rho << ", stride "
              << stride << ": " << w[o][i] << " vs " << r[o][i];
        }
    }
}

}  // namespace pmx::test
