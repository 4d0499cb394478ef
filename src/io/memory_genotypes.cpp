// Genotypes in memory with their records (see memory_genotypes.hpp).
#include "panoramix/memory_genotypes.hpp"

#include <numeric>
#include <utility>

#include "panoramix/error.hpp"

namespace pmx {

memory_genotypes::memory_genotypes(packed_genotypes genotypes, std::vector<sample_record> samples,
                                   std::vector<variant_record> variants, std::string name)
    : memory_genotypes(genotypes.view(), std::move(samples), std::move(variants), std::move(name)) {
  owned_ = std::move(genotypes);  // a moved vector keeps its storage: view_ stays valid
}

memory_genotypes::memory_genotypes(const variant_major_view& genotypes, std::vector<sample_record> samples,
                                   std::vector<variant_record> variants, std::string name)
    : view_(genotypes), samples_(std::move(samples)), variants_(std::move(variants)), name_(std::move(name)) {
  PMX_EXPECTS(view_.n_samples >= 0 && view_.n_variants >= 0 && view_.row_bytes >= (view_.n_samples + 3) / 4,
              "genotype view with inconsistent dimensions");
  PMX_EXPECTS(samples_.empty() || static_cast<int64_t>(samples_.size()) == view_.n_samples,
              "one sample record per sample (or none)");
  PMX_EXPECTS(variants_.empty() || static_cast<int64_t>(variants_.size()) == view_.n_variants,
              "one variant record per variant (or none)");
  unknown_sample_.father = unknown_sample_.mother = "0";
  unknown_variant_.chrom = "0";
  unknown_variant_.id = ".";
}

const sample_record& memory_genotypes::sample(int64_t i) const {
  return samples_.empty() ? unknown_sample_ : samples_[static_cast<size_t>(i)];
}

const variant_record& memory_genotypes::variant(int64_t j) const {
  return variants_.empty() ? unknown_variant_ : variants_[static_cast<size_t>(j)];
}

packed_genotypes memory_genotypes::read_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  std::vector<int64_t> rows(static_cast<size_t>(count));
  std::iota(rows.begin(), rows.end(), first);
  return subset(view_, {}, rows);
}

variant_major_view memory_genotypes::mapped_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  variant_major_view v = view_;
  if (v.data) v.data = v.row(first);
  v.n_variants = count;
  return v;
}

}  // namespace pmx
