// PLINK 2's filters that look at the genotypes, in plink2's order: --thin-count, then
// --thin-indiv-count (both drawn from one plink2 generator of the --seed values), then --mind
// (sample call rates over the variants left), then --geno, --hwe and --maf/--max-maf/--mac (over
// the samples left; each on the counts of that one pass, so their order shows only in the log).
// Counts come from the 2-bit codes through the allele_counts and table_products ops.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/chromosome_set.hpp"
#include "panoramix/executor.hpp"
#include "panoramix/progress.hpp"
#include "panoramix/selected_genotypes.hpp"

namespace pmx {

/// A negative value: the filter is off.
struct quality_filter_options {
  int64_t thin_count = -1;         ///< keep this many variants, drawn as plink2 draws them
  int64_t thin_indiv_count = -1;   ///< then this many samples, from the same generator
  std::vector<uint32_t> seeds{0};  ///< plink2's --seed values (one or more)
  double mind = -1;  ///< drop samples missing more than this fraction of calls
  double geno = -1;  ///< drop variants missing more than this fraction of calls
  double hwe = -1;   ///< drop variants whose exact HWE p-value (founders) is below this
  bool hwe_midp = false;
  double maf = -1, max_maf = -1;  ///< minor allele frequency bounds (founders)
  double mac = -1;                ///< least minor allele count (founders)
  bool nonfounders = false;       ///< count every sample in --hwe and the frequencies
  chromosome_set chromosomes = chromosome_set::human();
  int64_t block_variants = 16384;
  bool active() const {
    return thin_count >= 0 || thin_indiv_count >= 0 || mind >= 0 || geno >= 0 || hwe >= 0 || maf >= 0 || max_maf >= 0 || mac >= 0;
  }
};

/// Applies the filters to `data`; returns the log lines plink2 writes for them ("--geno: 3 variants
/// removed due to missing genotype data." ...). Throws input_error, naming the filter, when one
/// leaves no sample or no variant. --hwe tests X as plink2 does (hwe_x_exact_p of the counted
/// females and males; untested when no counted sample has a known sex).
std::vector<std::string> apply_quality_filters(const executor& exec, selected_genotypes& data,
                                               const quality_filter_options& opt, progress_sink* progress);

}  // namespace pmx
