// sparse_product on the reference backend and the cpu backend, both against the long-double
// product and cpu against the reference, on every case of sparse_product_cases.hpp.
#include <gtest/gtest.h>

#include "panoramix/error.hpp"
#include "sparse_product_cases.hpp"

using namespace pmx;
namespace cases = pmx::sparse_product_cases;

TEST(SparseProduct, ReferenceMatchesLongDoubleProduct) { cases::every_case(executor::reference()); }

TEST(SparseProduct, CpuMatchesLongDoubleProductAndReference) {
  cases::every_case(executor(backend::cpu, 2));
  cases::every_case(executor(backend::cpu, 1));
}

TEST(SparseProduct, CpuDoesNotDependOnTheThreadCount) {
  const cases::csr_matrix a = cases::random_symmetric(60000, 4, 3);
  for (int64_t t : {int64_t{1}, int64_t{3}}) {
    const auto X = cases::random_block(a.n, t, 5);
    std::vector<double> y1(X.size()), y4(X.size());
    sparse_multiply(sparse_operand(executor(backend::cpu, 1), a.narrow()), t, X.data(), y1.data());
    sparse_multiply(sparse_operand(executor(backend::cpu, 4), a.narrow()), t, X.data(), y4.data());
    EXPECT_EQ(y1, y4) << "t = " << t;
  }
}

TEST(SparseProduct, EmptyAndInvalidArguments) {
  for (const executor& e : {executor::reference(), executor(backend::cpu, 1)}) {
    const sparse_operand empty(e, csr_view{});
    sparse_multiply(empty, 3, nullptr, nullptr);  // nothing to do
    const cases::csr_matrix a = cases::random_symmetric(5, 2, 1);
    csr_view both = a.narrow();
    both.col64 = a.col64.data();
    EXPECT_THROW((sparse_operand(e, both)), pmx::error);
    const sparse_operand s(e, a.narrow());
    std::vector<double> x(5);
    EXPECT_THROW(sparse_multiply(s, -1, x.data(), x.data()), pmx::error);
    EXPECT_THROW(sparse_multiply(s, 1, nullptr, x.data()), pmx::error);
  }
}
