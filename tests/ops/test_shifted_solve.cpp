// shifted_solve on the reference backend (against closed forms) and the cpu backend (against the
// closed forms and the reference), on every case of shifted_solve_cases.hpp.
#include <gtest/gtest.h>

#include "shifted_solve_cases.hpp"

using namespace pmx;

TEST(ShiftedSolve, ReferenceMatchesClosedForms) { shifted_solve_cases::every_case(executor::reference()); }

TEST(ShiftedSolve, CpuMatchesClosedFormsAndReference) {
  shifted_solve_cases::every_case(executor(backend::cpu, 2));
  if (HasFatalFailure()) return;
  shifted_solve_cases::every_case(executor(backend::cpu, 1));
}

TEST(ShiftedSolve, EmptyAndInvalidArguments) {
  for (const executor& e : {executor::reference(), executor(backend::cpu, 1)}) {
    const shifted_operand empty(e, 0, nullptr, 1);
    EXPECT_EQ(shifted_cholesky_solve(empty, 0.5, 0.5, 2, nullptr, 1), 0.0);
    shifted_multiply(empty, 0.5, 0.5, 2, nullptr, 1, nullptr, 1);
    std::vector<double> A = {2, 0, 0, 2}, B = {1, 1};
    EXPECT_THROW(shifted_operand(e, 2, A.data(), 1), pmx::error);  // lda < n
    const shifted_operand op(e, 2, A.data(), 2);
    EXPECT_THROW(shifted_cholesky_solve(op, 1, 0, 1, B.data(), 1), pmx::error);  // ldb < n
    EXPECT_THROW(shifted_cholesky_solve(op, 1, 0, -1, B.data(), 2), pmx::error);
  }
}
