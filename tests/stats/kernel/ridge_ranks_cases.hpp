// Kernel ridge regression over ranks (solve_kernel_ridge's over_ranks form), shared by the cpu test
// (ScaLAPACK in FP64, the low precisions falling back to it) and the cuda one (the tile Cholesky
// over ranks, one GPU per rank). Every rank builds the same Gaussian kernel of clustered points
// from one seed and passes its tile-cyclic columns; the oracle is LAPACK's dense solve of the
// whole system on one process, the solution must agree within what its backward error and the
// matrix's condition number allow, the backward error (recomputed here on the whole matrix) must
// meet the asked accuracy, and every rank must hold the same bits. Shapes: a rank count above the
// tile count (ranks without columns), orders no tile divides, several tiles per rank.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "panoramix/communicator.hpp"
#include "panoramix/error.hpp"
#include "panoramix/kernel_ridge.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/tile_cholesky.hpp"

namespace pmx::ridge_ranks_cases {

// An executor whose ops work across every rank of this launch.
inline executor on_world(backend b, int threads) {
  executor e(b, threads);
  e.set_communicator(communicator::world());
  return e;
}

struct shape {
  int64_t n, traits, tile;
};

inline std::vector<shape> shapes() { return {{20, 2, 16}, {97, 3, 16}, {300, 4, 32}, {1000, 5, 64}}; }

// K_ij = exp(−γ ‖x_i − x_j‖²) of points in 8 clusters (samples sorted by cluster: tiles between
// clusters are small, so the adaptive rule picks low precisions); Y n × traits.
inline void make(int64_t n, int64_t traits, uint64_t seed, std::vector<double>& K, std::vector<double>& Y) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  const int d = 4;
  std::vector<double> centre(8 * d), x(static_cast<size_t>(n * d));
  for (auto& c : centre) c = 3 * z(rng);
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) x[i * d + k] = centre[(i * 8 / n) * d + k] + 0.5 * z(rng);
  K.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double s = 0;
      for (int k = 0; k < d; ++k) s += (x[i * d + k] - x[j * d + k]) * (x[i * d + k] - x[j * d + k]);
      K[i * n + j] = K[j * n + i] = std::exp(-0.25 * s);
    }
  Y.resize(static_cast<size_t>(n * traits));
  for (auto& y : Y) y = z(rng);
}

// This rank's columns of the symmetric n × n K in the tile-cyclic layout (column-major, ld n).
inline std::vector<double> my_columns(const std::vector<double>& K, int64_t n, int64_t tile, const communicator& c) {
  std::vector<double> out;
  for (int64_t j = c.rank(); j * tile < n; j += c.size())
    for (int64_t col = j * tile; col < std::min(n, (j + 1) * tile); ++col)
      out.insert(out.end(), K.begin() + col * n, K.begin() + (col + 1) * n);
  EXPECT_EQ(static_cast<int64_t>(out.size()), n * tile_cyclic_width(n, tile, c.rank(), c.size()));
  return out;
}

// Every rank holds the same bytes as rank 0.
inline bool same_on_every_rank(const communicator& c, const double* x, int64_t count) {
  std::vector<double> zero(x, x + count);
  c.broadcast(zero.data(), count * int64_t(sizeof(double)), 0);
  double differ = std::memcmp(zero.data(), x, sizeof(double) * size_t(count)) != 0;
  c.max(&differ, 1);
  return differ == 0;
}

// λmax / λmin of K + αI (LAPACK, one process).
inline double condition(const std::vector<double>& K, int64_t n, double alpha) {
  std::vector<double> A = K, values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) A[i * n + i] += alpha;
  symmetric_eigen(executor(backend::cpu, 1), n, A.data(), n, n, values.data(), nullptr, n);
  return values.front() / values.back();
}

