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

allele_frequencies compute_allele_frequencies(const executor& exec, const plink_fileset& data,
                                              const frequency_options& opt, progress_sink* progress) {
  const int64_t m = data.n_variants();
  allele_frequencies out;
  out.counted.resize(static_cast<size_t>(m));
  out.missing_all.resize(static_cast<size_t>(m));
  out.a1.resize(static_cast<size_t>(m));
  const auto mask = frequency_sample_mask(data, opt.nonfounders);
  std::vector<variant_counts> all(static_cast<size_t>(opt.block_variants));
  for (int64_t first = 0; first < m; first += opt.block_variants) {
    const int64_t count = std::min(opt.block_variants, m - first);
    const packed_genotypes block = data.read_block(first, count);
    allele_counts(exec, block.view(), mask, std::span(out.counted).subspan(first, count));
    if (mask.empty()) {
      for (int64_t j = 0; j < count; ++j) out.missing_all[first + j] = out.counted[first + j].missing;
    } else {
      allele_counts(exec, block.view(), {}, std::span(all).first(count));
      for (int64_t j = 0; j < count; ++j) out.missing_all[first + j] = all[j].missing;
    }
    report(progress, "allele frequencies", double(first + count) / double(m));
  }
  for (int64_t j = 0; j < m; ++j) {
    const auto& c = out.counted[j];
    out.a1[j] = c.called() ? double(c.a1_copies()) / double(2 * c.called())
                           : std::numeric_limits<double>::quiet_NaN();
  }
  return out;
}

}  // namespace pmx
