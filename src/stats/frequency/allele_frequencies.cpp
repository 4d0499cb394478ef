#include "panoramix/allele_frequencies.hpp"

#include <algorithm>
#include <utility>
#include <cmath>
#include <limits>
#include <numeric>

#include "panoramix/error.hpp"

namespace pmx {

int64_t allele_frequencies::total_missing() const {
  return std::accumulate(missing_all.begin(), missing_all.end(), int64_t{0});
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

frequency_counter::frequency_counter(const genotype_source& data, const frequency_options& opt) {
  using kind = chromosome_set::kind;
  const int64_t n = data.n_samples(), m = data.n_variants();
  kinds_.resize(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) {
    const kind k = kinds_[j] = opt.chromosomes.classify(data.variant(j).chrom);
    haploid_ = haploid_ || k == kind::x || k == kind::y || k == kind::mt;
  }
  std::vector<uint8_t> founder(static_cast<size_t>(n));
  male_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) founder[i] = data.sample(i).founder(), male_[i] = data.sample(i).sex == 1;
  // Counted samples (empty = all).
  if (!opt.nonfounders && std::find(founder.begin(), founder.end(), uint8_t{0}) != founder.end())
    counted_ = std::move(founder);
}

void frequency_counter::add_block(const executor& exec, int64_t first, const variant_major_view& block,
                                  allele_frequencies& out) const {
  using kind = chromosome_set::kind;
  const int64_t count = block.n_variants;
  PMX_EXPECTS(first >= 0 && first + count <= static_cast<int64_t>(kinds_.size()), "block out of range");
  PMX_EXPECTS(block.n_samples == static_cast<int64_t>(male_.size()), "block of other samples than the counter's");
  const auto sz = static_cast<size_t>(count);
  std::vector<variant_counts> all(sz), cnt, male, other;
  allele_counts(exec, block, {}, all);
  if (!counted_.empty()) cnt.resize(sz), allele_counts(exec, block, counted_, cnt);
  if (haploid_) {
    // Counted males, counted others (females and unknown sex are diploid on X).
    const auto n = static_cast<size_t>(block.n_samples);
    std::vector<uint8_t> males(n), others(n);
    for (size_t i = 0; i < n; ++i) {
      const bool c = counted_.empty() || counted_[i], m = male_[i];
      males[i] = c && m;
      others[i] = c && !m;
    }
    male.resize(sz), other.resize(sz);
    allele_counts(exec, block, males, male);
    allele_counts(exec, block, others, other);
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

allele_frequencies compute_allele_frequencies(const executor& exec, const genotype_source& data,
                                              const frequency_options& opt, progress_sink* progress) {
  const int64_t m = data.n_variants();
  allele_frequencies out;
  out.resize(m);
  const frequency_counter counter(data, opt);
  for (int64_t first = 0; first < m; first += opt.block_variants) {
    const int64_t count = std::min(opt.block_variants, m - first);
    packed_genotypes copy;
    counter.add_block(exec, first, data.block(first, count, copy), out);
    report(progress, "allele frequencies", double(first + count) / double(m));
  }
  return out;
}

}  // namespace pmx
