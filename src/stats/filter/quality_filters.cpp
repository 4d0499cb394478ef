// The genotype-based filters in plink2's order, with plink2's thresholds: a count limit is
// floor(fraction × (1 + 2^-44) × denominator) and what exceeds it goes (plink2's kSmallEpsilon
// keeps a rate that equals the fraction in decimal).
#include "panoramix/quality_filters.hpp"

#include <algorithm>
#include <cmath>

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/error.hpp"
#include "panoramix/hardy_weinberg.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/ops/table_products.hpp"
#include "stats/filter/random_thinning.hpp"

namespace pmx {
namespace {

using kind = chromosome_set::kind;
constexpr double small_epsilon = 0x1p-44;

int64_t count_limit(double fraction, int64_t denominator) {
  return static_cast<int64_t>(fraction * (1 + small_epsilon) * double(denominator));
}

std::string plural(int64_t k, const std::string& what) {
  return std::to_string(k) + " " + what + (k == 1 ? "" : "s");
}

// --thin-count (variants, `unit` "variant") or --thin-indiv-count (samples): plink2's draw of
// `keep` of the `n` items left, its warning when there are no more than `keep`, its log line.
std::vector<uint8_t> thin_items(int64_t n, int64_t keep, const std::string& flag, const std::string& unit,
                                detail::sfmt19937& rng, std::vector<std::string>& log) {
  if (keep == 0) throw input_error(flag + " 0 would remove every " + unit);
  if (keep >= n) {
    log.push_back("Warning: " + flag + " parameter exceeds # of remaining " + unit + "s; skipping.");
    return std::vector<uint8_t>(static_cast<size_t>(n), 1);
  }
  log.push_back(flag + ": " + plural(n - keep, unit) + " removed (" + std::to_string(keep) + " remaining).");
  return plink2_thinning_mask(n, keep, rng);
}

// --mind: per-sample missing calls as row sums of the missing indicator; on Y only males count
// (plink2 leaves Y out of other samples' call rates).
void mind_filter(const executor& exec, selected_genotypes& data, const quality_filter_options& opt,
                 progress_sink* progress, std::vector<std::string>& log) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  std::vector<uint8_t> on_y(static_cast<size_t>(m));
  int64_t n_y = 0;
  for (int64_t j = 0; j < m; ++j) n_y += on_y[j] = opt.chromosomes.classify(data.variant(j).chrom) == kind::y;
  std::vector<double> missing(static_cast<size_t>(n), 0.0), missing_y(n_y ? static_cast<size_t>(n) : 0, 0.0);
  constexpr code_table indicator{0, 1, 0, 0}, none{0, 0, 0, 0};
  for (int64_t first = 0; first < m; first += opt.block_variants) {
    const int64_t count = std::min(opt.block_variants, m - first);
    packed_genotypes copy;
    const variant_major_view g = data.block(first, count, copy);
    std::vector<code_table> tables(static_cast<size_t>(count));
    for (int64_t b = 0; b < count; ++b) tables[b] = on_y[first + b] ? none : indicator;
    table_rowsums(exec, g, tables, missing);
    if (n_y) {
      for (int64_t b = 0; b < count; ++b) tables[b] = on_y[first + b] ? indicator : none;
      table_rowsums(exec, g, tables, missing_y);
    }
    report(progress, "sample call rates (--mind)", double(first + count) / double(m));
  }
  std::vector<uint8_t> keep(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const bool male = data.sample(i).sex == 1;
    const int64_t called_of = m - (male ? 0 : n_y);
    const auto miss = static_cast<int64_t>(missing[i] + (male && n_y ? missing_y[i] : 0.0));
    keep[i] = miss <= count_limit(opt.mind, called_of);
  }
  data.keep_samples_where(keep);
  const int64_t removed = n - data.n_samples();
  if (data.n_samples() == 0)
    throw input_error("--mind: every sample removed due to missing genotype data");
  log.push_back(plural(removed, "sample") + " removed due to missing genotype data (--mind).");
}

// The samples of plink2's X test among the counted ones (founders unless --nonfounders): X is
// tested only when one of them has a known sex (else it is haploid to plink2 and skipped); males
// give their homozygous calls as alleles; females their genotypes. Unknown-sex samples are left
// out, except when no counted sample is male: plink2 2.00a3.5 then counts them with the females
// (its unknown-sex counts are only taken alongside the males'; checked against plink2 in
// tests/cli/test_make_bed.cpp).
struct x_test_samples {
  bool testable = false;
  std::vector<uint8_t> females, males;
};

x_test_samples x_samples(const selected_genotypes& data, const std::vector<uint8_t>& counted) {
  x_test_samples x;
  bool any_male = false;
  for (int64_t i = 0; i < data.n_samples(); ++i) {
    const int sex = data.sample(i).sex;
    x.testable = x.testable || (counted[i] && sex != 0);
    any_male = any_male || (counted[i] && sex == 1);
  }
  for (int64_t i = 0; i < data.n_samples(); ++i) {
    const int sex = data.sample(i).sex;
    x.females.push_back(counted[i] && (sex == 2 || (sex == 0 && !any_male)));
    x.males.push_back(counted[i] && sex == 1);
  }
  return x;
}

// Counts of one pass over the variants: the frequencies (founders unless --nonfounders, haploid
// rules as freq), the counted samples' genotype classes for --hwe (on X, the X test's females and
// males apart), males' missing calls on Y for --geno.
struct variant_tallies {
  allele_frequencies freq;
  std::vector<variant_counts> hwe_counts, male_counts, x_females, x_males;
  bool x_testable = false;
};

variant_tallies tally_variants(const executor& exec, const selected_genotypes& data, const std::vector<kind>& kinds,
                               const quality_filter_options& opt, progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  variant_tallies t;
  t.freq.resize(m);
  frequency_options fo;
  fo.nonfounders = opt.nonfounders, fo.chromosomes = opt.chromosomes;
  const frequency_counter counter(data, fo);
  std::vector<uint8_t> counted, males;
  for (int64_t i = 0; i < n; ++i) {
    counted.push_back(opt.nonfounders || data.sample(i).founder());
    males.push_back(data.sample(i).sex == 1);
  }
  const bool has_x = std::find(kinds.begin(), kinds.end(), kind::x) != kinds.end();
  const bool has_y = std::find(kinds.begin(), kinds.end(), kind::y) != kinds.end();
  x_test_samples x;
  if (opt.hwe >= 0) {
    t.hwe_counts.resize(static_cast<size_t>(m));
    if (has_x) x = x_samples(data, counted);
    t.x_testable = x.testable;
    if (x.testable) t.x_females.resize(static_cast<size_t>(m)), t.x_males.resize(static_cast<size_t>(m));
  }
  // Males' missing calls matter only on Y.
  if (opt.geno >= 0 && has_y) t.male_counts.resize(static_cast<size_t>(m));
  for (int64_t first = 0; first < m; first += opt.block_variants) {
    const int64_t count = std::min(opt.block_variants, m - first);
    packed_genotypes copy;
    const variant_major_view g = data.block(first, count, copy);
    counter.add_block(exec, first, g, t.freq);
    if (opt.hwe >= 0) allele_counts(exec, g, counted, std::span(t.hwe_counts).subspan(first, count));
    if (!t.male_counts.empty()) allele_counts(exec, g, males, std::span(t.male_counts).subspan(first, count));
    if (x.testable && std::find(kinds.begin() + first, kinds.begin() + first + count, kind::x) != kinds.begin() + first + count) {
      allele_counts(exec, g, x.females, std::span(t.x_females).subspan(first, count));
      allele_counts(exec, g, x.males, std::span(t.x_males).subspan(first, count));
    }
    report(progress, "variant counts (--geno/--hwe/--maf)", double(first + count) / double(m));
  }
  return t;
}

// Drops the kept variants where `drop` says so; throws, naming `flag`, when none would remain.
int64_t drop_variants(std::vector<uint8_t>& alive, const std::vector<uint8_t>& drop,
                      const std::string& flag) {
  int64_t removed = 0, left = 0;
  for (size_t j = 0; j < alive.size(); ++j) {
    if (alive[j] && drop[j]) alive[j] = 0, ++removed;
    left += alive[j];
  }
  if (left == 0) throw input_error(flag + ": every remaining variant removed; nothing left to analyse");
  return removed;
}

void variant_filters(const executor& exec, selected_genotypes& data, const quality_filter_options& opt,
                     progress_sink* progress, std::vector<std::string>& log) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  std::vector<kind> kinds(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) kinds[j] = opt.chromosomes.classify(data.variant(j).chrom);
  const variant_tallies t = tally_variants(exec, data, kinds, opt, progress);
  std::vector<uint8_t> alive(static_cast<size_t>(m), 1), drop(static_cast<size_t>(m), 0);
  if (opt.geno >= 0) {
    int64_t males = 0;
    for (int64_t i = 0; i < n; ++i) males += data.sample(i).sex == 1;
    const int64_t limit = count_limit(opt.geno, n), limit_y = count_limit(opt.geno, males);
    for (int64_t j = 0; j < m; ++j)
      drop[j] = kinds[j] == kind::y ? t.male_counts[j].missing > limit_y : t.freq.missing_all[j] > limit;
    const int64_t removed = drop_variants(alive, drop, "--geno");
    log.push_back("--geno: " + plural(removed, "variant") + " removed due to missing genotype data.");
  }
  if (opt.hwe >= 0) {
    // Y and MT are not tested; X with the X test when plink2 tests it (else it is haploid to plink2).
    for (int64_t j = 0; j < m; ++j) {
      const kind k = kinds[j];
      const variant_counts& c = t.hwe_counts[j];
      double p = 1;
      if (k == kind::x) {
        if (t.x_testable) {
          const variant_counts &f = t.x_females[j], &male = t.x_males[j];
          p = hwe_x_exact_p(f.hom_a1, f.het, f.hom_a2, male.hom_a1, male.hom_a2, opt.hwe_midp);
        }
      } else if (k != kind::y && k != kind::mt) {
        p = hwe_exact_p(c.hom_a1, c.het, c.hom_a2, opt.hwe_midp);
      }
      drop[j] = p < opt.hwe;
    }
    const int64_t removed = drop_variants(alive, drop, "--hwe");
    log.push_back(std::string(opt.hwe_midp ? "--hwe midp: " : "--hwe: ") + plural(removed, "variant") + " removed due to Hardy-Weinberg exact test (" +
                  (opt.nonfounders ? "all samples" : "founders only") + ").");
  }
  if (opt.maf >= 0 || opt.max_maf >= 0 || opt.mac >= 0) {
    for (int64_t j = 0; j < m; ++j) {
      // From the integer counts, so that 1 - p does not round past a threshold (0.9 -> 0.09999...).
      // No counted call: plink2 takes the frequency as 0.5 and the count as 0.
      double maf = 0.5, mac = 0;
      if (t.freq.observations[j] > 0) {
        const int64_t halves = 2 * t.freq.observations[j];
        const auto a1 = static_cast<int64_t>(std::llround(t.freq.a1[j] * double(halves)));
        const int64_t minor = std::min(a1, halves - a1);
        maf = double(minor) / double(halves), mac = double(minor) / 2;
      }
      drop[j] = (opt.maf >= 0 && maf < opt.maf) || (opt.max_maf >= 0 && maf > opt.max_maf) ||
                (opt.mac >= 0 && mac < opt.mac);
    }
    const int64_t removed = drop_variants(alive, drop, "--maf/--max-maf/--mac");
    log.push_back(plural(removed, "variant") + " removed due to allele frequency threshold(s) (--maf/--max-maf/--mac).");
  }
  data.keep_variants_where(alive);
}

}  // namespace

std::vector<std::string> apply_quality_filters(const executor& exec, selected_genotypes& data,
                                               const quality_filter_options& opt, progress_sink* progress) {
  std::vector<std::string> log;
  if (opt.thin_count >= 0 || opt.thin_indiv_count >= 0) {
    detail::sfmt19937 rng = plink2_random_generator(opt.seeds);
    if (opt.thin_count >= 0)
      data.keep_variants_where(thin_items(data.n_variants(), opt.thin_count, "--thin-count", "variant", rng, log));
    if (opt.thin_indiv_count >= 0)
      data.keep_samples_where(thin_items(data.n_samples(), opt.thin_indiv_count, "--thin-indiv-count", "sample", rng, log));
  }
  if (opt.mind >= 0) mind_filter(exec, data, opt, progress, log);
  if (opt.geno >= 0 || opt.hwe >= 0 || opt.maf >= 0 || opt.max_maf >= 0 || opt.mac >= 0)
    variant_filters(exec, data, opt, progress, log);
  return log;
}

}  // namespace pmx
