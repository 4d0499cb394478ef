// Kernel ridge regression over ranks on CPUs: alone (ctest's discovery) and under `mpirun -np
// 2..4` (mpi.* tests): FP64 through ScaLAPACK on the tile-cyclic columns, the low precisions
// falling back to it with the reason recorded (the tile Cholesky over ranks is the GPUs'), against
// LAPACK on the whole matrix (ridge_ranks_cases.hpp).
#include "ridge_ranks_cases.hpp"

#include "panoramix/ops/distributed_cholesky.hpp"

namespace pmx {
namespace {

bool scalapack_missing() { return communicator::world().distributed() && !distributed_cholesky_compiled_in(); }

TEST(KernelRidgeRanks, MatchesTheDenseSolveOnOneProcess) {
  if (scalapack_missing()) GTEST_SKIP() << "this build has no ScaLAPACK (Debian: libscalapack-openmpi-dev)";
  const executor exec = ridge_ranks_cases::on_world(backend::cpu, 1);
  const bool alone = !exec.comm().distributed();  // alone, the low precisions run on the cpu backend
  uint64_t seed = 11;
  for (const auto& s : ridge_ranks_cases::shapes()) {
    ridge_ranks_cases::check(exec, s, solve_precision::fp64, alone, seed);
    ridge_ranks_cases::check(exec, s, solve_precision::adaptive, alone, seed++);
  }
}

TEST(KernelRidgeRanks, LayoutAndPrecisionMapOfTheWholeMatrix) {
  const executor exec = ridge_ranks_cases::on_world(backend::cpu, 1);
  ridge_ranks_cases::check_layout_and_map(exec);
  if (exec.comm().distributed()) {  // the tile factor over ranks is the GPUs'
    const int64_t n = 64, tile = 16;
    std::vector<double> K, Y;
    ridge_ranks_cases::make(n, 1, 5, K, Y);
    const std::vector<double> mine = ridge_ranks_cases::my_columns(K, n, tile, exec.comm());
    EXPECT_THROW(tile_cholesky(exec, over_ranks, n, mine.data(), n, 0.1, tile_precision_map::uniform(n, tile)),
                 unsupported_error);
  }
}

TEST(KernelRidgeRanks, NotPositiveDefiniteThrowsOnEveryRank) {
  if (scalapack_missing()) GTEST_SKIP() << "this build has no ScaLAPACK (Debian: libscalapack-openmpi-dev)";
  const executor exec = ridge_ranks_cases::on_world(backend::cpu, 1);
  ridge_ranks_cases::check_not_positive_definite(exec, solve_precision::fp64);
  ridge_ranks_cases::check_not_positive_definite(exec, solve_precision::adaptive);
}

}  // namespace
}  // namespace pmx