// One solve over the ranks of exec against the oracle. `low_precision_runs`: whether fp32/adaptive
// should run as asked (cuda) or fall back to FP64 (cpu).
inline void check(const executor& exec, const shape& s, solve_precision p, bool low_precision_runs, uint64_t seed) {
  const communicator& c = exec.comm();
  SCOPED_TRACE("n " + std::to_string(s.n) + ", tile " + std::to_string(s.tile) + ", " + solve_precision_name(p) +
               ", " + std::to_string(c.size()) + " ranks");
  std::vector<double> K, Y;
  make(s.n, s.traits, seed, K, Y);
  const double alpha = 0.05;
  std::vector<double> A = K, W1 = Y;  // the oracle
  for (int64_t i = 0; i < s.n; ++i) A[i * s.n + i] += alpha;
  cholesky_solve(executor(backend::cpu, 1), s.n, A.data(), s.n, s.traits, W1.data(), s.n);
  const std::vector<double> mine = my_columns(K, s.n, s.tile, c);
  kernel_ridge_options o;
  o.precision = p;
  o.tile = s.tile;
  o.accuracy = 1e-10;
  o.tile_accuracy = 1e-3;
  const kernel_ridge_solution sol =
      solve_kernel_ridge(exec, over_ranks, s.n, mine.empty() ? nullptr : mine.data(), alpha, s.traits, Y.data(), o);
  EXPECT_TRUE(same_on_every_rank(c, sol.W.data(), s.n * s.traits));
  if (p == solve_precision::fp64 || low_precision_runs) {
    EXPECT_EQ(sol.used, p) << sol.fallback;
    EXPECT_EQ(sol.fallback, "");
  } else {
    EXPECT_EQ(sol.used, solve_precision::fp64);
    EXPECT_NE(sol.fallback.find("runs on GPUs"), std::string::npos) << sol.fallback;
  }
  const executor one(backend::cpu, 1);
  const double be = kernel_ridge_backward_error(one, s.n, K.data(), alpha, s.traits, sol.W.data(), Y.data());
  EXPECT_LE(be, sol.used == solve_precision::fp64 ? 1e-13 : o.accuracy);
  EXPECT_NEAR(be, sol.backward_error, 1e-3 * be + 1e-14);  // residuals near rounding differ by their noise
  // Forward error: at most about κ times the backward error (with √n for the norms' change).
  const double bound = 4 * condition(K, s.n, alpha) * std::sqrt(double(s.n)) * std::max(be, 1e-16);
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < s.n * s.traits; ++i)
    worst = std::max(worst, std::fabs(sol.W[i] - W1[i])), scale = std::max(scale, std::fabs(W1[i]));
  EXPECT_LE(worst / scale, bound) << "bound " << bound;
  // The precision map over ranks is the one of the whole matrix.
  if (p == solve_precision::adaptive && sol.used == p) {
    const tile_precision_map whole = choose_tile_precisions(one, K.data(), s.n, s.n, alpha, s.tile, o.tile_accuracy);
    EXPECT_EQ(whole.p, sol.map.p);
  }
}

// Width of the layout over the ranks adds to n; the map over ranks equals the whole matrix's.
inline void check_layout_and_map(const executor& exec) {
  const communicator& c = exec.comm();
  for (const shape& s : shapes()) {
    double width = static_cast<double>(tile_cyclic_width(s.n, s.tile, c.rank(), c.size()));
    c.sum(&width, 1);
    EXPECT_EQ(width, double(s.n));
    std::vector<double> K, Y;
    make(s.n, 1, 3, K, Y);
    const std::vector<double> mine = my_columns(K, s.n, s.tile, c);
    const tile_precision_map over = choose_tile_precisions(exec, over_ranks, mine.empty() ? nullptr : mine.data(), s.n,
                                                           s.n, 0.05, s.tile, 1e-3);
    const tile_precision_map whole =
        choose_tile_precisions(executor(backend::cpu, 1), K.data(), s.n, s.n, 0.05, s.tile, 1e-3);
    EXPECT_EQ(over.p, whole.p) << "n " << s.n;
  }
}

// K + αI not positive definite: every rank throws numeric_error (none waits in a collective).
inline void check_not_positive_definite(const executor& exec, solve_precision p) {
  const communicator& c = exec.comm();
  const int64_t n = 40, tile = 16;
  std::vector<double> K(static_cast<size_t>(n * n), 0.0), Y(static_cast<size_t>(n), 1.0);
  for (int64_t i = 0; i < n; ++i) K[i * n + i] = i == 33 ? -2.0 : 1.0;  // one negative pivot, in the last tile
  const std::vector<double> mine = my_columns(K, n, tile, c);
  kernel_ridge_options o;
  o.precision = p;
  o.tile = tile;
  EXPECT_THROW(solve_kernel_ridge(exec, over_ranks, n, mine.empty() ? nullptr : mine.data(), 0.5, 1, Y.data(), o),
               numeric_error);
  c.barrier();
}

}  // namespace pmx::ridge_ranks_cases
