// shifted_solve on cuda (A resident on the device, cuSOLVER per shift) against the closed forms
// and the reference backend: every case of shifted_solve_cases.hpp, then a larger matrix.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include "shifted_solve_cases.hpp"

using namespace pmx;

TEST(CudaShiftedSolve, EveryCaseMatchesClosedFormsAndReference) {
  PMX_REQUIRE_GPU();
  shifted_solve_cases::every_case(executor(backend::cuda, 2));
}

TEST(CudaShiftedSolve, LargerResidentMatrixMatchesClosedFormsAndReference) {
  PMX_REQUIRE_GPU();
  shifted_solve_cases::expect_solves_and_products(executor(backend::cuda, 2),
                                                  shifted_solve_cases::make(300, 3, 3.0, 0.97, 4));
}
