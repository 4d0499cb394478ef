#include "panoramix/allele_frequencies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

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

allele_frequencies compute_allele_frequencies(const executor& exec, const plink_fileset& data,
                                              const frequency_options& opt, progress_sink* progress) {
  using kind = chromosome_set::kind;
  const int64_t n = data.n_samples(), m = data.n_variants();
  allele_frequencies out;
  out.observations.resize(static_cast<size_t>(m));
  out.missing_all.resize(static_cast<size_t>(m));
  out.a1.resize(static_cast<size_t>(m));

  std::vector<kind> kinds(static_cast<size_t>(m));
  bool haploid = false;
  for (int64_t j = 0; j < m; ++j) {
    kinds[j] = opt.chromosomes.classify(data.variant(j).chrom);
    haploid = haploid || kinds[j] == kind::x || kinds[j] == kind::y || kinds[j] == kind::mt;
  }
  // Masks: counted samples; and, for haploid chromosomes, counted males / counted non-males.
  const auto counted = frequency_sample_mask(data, opt.nonfounders);
  std::vector<uint8_t> males, others;
  if (haploid) {
    males.resize(static_cast<size_t>(n));
    others.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const bool c = counted.empty() || counted[i];
      males[i] = c && data.sample(i).sex == 1;
      others[i] = c && data.sample(i).sex != 1;
    }
  }

  const auto bv = static_cast<size_t>(opt.block_variants);
  std::vector<variant_counts> all(bv), cnt(bv), male(bv), other(bv);
  for (int64_t first = 0; first < m; first += opt.block_variants) {
    const int64_t count = std::min(opt.block_variants, m - first);
    const packed_genotypes block = data.read_block(first, count);
    allele_counts(exec, block.view(), {}, std::span(all).first(count));
    if (!counted.empty()) allele_counts(exec, block.view(), counted, std::span(cnt).first(count));
    if (haploid) {
      allele_counts(exec, block.view(), males, std::span(male).first(count));
      allele_counts(exec, block.view(), others, std::span(other).first(count));
    }
    for (int64_t b = 0; b < count; ++b) {
      const int64_t j = first + b;
      tally t;
      switch (kinds[j]) {
        case kind::x: t.diploid(other[b]), t.haploid(male[b]); break;
        case kind::y: t.haploid(male[b]); break;
        case kind::mt: t.haploid(counted.empty() ? all[b] : cnt[b]); break;
        default: t.diploid(counted.empty() ? all[b] : cnt[b]);
      }
      out.missing_all[j] = all[b].missing;
      out.observations[j] = t.obs;
      out.a1[j] = t.obs ? double(t.a1_halves) / double(2 * t.obs) : std::numeric_limits<double>::quiet_NaN();
    }
    report(progress, "allele frequencies", double(first + count) / double(m));
  }
  return out;
}

}  // namespace pmx
