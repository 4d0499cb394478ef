// The Matérn log-likelihood at given parameters against scikit-learn's GaussianProcessRegressor
// (matern_sklearn_oracle.py, /usr/bin/python3), and the named error of a covariance that is not
// positive definite.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "panoramix/error.hpp"
#include "panoramix/matern.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

TEST(MaternFit, LogLikelihoodEqualsScikitLearn) {
  if (!have_program("/usr/bin/python3")) GTEST_SKIP() << "/usr/bin/python3 is absent";
  temp_dir d;
  const int64_t n = 60;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 4);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> px(n), py(n), y(n), h(n * n);
  {
    std::ofstream pts(d.path("pts.txt")), ys(d.path("y.txt"));
    pts.precision(17), ys.precision(17);
    for (int64_t i = 0; i < n; ++i) {
      px[i] = u(rng), py[i] = u(rng), y[i] = z(rng) + std::sin(px[i]);
      pts << px[i] << " " << py[i] << "\n";
      ys << y[i] << "\n";
    }
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) h[i * n + j] = std::hypot(px[i] - px[j], py[i] - py[j]);
  const struct { double s2, rho, nu, s2e; } cases[] = {{1.3, 0.8, 0.5, 0.4}, {0.7, 1.7, 1.5, 0.2}, {2.0, 0.5, 2.5, 1.0},
                                                      {1.0, 1.2, 0.73, 0.3}};
  for (const auto& c : cases) {
    char args[256];
    std::snprintf(args, sizeof args, " %.17g %.17g %.17g %.17g", c.s2, c.rho, c.nu, c.s2e);
    ASSERT_EQ(run("/usr/bin/python3 " + shq(std::string(PMX_SOURCE_DIR) + "/matern_sklearn_oracle.py") + " " +
                      d.path("pts.txt") + " " + d.path("y.txt") + args,
                  d.path("sk.txt")),
              0)
        << read_text(d.path("sk.txt"));
    const double want = std::stod(read_text(d.path("sk.txt")));
    const matern_likelihood L = matern_log_likelihood(executor(backend::cpu, 2), h.data(), n, y.data(), nullptr, 0,
                                                      {c.s2, c.rho, c.nu}, c.s2e);
    EXPECT_NEAR(L.ml, want, 1e-9 * std::fabs(want)) << c.nu;
  }
}

TEST(MaternFit, NotPositiveDefiniteIsNamed) {
  // Two samples at distance 0 and no residual variance: V is singular.
  const double h[4] = {0, 0, 0, 0}, y[2] = {1, 2};
  EXPECT_THROW(matern_log_likelihood(executor(backend::cpu, 1), h, 2, y, nullptr, 0, {1, 1, 0.5}, 0.0), numeric_error);
}

}  // namespace
}  // namespace pmx::test
