// selected_genotypes: --keep/--extract/variant filters over any source give the blocks and records
// plink_fileset's own selection gives, through views where the rows are contiguous and through
// copies (also from a source that cannot lend views) elsewhere.
#include <gtest/gtest.h>

#include <fstream>

#include "panoramix/error.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/plink_write.hpp"
#include "panoramix/selected_genotypes.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

// A source that never lends views: every block is a copy (as a streaming reader's would be).
class copying_source final : public genotype_source {
 public:
  explicit copying_source(const memory_genotypes& g) : g_(g) {}
  const std::string& name() const override { return g_.name(); }
  int64_t n_samples() const override { return g_.n_samples(); }
  int64_t n_variants() const override { return g_.n_variants(); }
  const sample_record& sample(int64_t i) const override { return g_.sample(i); }
  const variant_record& variant(int64_t j) const override { return g_.variant(j); }
  packed_genotypes read_block(int64_t first, int64_t count) const override { return g_.read_block(first, count); }
  variant_major_view mapped_block(int64_t, int64_t) const override { return {}; }

 private:
  const memory_genotypes& g_;
};

void expect_same_blocks(const genotype_source& a, const genotype_source& b) {
  ASSERT_EQ(a.n_samples(), b.n_samples());
  ASSERT_EQ(a.n_variants(), b.n_variants());
  for (int64_t i = 0; i < a.n_samples(); ++i) EXPECT_EQ(a.sample(i).iid, b.sample(i).iid);
  for (int64_t j = 0; j < a.n_variants(); ++j) EXPECT_EQ(a.variant(j).id, b.variant(j).id);
  for (int64_t first : {int64_t{0}, int64_t{1}, a.n_variants() / 3})
    for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{7}, a.n_variants() - first}) {
      if (first + count > a.n_variants()) continue;
      packed_genotypes ca, cb;
      const variant_major_view va = a.block(first, count, ca), vb = b.block(first, count, cb);
      for (int64_t j = 0; j < count; ++j)
        for (int64_t i = 0; i < a.n_samples(); ++i)
          ASSERT_EQ(va.code(i, j), vb.code(i, j)) << "block " << first << "+" << count << " call " << i << "," << j;
      const packed_genotypes ra = a.read_block(first, count);
      for (int64_t j = 0; j < count; ++j)
        for (int64_t i = 0; i < a.n_samples(); ++i) ASSERT_EQ(ra.view().code(i, j), vb.code(i, j));
    }
}

class SelectedGenotypes : public ::testing::Test {
 protected:
  void SetUp() override {
    const int64_t n = 37, m = 53;
    g_ = random_genotypes(n, m, 0.1, 5);
    for (int64_t i = 0; i < n; ++i)
      samples_.push_back({"f" + std::to_string(i % 5), "s" + std::to_string(i), "0", "0", 0, "-9"});
    for (int64_t j = 0; j < m; ++j)
      variants_.push_back({j < 40 ? "1" : "X", "v" + std::to_string(j), 0, 10 * j + 1, "A", "G"});
    prefix_ = tmp_.path("sel");
    write_plink_fileset(prefix_, samples_, variants_, g_.view());
    keep_ = tmp_.path("keep.txt");
    std::ofstream k(keep_);
    for (int64_t i = 0; i < n; i += 3) k << samples_[i].fid << " " << samples_[i].iid << "\n";
    k << "nobody here\n";
    extract_ = tmp_.path("extract.txt");
    std::ofstream e(extract_);
    for (int64_t j = 0; j < m; ++j)
      if (j % 4 != 1) e << "v" << j << "\n";
  }

  temp_dir tmp_;
  packed_genotypes g_;
  std::vector<sample_record> samples_;
  std::vector<variant_record> variants_;
  std::string prefix_, keep_, extract_;
};

TEST_F(SelectedGenotypes, EverythingKeptLendsTheSourceViews) {
  auto* files = new plink_fileset(prefix_);
  selected_genotypes s{std::unique_ptr<genotype_source>(files)};
  EXPECT_TRUE(s.all_samples_kept());
  EXPECT_EQ(s.mapped_block(2, 9).data, files->mapped_block(2, 9).data);
  expect_same_blocks(s, *files);
}

TEST_F(SelectedGenotypes, KeepExtractAndFilterAsPlinkFileset) {
  plink_fileset direct(prefix_);
  direct.keep_samples(keep_);
  direct.extract_variants(extract_);
  direct.filter_variants([](const variant_record& v) { return v.chrom != "X"; });
  selected_genotypes s(std::make_unique<plink_fileset>(prefix_));
  s.keep_samples(keep_);
  s.extract_variants(extract_);
  s.filter_variants([](const variant_record& v) { return v.chrom != "X"; });
  EXPECT_EQ(s.sample_index(), direct.sample_index());
  EXPECT_EQ(s.variant_index(), direct.variant_index());
  expect_same_blocks(s, direct);
  EXPECT_EQ(s.mapped_block(0, 2).data, nullptr) << "samples dropped: no view";
}

TEST_F(SelectedGenotypes, SourcesWithoutViewsAreCopiedRunByRun) {
  const memory_genotypes mem(g_.view(), samples_, variants_);
  plink_fileset direct(prefix_);
  direct.extract_variants(extract_);
  selected_genotypes s(std::make_unique<copying_source>(mem));
  s.extract_variants(extract_);
  expect_same_blocks(s, direct);
  direct.keep_samples(keep_);
  s.keep_samples(keep_);
  expect_same_blocks(s, direct);
}

TEST_F(SelectedGenotypes, ListsThatMatchNothingAreRefused) {
  selected_genotypes s(std::make_unique<plink_fileset>(prefix_));
  const std::string none = tmp_.path("none.txt");
  std::ofstream(none) << "zz\n";
  EXPECT_THROW(s.extract_variants(none), input_error);
  std::ofstream(none) << "a b\n";
  EXPECT_THROW(s.keep_samples(none), input_error);
}

}  // namespace
}  // namespace pmx::test
