// dense_linalg on the reference backend (textbook loops) and the cpu backend (LAPACK/BLAS), both
// against the independent oracles of dense_linalg_cases.hpp, cpu also against the reference.
#include <gtest/gtest.h>

#include "dense_linalg_cases.hpp"

using namespace pmx;
namespace cases = pmx::dense_linalg_cases;

TEST(DenseLinalg, ReferenceCholeskyMatchesLongDoubleElimination) { cases::cholesky_cases(executor::reference()); }
TEST(DenseLinalg, ReferenceShiftedCholesky) { cases::shifted_cholesky_cases(executor::reference()); }
TEST(DenseLinalg, ReferenceEigenpairsOfKnownSpectra) { cases::eigen_cases(executor::reference()); }
TEST(DenseLinalg, ReferenceOrthonormalize) { cases::orthonormalize_cases(executor::reference()); }
TEST(DenseLinalg, ReferenceGemmMatchesLongDouble) { cases::gemm_cases(executor::reference()); }

TEST(DenseLinalg, CpuMatchesOraclesAndReference) {
  cases::every_case(executor(backend::cpu, 2));
  if (HasFatalFailure()) return;
  cases::every_case(executor(backend::cpu, 1));
}

TEST(DenseLinalg, InvalidArguments) {
  for (const executor& e : {executor::reference(), executor(backend::cpu, 1)}) {
    std::vector<double> A = {2, 0, 0, 2}, b = {1, 1}, w(2);
    EXPECT_THROW(cholesky_solve(e, 2, A.data(), 1, 1, b.data(), 2), pmx::error);
    EXPECT_THROW(symmetric_eigen(e, 2, A.data(), 2, 3, w.data(), nullptr, 2), pmx::error);
    EXPECT_THROW(orthonormalize(e, 1, 2, A.data(), 1), pmx::error);
    EXPECT_EQ(cholesky_solve(e, 0, nullptr, 1, 0, nullptr, 1), 0.0);
  }
}
