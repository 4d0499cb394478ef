// ldl_sweeps: the reference backend against known solutions (b = A x made by multiplying through
// the factor), the cpu backend against the reference bit for bit on 1 and 3 threads, input errors.
#include <gtest/gtest.h>

#include "ldl_sweeps_cases.hpp"
#include "panoramix/error.hpp"

using namespace pmx;
namespace cases = pmx::ldl_sweeps_cases;

TEST(LdlSweeps, ReferenceSolvesKnownSystems) { cases::reference_solves_known_systems(); }

TEST(LdlSweeps, CpuMatchesReferenceBitForBit) {
  for (int threads : {1, 3})
    cases::matches_reference(executor(backend::cpu, threads), true,
                             [](const ldl_sweeps& s, int64_t t, std::vector<double>& W) { ldl_solve_permuted(s, t, W.data()); });
}

TEST(LdlSweeps, CopiedScheduleSolvesAlike) {
  const cases::factor f = cases::make(3000, cases::shape::pedigree, 9);
  const ldl_sweeps a(executor(backend::cpu, 2), f.view());
  const ldl_sweeps b(executor::reference(), a);
  EXPECT_EQ(a.perm(), b.perm());
  std::vector<double> Wa(f.n * 2, 0.5), Wb = Wa;
  ldl_solve_permuted(a, 2, Wa.data());
  ldl_solve_permuted(b, 2, Wb.data());
  EXPECT_EQ(Wa, Wb);
}

TEST(LdlSweeps, RejectsMalformedFactors) {
  cases::factor f = cases::make(20, cases::shape::pedigree, 3);
  f.row[f.p[4]] = 5;  // column 4 not starting with its diagonal
  EXPECT_THROW(ldl_sweeps(executor::reference(), f.view()), pmx::error);
  f = cases::make(20, cases::shape::chain, 3);
  f.row[f.p[4] + 1] = 2;  // an entry above the diagonal
  EXPECT_THROW(ldl_sweeps(executor::reference(), f.view()), pmx::error);
  f = cases::make(20, cases::shape::chain, 3);
  const ldl_sweeps s(executor::reference(), f.view());
  EXPECT_THROW(ldl_solve_permuted(s, -1, nullptr), pmx::error);
  EXPECT_THROW(ldl_solve_permuted(s, 1, nullptr), pmx::error);
}
