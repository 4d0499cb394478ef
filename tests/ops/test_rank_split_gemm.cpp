// Genotype × dense products on operands split by samples over the ranks of the run: run alone
// (one rank: the split operand is the whole matrix) by ctest's discovery, and under
// `mpirun -np 2..4` by the mpi.* tests (tests/CMakeLists.txt). Oracle: the reference backend on
// the whole matrix (rank_split_gemm_cases.hpp).
#include "rank_split_gemm_cases.hpp"

namespace pmx {
namespace {

executor on_world(backend kind, int threads) {
  executor e(kind, threads);
  e.set_communicator(communicator::world());
  return e;
}

TEST(RankSplitGemm, CpuMatchesReferenceOnTheWholeMatrix) {
  const executor cpu = on_world(backend::cpu, 2);
  uint64_t seed = 5;
  for (const auto& s : rank_split_cases::shapes()) rank_split_cases::check(cpu, s, false, seed++);
}

TEST(RankSplitGemm, ReferenceBackendSplitMatchesItsWholeMatrix) {
  const executor ref = on_world(backend::reference, 1);
  rank_split_cases::check(ref, {203, 57, 4, 0.1, 0.5}, false, 17);
}

TEST(RankSplitGemm, OperandOfEverySampleIsNotSummed) {
  // operand_samples::all on every rank: each computes the whole product alone (no sum over ranks).
  const executor cpu = on_world(backend::cpu, 1);
  const gemm_cases::data d = gemm_cases::make(101, 23, 2, 0.05, true, false, 3);
  const gemm_centring c{d.p, d.s};
  std::vector<double> alone(static_cast<size_t>(d.k * 2)), whole(alone.size());
  gemm_transposed(executor(backend::cpu, 1), d.g.view(), c, 2, d.lambda_t.data(), d.ld_b, 0.0, alone.data(), 2);
  gemm_operand op(cpu, d.g.view());
  EXPECT_FALSE(op.summed_over_ranks());
  gemm_transposed(op, c, 2, d.lambda_t.data(), d.ld_b, 0.0, whole.data(), 2);
  EXPECT_EQ(std::memcmp(alone.data(), whole.data(), alone.size() * sizeof(double)), 0);
}

}  // namespace
}  // namespace pmx
