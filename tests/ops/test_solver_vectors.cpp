// solver_vectors on the reference and cpu backends: every case of solver_vectors_cases.hpp, and
// the dot products' bits independent of the thread count (PCG's iterations must not depend on it).
#include <gtest/gtest.h>

#include "solver_vectors_cases.hpp"

namespace pmx {
namespace {

namespace cases = solver_vectors_cases;

TEST(SolverVectors, ReferenceEveryCase) { cases::every_case(executor::reference()); }

TEST(SolverVectors, CpuEveryCase) { cases::every_case(executor(backend::cpu, 3)); }

TEST(SolverVectors, CpuDotSameBitsForAnyThreadCount) {
  const int64_t n = 300001;
  const auto a = cases::random_values(n, 5), b = cases::random_values(n, 6);
  const double one = dot(executor(backend::cpu, 1), n, a.data(), b.data());
  for (int threads : {2, 3, 8}) EXPECT_EQ(dot(executor(backend::cpu, threads), n, a.data(), b.data()), one) << threads;
  EXPECT_EQ(dot(executor::reference(), n, a.data(), b.data()), one);
}

}  // namespace
}  // namespace pmx
