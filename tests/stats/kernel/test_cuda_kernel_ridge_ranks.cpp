// Kernel ridge regression over ranks on GPUs, one per rank: the mixed-precision tile Cholesky
// over ranks (NCCL panels, tile-cyclic columns), alone by ctest's discovery and under `mpirun -np
// 2` on a machine with two GPUs (mpi.* tests), against LAPACK on the whole matrix
// (ridge_ranks_cases.hpp); the factor's residual and norm against the dense ops on the whole
// matrix; K in host and in device memory.
#include "ridge_ranks_cases.hpp"

#include "panoramix/executor_array.hpp"
#include "panoramix/ops/distributed_cholesky.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// Every rank skips together (the same machine answers the same).
#define PMX_REQUIRE_GPU_PER_RANK()                                                                    \
  do {                                                                                                \
    PMX_REQUIRE_GPU();                                                                                \
    if (cuda_device_count() < communicator::world().local_size())                                     \
      GTEST_SKIP() << "one GPU per rank: " << communicator::world().local_size() << " ranks on this host, " \
                   << cuda_device_count() << " GPUs";                                                 \
  } while (0)

TEST(CudaKernelRidgeRanks, LowPrecisionsMatchTheDenseSolve) {
  PMX_REQUIRE_GPU_PER_RANK();
  const executor gpu = ridge_ranks_cases::on_world(backend::cuda, 2);
  uint64_t seed = 11;
  for (const auto& s : ridge_ranks_cases::shapes()) {
    ridge_ranks_cases::check(gpu, s, solve_precision::fp32, true, seed);
    ridge_ranks_cases::check(gpu, s, solve_precision::adaptive, true, seed++);
  }
  if (!gpu.comm().distributed() || distributed_cholesky_compiled_in())
    ridge_ranks_cases::check(gpu, ridge_ranks_cases::shapes()[2], solve_precision::fp64, true, seed);
}

TEST(CudaKernelRidgeRanks, FactorResidualAndNormEqualTheDenseOps) {
  PMX_REQUIRE_GPU_PER_RANK();
  const executor gpu = ridge_ranks_cases::on_world(backend::cuda, 2);
  const communicator& c = gpu.comm();
  const executor one(backend::cpu, 1);
  ridge_ranks_cases::check_layout_and_map(gpu);
  const int64_t n = 1000, tile = 64, t = 3;
  const double alpha = 0.05;
  std::vector<double> K, Y;
  ridge_ranks_cases::make(n, t, 21, K, Y);
  const std::vector<double> mine = ridge_ranks_cases::my_columns(K, n, tile, c);
  executor_array<double> on_device(gpu, mine.size());
  on_device.copy_from_host(mine.data(), 0, mine.size());
  // Every tile FP32 (the low precisions' operands are checked through refinement above).
  const tile_precision_map map = tile_precision_map::uniform(n, tile);
  for (const double* A : {mine.data(), static_cast<const double*>(on_device.data())}) {
    const tile_cholesky f(gpu, over_ranks, n, A, n, alpha, map);
    std::vector<double> R(n * t), R1(n * t), W(Y);
    f.solve(W.data(), n, t);  // the FP32 factor's solve: backward error near its precision
    EXPECT_TRUE(ridge_ranks_cases::same_on_every_rank(c, W.data(), n * t));
    EXPECT_LE(kernel_ridge_backward_error(one, n, K.data(), alpha, t, W.data(), Y.data()), 1e-4);
    f.residual(W.data(), Y.data(), R.data(), t);
    shifted_residual(one, n, K.data(), n, alpha, t, W.data(), Y.data(), R1.data());
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < n * t; ++i) worst = std::max(worst, std::fabs(R[i] - R1[i])), scale = std::max(scale, std::fabs(Y[i]));
    EXPECT_LE(worst / scale, 1e-12);
    EXPECT_NEAR(f.norm_inf(), shifted_norm_inf(one, n, K.data(), n, alpha), 1e-12 * f.norm_inf());
  }
}

TEST(CudaKernelRidgeRanks, NotPositiveDefiniteThrowsOnEveryRank) {
  PMX_REQUIRE_GPU_PER_RANK();
  const executor gpu = ridge_ranks_cases::on_world(backend::cuda, 2);
  if (gpu.comm().distributed() && !distributed_cholesky_compiled_in())
    GTEST_SKIP() << "the FP64 fallback over ranks needs ScaLAPACK (Debian: libscalapack-openmpi-dev)";
  ridge_ranks_cases::check_not_positive_definite(gpu, solve_precision::adaptive);
}

}  // namespace
}  // namespace pmx
