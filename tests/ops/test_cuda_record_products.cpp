// record_products on the cuda backend (design and its transpose resident, device vectors): every
// case of record_products_cases.hpp, and a column of more than 4,096 entries (several segments)
// against the long-double products. Every test skips, saying why, when no GPU is visible (or the
// build has no CUDA backend).
#include <gtest/gtest.h>

#include "record_products_cases.hpp"

namespace pmx {
namespace {

namespace cases = record_products_cases;

TEST(CudaRecordProducts, EveryCase) {
  PMX_REQUIRE_GPU();
  cases::every_case(executor(backend::cuda, 2));
}

TEST(CudaRecordProducts, ManySegmentsPerColumnAgreeWithCpu) {
  PMX_REQUIRE_GPU();
  const cases::records r = cases::random_records(300000, 100000, 3, 5);
  const auto gpu = cases::check_case(executor(backend::cuda, 2), r, 11);
  const auto cpu = cases::check_case(executor(backend::cpu, 2), r, 11);
  ASSERT_EQ(gpu.size(), cpu.size());
  double worst = 0, scale = 0;
  for (size_t i = 0; i < gpu.size(); ++i) worst = std::max(worst, std::fabs(gpu[i] - cpu[i])), scale = std::max(scale, std::fabs(cpu[i]));
  EXPECT_LE(worst, 1e-11 * scale);
}

}  // namespace
}  // namespace pmx
