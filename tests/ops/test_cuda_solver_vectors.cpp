// solver_vectors on the cuda backend (device vectors): every case of solver_vectors_cases.hpp,
// and a dot past 4,096² values (three levels of chunk sums) against the long-double sum and the
// cpu's. Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include "solver_vectors_cases.hpp"

namespace pmx {
namespace {

namespace cases = solver_vectors_cases;

TEST(CudaSolverVectors, EveryCase) {
  PMX_REQUIRE_GPU();
  cases::every_case(executor(backend::cuda, 2));
}

TEST(CudaSolverVectors, DotThreeLevelsOfChunkSums) {
  PMX_REQUIRE_GPU();
  cases::check_dot(executor(backend::cuda, 2), 4096LL * 4096 + 4097, 77);
}

}  // namespace
}  // namespace pmx
