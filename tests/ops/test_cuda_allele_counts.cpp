// allele_counts on cuda against the reference backend: every case of allele_counts_cases.hpp,
// device memory budgets so small that the rows go up in many pieces and the counts come down in
// many chunks, and a budget too small for one row (unsupported_error).
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <string>

#include "allele_counts_cases.hpp"
#include "panoramix/error.hpp"

using namespace pmx;

TEST(CudaAlleleCounts, EveryCaseMatchesReference) {
  PMX_REQUIRE_GPU();
  allele_counts_cases::every_case(executor(backend::cuda, 2));
}

TEST(CudaAlleleCounts, SmallBudgetsUploadInPiecesAndMatchReference) {
  PMX_REQUIRE_GPU();
  for (int64_t n : {int64_t{33}, int64_t{1000}, int64_t{20000}}) {
    const int64_t k = 3001;
    const auto g = test::random_genotypes(n, k, 0.05, n + 3);
    const auto ms = allele_counts_cases::masks(n);
    for (int64_t budget : {int64_t{0}, int64_t{64} << 10, int64_t{16} << 10, int64_t{8} << 10}) {
      executor gpu(backend::cuda, 2);
      if (budget) gpu.set_device_memory_budget(budget);
      const std::string what = "n = " + std::to_string(n) + ", budget " + std::to_string(budget);
      if (budget && 3 * 4 * ((n + 15) / 16) + 16 > budget) {  // two one-row pieces, the mask and one count
        std::vector<variant_counts> c(static_cast<size_t>(k));
        EXPECT_THROW(allele_counts(gpu, g.view(), {}, c), unsupported_error) << what;
        continue;
      }
      allele_counts_cases::expect_matches_reference(gpu, g.view(), {}, what);
      allele_counts_cases::expect_matches_reference(gpu, g.view(), ms[1], what + ", masked");
    }
  }
}

TEST(CudaAlleleCounts, NoSamplesOrNoVariants) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 2);
  const packed_genotypes none(0, 4), empty(7, 0);
  std::vector<variant_counts> c(4, variant_counts{1, 1, 1, 1});
  allele_counts(gpu, none.view(), {}, c);
  for (const auto& x : c) EXPECT_EQ(x, variant_counts{});
  std::vector<variant_counts> z;
  allele_counts(gpu, empty.view(), {}, z);
}
