// memory_genotypes, the in-memory genotype_source: blocks and records as given (or the unknown
// ones), and statistics that read it giving what they give on the same genotypes as a PLINK
// fileset (allele frequencies with founders, sexes and X; both GRMs, with given frequencies too).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

constexpr int64_t n = 37, k = 301;

struct dataset {
  packed_genotypes g = test::random_genotypes(n, k, 0.05, 11, true);
  std::vector<sample_record> samples;
  std::vector<variant_record> variants;
  dataset() {
    for (int64_t i = 0; i < n; ++i) {
      const bool founder = i % 3 != 0;
      samples.push_back({"f", "s" + std::to_string(i), founder ? "0" : "s1", founder ? "0" : "s2",
                         static_cast<int>(i % 3), "-9"});
    }
    for (int64_t j = 0; j < k; ++j)
      variants.push_back({j < 250 ? "1" : "X", "v" + std::to_string(j), 0, j + 1, "A", "C"});
  }
};

void expect_close(const double* a, const double* b, size_t count, const std::string& what) {
  for (size_t t = 0; t < count; ++t) {
    if (std::isnan(a[t])) {
      EXPECT_TRUE(std::isnan(b[t])) << what << " [" << t << "]";
      continue;
    }
    EXPECT_NEAR(a[t], b[t], 1e-14 * (1 + std::abs(a[t]))) << what << " [" << t << "]";
  }
}

TEST(MemoryGenotypes, BlocksAndRecords) {
  const dataset d;
  const memory_genotypes owned(packed_genotypes(d.g), d.samples, d.variants, "test");
  EXPECT_EQ(owned.name(), "test");
  EXPECT_EQ(owned.n_samples(), n);
  EXPECT_EQ(owned.n_variants(), k);
  EXPECT_EQ(owned.sample(4).iid, "s4");
  EXPECT_EQ(owned.variant(260).chrom, "X");
  // A view with wider rows than the calls need, as a caller's buffer may have.
  const int64_t stride = d.g.row_bytes() + 5;
  std::vector<uint8_t> wide(static_cast<size_t>(stride * k), 0xff);
  for (int64_t j = 0; j < k; ++j) std::copy(d.g.row(j), d.g.row(j) + d.g.row_bytes(), wide.data() + j * stride);
  const memory_genotypes viewed(variant_major_view{wide.data(), n, k, stride});
  for (const genotype_source* src : {static_cast<const genotype_source*>(&owned), static_cast<const genotype_source*>(&viewed)}) {
    const variant_major_view mapped = src->mapped_block(100, 50);
    ASSERT_NE(mapped.data, nullptr);
    const packed_genotypes copy = src->read_block(100, 50);
    for (int64_t j = 0; j < 50; ++j)
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(mapped.code(i, j), d.g.view().code(i, 100 + j));
        EXPECT_EQ(copy.view().code(i, j), d.g.view().code(i, 100 + j));
      }
  }
  // No records given: founders of unknown sex, unplaced variants.
  EXPECT_TRUE(viewed.sample(3).founder());
  EXPECT_EQ(viewed.sample(3).sex, 0);
  EXPECT_EQ(viewed.variant(7).chrom, "0");
  EXPECT_EQ(viewed.variant(7).id, ".");
  EXPECT_EQ(viewed.name(), "memory");
}

TEST(MemoryGenotypes, StatisticsAgreeWithTheFileset) {
  const dataset d;
  test::temp_dir dir;
  write_plink_fileset(dir.path("d"), d.samples, d.variants, d.g.view());
  const plink_fileset files(dir.path("d"));
  const memory_genotypes memory(packed_genotypes(d.g), d.samples, d.variants);
  const executor exec(backend::cpu, 2);

  frequency_options fo;
  fo.block_variants = 64;
  const allele_frequencies a = compute_allele_frequencies(exec, files, fo, nullptr);
  const allele_frequencies b = compute_allele_frequencies(exec, memory, fo, nullptr);
  expect_close(a.a1.data(), b.a1.data(), a.a1.size(), "a1 frequency");
  EXPECT_EQ(a.observations, b.observations);
  EXPECT_EQ(a.missing_all, b.missing_all);

  for (grm_method method : {grm_method::standardized, grm_method::vanraden}) {
    grm_options go;
    go.method = method;
    go.block_variants = 100;
    const grm_result x = compute_grm(exec, files, go, nullptr);
    const grm_result y = compute_grm(exec, memory, go, nullptr);
    expect_close(x.G.data(), y.G.data(), x.G.size(), "G");
    // The counted frequencies given back: the same G.
    go.frequencies = x.a1_freq;
    const grm_result z = compute_grm(exec, memory, go, nullptr);
    expect_close(x.G.data(), z.G.data(), x.G.size(), "G with given frequencies");
    EXPECT_EQ(x.N, z.N);
  }
}

}  // namespace
