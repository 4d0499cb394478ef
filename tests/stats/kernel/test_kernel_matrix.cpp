// Kernel matrices (kernel_matrix.hpp) against a long-double evaluation of the definitions on the
// decoded, mean-imputed dosages: Gaussian (with covariates) and IBS, training × training and
// TEST × training (frequencies from the training samples only), on every cpu-side backend.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "panoramix/concatenated_samples.hpp"
#include "panoramix/error.hpp"
#include "panoramix/kernel_matrix.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

struct imputed {
  std::vector<long double> g;  // samples × variants, row-major
  int64_t n = 0, m = 0;
};

// Frequencies over the training genotypes' calls (0.5 where a variant has none).
std::vector<double> train_frequencies(const packed_genotypes& train) {
  std::vector<double> p(train.n_variants());
  for (int64_t l = 0; l < train.n_variants(); ++l) {
    int64_t sum = 0, called = 0;
    for (int64_t i = 0; i < train.n_samples(); ++i)
      if (const int d = dosage(train, i, l); d >= 0) sum += d, ++called;
    p[l] = called ? double(sum) / double(2 * called) : 0.5;
  }
  return p;
}

imputed impute(const std::vector<const packed_genotypes*>& sets, const std::vector<double>& p) {
  imputed x;
  x.m = static_cast<int64_t>(p.size());
  for (const auto* s : sets)
    for (int64_t i = 0; i < s->n_samples(); ++i, ++x.n)
      for (int64_t l = 0; l < x.m; ++l) {
        const int d = dosage(*s, i, l);
        x.g.push_back(d >= 0 ? (long double)d : 2.0L * (long double)p[l]);
      }
  return x;
}

long double kernel_value(const imputed& x, kernel_type type, long double gamma, const std::vector<double>& cov,
                         int64_t nc, int64_t i, int64_t j) {
  long double s = 0;
  for (int64_t l = 0; l < x.m; ++l) {
    const long double e = x.g[i * x.m + l] - x.g[j * x.m + l];
    s += type == kernel_type::gaussian ? e * e : 2 - fabsl(e);
  }
  if (type == kernel_type::ibs) return s / (2.0L * x.m);
  for (int64_t k = 0; k < nc; ++k) {
    const long double e = (long double)cov[i * nc + k] - (long double)cov[j * nc + k];
    s += e * e;
  }
  return expl(-gamma * s);
}

void check_kernels(const executor& exec, kernel_type type, double missing, int64_t nc) {
  const int64_t n1 = 45, n2 = 13, m = 333;
  const packed_genotypes train = random_genotypes(n1, m, missing, 5, true);
  const packed_genotypes test = random_genotypes(n2, m, missing, 6, false);
  const std::vector<double> p = train_frequencies(train);
  const imputed x = impute({&train, &test}, p);
  std::vector<double> cov(static_cast<size_t>((n1 + n2) * nc));
  for (size_t k = 0; k < cov.size(); ++k) cov[k] = std::sin(0.37 * double(k)) * 1.5;
  // γ so that the kernel spans a useful range: 1 / mean distance.
  long double mean = 0;
  for (int64_t i = 0; i < n1; ++i)
    for (int64_t l = 0; l < m; ++l) mean += (x.g[i * m + l] - x.g[((i + 1) % n1) * m + l]) * (x.g[i * m + l] - x.g[((i + 1) % n1) * m + l]);
  const double gamma = double(n1 / mean);

  const memory_genotypes a(train.view()), b(test.view());
  const concatenated_samples both(a, b);
  const genotype_gram g = compute_genotype_gram(exec, both, type, p, nullptr);
  std::vector<int64_t> train_rows(n1), test_rows(n2);
  for (int64_t i = 0; i < n1; ++i) train_rows[i] = i;
  for (int64_t i = 0; i < n2; ++i) test_rows[i] = n1 + i;
  std::vector<double> K(n1 * n1), Kc(n2 * n1);
  kernel_block(g, gamma, nc ? cov.data() : nullptr, nc, train_rows, train_rows, K.data(), n1, 2);
  kernel_block(g, gamma, nc ? cov.data() : nullptr, nc, test_rows, train_rows, Kc.data(), n1, 2);
  double worst = 0, smallest = 1;
  for (int64_t i = 0; i < n1 + n2; ++i)
    for (int64_t j = 0; j < n1; ++j) {
      const long double want = kernel_value(x, type, gamma, cov, nc, i, j);
      const double got = i < n1 ? K[i * n1 + j] : Kc[(i - n1) * n1 + j];
      worst = std::max(worst, double(fabsl(got - want) / fabsl(want)));
      smallest = std::min(smallest, double(want));
    }
  EXPECT_LE(worst, 1e-13) << kernel_name(type) << " missing " << missing << " covariates " << nc;
  EXPECT_LT(smallest, 0.9) << "the kernel should not be trivially close to 1";
}

TEST(KernelMatrix, GaussianEqualsLongDoubleDefinition) {
  for (const executor& exec : {executor::reference(), executor(backend::cpu, 2)})
    for (double missing : {0.0, 0.07})
      for (int64_t nc : {0, 3}) check_kernels(exec, kernel_type::gaussian, missing, nc);
}

TEST(KernelMatrix, IbsEqualsDirectCount) {
  for (const executor& exec : {executor::reference(), executor(backend::cpu, 2)})
    for (double missing : {0.0, 0.07}) check_kernels(exec, kernel_type::ibs, missing, 0);
}

TEST(KernelMatrix, MonomorphicTrainingIsRefused) {
  packed_genotypes g(10, 4);
  for (int64_t i = 0; i < 10; ++i)
    for (int64_t l = 0; l < 4; ++l) g.set(i, l, code_hom_a1);
  const memory_genotypes a(g.view());
  const std::vector<double> p(4, 1.0);
  EXPECT_THROW(compute_genotype_gram(executor(backend::cpu, 1), a, kernel_type::gaussian, p, nullptr), input_error);
}

TEST(KernelMatrix, DifferentVariantsAreNamed) {
  const packed_genotypes g = random_genotypes(6, 5, 0.0, 1, false);
  std::vector<variant_record> v1(5), v2;
  for (int64_t l = 0; l < 5; ++l) v1[l] = {"1", "rs" + std::to_string(l), 0, 100 * l, "A", "G"};
  v2 = v1;
  std::swap(v2[3].a1, v2[3].a2);
  const memory_genotypes a(g.view(), {}, v1, "train"), b(g.view(), {}, v2, "test");
  try {
    concatenated_samples both(a, b);
    FAIL() << "swapped alleles accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("rs3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pmx
