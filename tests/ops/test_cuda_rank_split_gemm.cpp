// The rank-split genotype products on GPUs, one per rank (NCCL sums for device memory): alone
// by ctest's discovery, and under `mpirun -np 2` on a machine with two GPUs (mpi.* tests,
// tests/CMakeLists.txt). Oracle: the reference backend on the whole matrix
// (rank_split_gemm_cases.hpp).
#include "rank_split_gemm_cases.hpp"

namespace pmx {
namespace {

TEST(CudaRankSplitGemm, MatchesReferenceInHostAndDeviceMemory) {
  // Every rank skips together (the same machine answers the same).
  PMX_REQUIRE_GPU();
  executor gpu(backend::cuda, 2);
  gpu.set_communicator(communicator::world());
  uint64_t seed = 31;
  for (const auto& s : rank_split_cases::shapes()) {
    rank_split_cases::check(gpu, s, true, seed);
    rank_split_cases::check(gpu, s, false, seed++);
  }
}

}  // namespace
}  // namespace pmx
