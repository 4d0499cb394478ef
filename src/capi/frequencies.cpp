#include "capi/frequencies.hpp"

#include <limits>

#include "panoramix/ops/allele_counts.hpp"

namespace pmx::capi {

std::vector<double> plink_frequencies(const executor& exec, const variant_major_view& g,
                                      const frequency_inputs& in, bool nonfounders) {
  using kind = chromosome_set::kind;
  const int64_t n = g.n_samples, k = g.n_variants;
  const auto nk = static_cast<size_t>(k);

  // Counted samples; empty = all.
  std::vector<uint8_t> counted;
  if (!nonfounders && !in.founder.empty()) {
    bool all = true;
    for (uint8_t f : in.founder) all = all && f;
    if (!all) counted = in.founder;
  }
  bool haploid = false;
  for (kind c : in.kinds) haploid = haploid || c == kind::x || c == kind::y || c == kind::mt;

  std::vector<variant_counts> diploid_counts(nk), male_counts, other_counts;
  allele_counts(exec, g, counted, diploid_counts);
  if (haploid) {
    // Counted males and counted others (females and unknown sex are diploid on X).
    std::vector<uint8_t> males(static_cast<size_t>(n)), others(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const bool c = counted.empty() || counted[i];
      const bool m = !in.male.empty() && in.male[i];
      males[i] = c && m;
      others[i] = c && !m;
    }
    male_counts.resize(nk);
    other_counts.resize(nk);
    allele_counts(exec, g, males, male_counts);
    allele_counts(exec, g, others, other_counts);
  }

  // In halves of an A1 copy, so that a heterozygous haploid call (half an A1) stays an integer.
  std::vector<double> p(nk);
  for (int64_t j = 0; j < k; ++j) {
    int64_t a1_halves = 0, obs = 0;
    auto diploid = [&](const variant_counts& c) { a1_halves += 2 * c.a1_copies(), obs += 2 * c.called(); };
    auto haploid_calls = [&](const variant_counts& c) { a1_halves += 2 * c.hom_a1 + c.het, obs += c.called(); };
    switch (in.kinds.empty() ? kind::autosome : in.kinds[j]) {
      case kind::x: diploid(other_counts[j]), haploid_calls(male_counts[j]); break;
      case kind::y: haploid_calls(male_counts[j]); break;
      case kind::mt: haploid_calls(diploid_counts[j]); break;
      default: diploid(diploid_counts[j]);
    }
    p[j] = obs ? double(a1_halves) / double(2 * obs) : std::numeric_limits<double>::quiet_NaN();
  }
  return p;
}

}  // namespace pmx::capi
