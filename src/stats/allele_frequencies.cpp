#include "panoramix/allele_frequencies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "panoramix/error.hpp"

namespace pmx {

int64_t allele_frequencies::total_missing() const {
  return std::accumulate(missing_all.begin(), missing_all.end(), int64_t{0});
}

std::vector<uint8_t> frequency_sample_mask(const plink_fileset& data, bool nonfounders) {
  if (nonfounders) return {};
  std::vector<uint8_t> mask(static_cast<size_t>(data.n_samples()));
  bool all = true;
  for (int64_t i = 0; i < data.n_samples(); ++i) {
    mask[i] = data.sample(i).founder();
    all = all && mask[i];
  }
  if (all) mask.clear();
  return mask;
}

namespace {

// Frequency from diploid counts plus counts of samples treated as haploid. As PLINK 2 does, a
// haploid call is one observation and a heterozygous one adds half an A1 (its dosage / 2).
struct tally {
  int64_t a1_halves = 0, obs = 0;
  void diploid(const variant_counts& c) { a1_halves += 2 * c.a1_copies(), obs += 2 * c.called(); }
  void haploid(const variant_counts& c) { a1_halves += 2 * c.hom_a1 + c.het, obs += c.called(); }
};

}  // namespace

void allele_frequencies::resize(int64_t m) {
  observations.resize(static_cast<size_t>(m));
  missing_all.resize(static_cast<size_t>(m));
  a1.resize(static_cast<size_t>(m));
}

frequency_counter::frequency_counter(const plink_fileset& data, const frequency_options& opt) {
  using kind = chromosome_set::kind;
  const int64_t n = data.n_samples(), m = data.n_variants();
  kinds_.resize(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) {
    kinds_[j] = opt.chromosomes.classify(data.variant(j).chrom);
    haploid_ = haploid_ || kinds_[j] == kind::x || kinds_[j] == kind::y || kinds_[j] == kind::mt;
  }
  // Masks: counted samples; and, for haploid chromosomes, counted males / counted non-males.
  counted_ = frequency_sample_mask(data, opt.nonfounders);
  if (haploid_) {
    males_.resize(static_cast<size_t>(n));
    others_.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const bool c = counted_.empty() || counted_[i];
      males_[i] = c && data.sample(i).sex == 1;
      others_[i] = c && data.sample(i).sex != 1;
    }
  }
}

void frequency_counter::add_block(const executor& exec, int64_t first, const variant_major_view& block,
                                  allele_frequencies& out) const {
  using kind = chromosome_set::kind;
  const int64_t count = block.n_variants;
  PMX_EXPECTS(first >= 0 && first + count <= static_cast<int64_t>(kinds_.size()), "block out of range");
  const auto sz = static_cast<size_t>(count);
  std::vector<variant_counts> all(sz), cnt, male, other;
  allele_counts(exec, block, {}, all);
  if (!counted_.empty()) cnt.resize(sz), allele_counts(exec, block, counted_, cnt);
  if (haploid_) {
    male.resize(sz), other.resize(sz);
    allele_counts(exec, block, males_, male);
    allele_counts(exec, block, others_, other);
  }
  for (int64_t b = 0; b < count; ++b) {
    const int64_t j = first + b;
    tally t;
    switch (kinds_[j]) {
      case kind::x: t.diploid(other[b]), t.haploid(male[b]); break;
      case kind::y: t.haploid(male[b]); break;
      case kind::mt: t.haploid(counted_.empty() ? all[b] : cnt[b]); break;
      default: t.diploid(counted_.empty() ? all[b] : cnt[b]);
    }
    out.missing_all[j] = all[b].missing;
    out.observations[j] = t.obs;
    out.a1[j] = t.obs ? double(t.a1_halves) / double(2 * t.obs) : std::numeric_limits<double>::quiet_NaN();
  }
}

allele_frequencies compute_allele_frequencies(const executor& exec, const plink_fileset& data,
                                              const frequency_options& opt, progress_sink* progress) {
  const int64_t m = data.n_variants();
  allele_frequencies out;
  out.resize(m);
  const frequency_counter counter(data, opt);
  for (int64_t first = 0; first < m; first += opt.block_variants) {
    const int64_t count = std::min(opt.block_variants, m - first);
    const packed_genotypes block = data.read_block(first, count);
    counter.add_block(exec, first, block.view(), out);
    report(progress, "allele frequencies", double(first + count) / double(m));
  }
  return out;
}

}  // namespace pmx
