// sample_sums (the GRM's accumulator op): the reference backend against sums written out from the
// dosages, the cpu backend against the reference, on every case of sample_sums_cases.hpp.
#include <gtest/gtest.h>

#include "panoramix/error.hpp"
#include "sample_sums_cases.hpp"

using namespace pmx;
namespace cases = pmx::sample_sums_cases;

TEST(SampleSums, ReferenceMatchesNaiveSums) {
  for (const cases::blocks& b : cases::every_case())
    for (unsigned which : cases::output_sets) {
      std::string residence;
      const cases::outputs got = cases::run(executor::reference(), b, which, 1, &residence);
      EXPECT_EQ(residence, "host");
      cases::expect_sums(cases::naive(b), got, b, which, "reference: " + cases::describe(b, which));
      if (HasFatalFailure()) return;
    }
}

TEST(SampleSums, CpuMatchesReference) {
  cases::every_case_matches_reference(executor(backend::cpu, 2));
  if (HasFatalFailure()) return;
  cases::every_case_matches_reference(executor(backend::cpu, 1));
}

TEST(SampleSums, UninitialisedOutputsAreZeroedFirst) {
  cases::uninitialised_outputs_are_zeroed_first(executor::reference());
  if (HasFatalFailure()) return;
  cases::uninitialised_outputs_are_zeroed_first(executor(backend::cpu, 2));
}

TEST(SampleSums, RejectsMismatchedInput) {
  for (const executor& e : {executor::reference(), executor(backend::cpu, 1)}) {
    std::vector<int32_t> S(16);
    sample_sums s(e, 4, {.S = S.data(), .ld = 4});
    const auto g = test::random_genotypes(5, 3, 0.0, 1);
    EXPECT_THROW(s.add(g.view(), {}, {}), pmx::error);
    EXPECT_THROW(sample_sums(e, 4, {.S = S.data(), .ld = 3}), pmx::error);
    EXPECT_THROW(sample_sums(e, 4, {.ld = 4}), pmx::error);  // nothing to compute
    std::vector<double> C(16);
    sample_sums c(e, 4, {.C = C.data(), .ld = 4});
    const auto g4 = test::random_genotypes(4, 3, 0.0, 1);
    EXPECT_THROW(c.add(g4.view(), {}, {}), pmx::error);  // no C tables
  }
}

TEST(SampleSums, GaussianKernelMatchesDefinition) {
  cases::gaussian_kernel_matches_definition(executor::reference(), executor::reference());
  cases::gaussian_kernel_matches_definition(executor(backend::cpu, 2), executor(backend::cpu, 2));
}
