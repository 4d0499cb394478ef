// The Cholesky solve over ranks (ScaLAPACK) alone and under `mpirun -np 2..4` (mpi.* tests): every
// rank builds the same SPD matrix and right-hand sides from one seed, passes its rows_of_rank rows,
// and must get the solution and log det of LAPACK's dense solve on the whole matrix (the oracle,
// on one process) within a tolerance set by the matrix's conditioning; every rank the same X.
// Orders that no rank count divides, a rank count with an empty last rank, several block sizes,
// and a matrix that is not positive definite (every rank throws).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "panoramix/communicator.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/distributed_cholesky.hpp"

namespace pmx {
namespace {

// A = M Mᵀ/n + I/2 (well conditioned), n × n, and B, n × nrhs, the same on every rank.
void make(int64_t n, int64_t nrhs, uint64_t seed, std::vector<double>& A, std::vector<double>& B) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::vector<double> M(static_cast<size_t>(n * n));
  for (auto& x : M) x = z(rng);
  A.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += M[i * n + k] * M[j * n + k];
      A[i * n + j] = A[j * n + i] = s / double(n) + (i == j ? 0.5 : 0.0);
    }
  B.resize(static_cast<size_t>(n * nrhs));
  for (auto& x : B) x = z(rng);
}

executor cpu_on_world() {
  executor e(backend::cpu, 1);
  e.set_communicator(communicator::world());
  return e;
}

TEST(DistributedCholesky, MatchesTheDenseSolveOnOneProcess) {
  const communicator& w = communicator::world();
  if (w.distributed() && !distributed_cholesky_compiled_in())
    GTEST_SKIP() << "this build has no ScaLAPACK (Debian: libscalapack-openmpi-dev)";
  const executor exec = cpu_on_world();
  struct shape { int64_t n, nrhs, block; };
  uint64_t seed = 5;
  for (const shape s : {shape{1, 1, 0}, shape{7, 2, 0}, shape{97, 3, 0}, shape{97, 3, 8}, shape{300, 5, 0},
                        shape{301, 1, 16}, shape{517, 4, 64}}) {
    std::vector<double> A, B;
    make(s.n, s.nrhs, seed++, A, B);
    // The oracle: LAPACK on the whole matrix, this process alone.
    std::vector<double> A1 = A, X1 = B;
    const double logdet1 = cholesky_solve(executor(backend::cpu, 1), s.n, A1.data(), s.n, s.nrhs, X1.data(), s.n);
    const sample_range mine = rows_of_rank(s.n, w.rank(), w.size());
    std::vector<double> rows(A.begin() + mine.first * s.n, A.begin() + (mine.first + mine.count) * s.n);
    rows.resize(std::max<size_t>(rows.size(), 1));
    std::vector<double> X = B;
    const double logdet = distributed_cholesky_solve(exec, s.n, rows.data(), s.nrhs, X.data(), s.block);
    // κ(A) is below ~20 here: 1e-12 relative leaves two orders of margin over rounding.
    double worst = 0, scale = 0;
    for (size_t i = 0; i < X.size(); ++i) worst = std::max(worst, std::fabs(X[i] - X1[i])), scale = std::max(scale, std::fabs(X1[i]));
    EXPECT_LE(worst, 1e-12 * scale) << "n " << s.n << " block " << s.block << " ranks " << w.size();
    EXPECT_NEAR(logdet, logdet1, 1e-11 * std::fabs(logdet1) + 1e-12) << "n " << s.n;
    // Every rank holds the same X.
    std::vector<double> first(X.size());
    if (w.rank() == 0) first = X;
    w.broadcast(first.data(), static_cast<int64_t>(first.size() * sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(first.data(), X.data(), X.size() * sizeof(double)), 0);
  }
}

TEST(DistributedCholesky, NotPositiveDefiniteThrowsOnEveryRank) {
  const communicator& w = communicator::world();
  if (w.distributed() && !distributed_cholesky_compiled_in())
    GTEST_SKIP() << "this build has no ScaLAPACK (Debian: libscalapack-openmpi-dev)";
  const int64_t n = 50;
  std::vector<double> A, B;
  make(n, 1, 99, A, B);
  A[30 * n + 30] = -5.0;  // a negative pivot on the diagonal
  const sample_range mine = rows_of_rank(n, w.rank(), w.size());
  std::vector<double> rows(A.begin() + mine.first * n, A.begin() + (mine.first + mine.count) * n);
  rows.resize(std::max<size_t>(rows.size(), 1));
  EXPECT_THROW(distributed_cholesky_solve(cpu_on_world(), n, rows.data(), 1, B.data()), numeric_error);
}

TEST(RowsOfRank, BlocksOfTheCeilingInRankOrder) {
  for (int64_t n : {0, 1, 7, 300, 301}) {
    for (int P : {1, 2, 3, 4, 7}) {
      int64_t next = 0;
      const int64_t block = (n + P - 1) / P;
      for (int r = 0; r < P; ++r) {
        const sample_range s = rows_of_rank(n, r, P);
        EXPECT_EQ(s.first, next) << n << " " << P << " " << r;
        EXPECT_LE(s.count, block);
        if (s.first + block <= n) {
          EXPECT_EQ(s.count, block);
        }
        next = s.first + s.count;
      }
      EXPECT_EQ(next, n) << n << " " << P;
    }
  }
}

}  // namespace
}  // namespace pmx
