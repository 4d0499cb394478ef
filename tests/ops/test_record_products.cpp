// record_products on the reference and cpu backends: every case of record_products_cases.hpp, and
// the cpu's bits independent of the thread count.
#include <gtest/gtest.h>

#include "record_products_cases.hpp"

namespace pmx {
namespace {

namespace cases = record_products_cases;

TEST(RecordProducts, ReferenceEveryCase) { cases::every_case(executor::reference()); }

TEST(RecordProducts, CpuEveryCase) { cases::every_case(executor(backend::cpu, 3)); }

TEST(RecordProducts, CpuSameBitsForAnyThreadCount) {
  const cases::records r = cases::random_records(60000, 15000, 3, 99);
  const auto one = cases::check_case(executor(backend::cpu, 1), r, 3);
  for (int threads : {2, 5}) EXPECT_EQ(cases::check_case(executor(backend::cpu, threads), r, 3), one) << threads;
}

}  // namespace
}  // namespace pmx
