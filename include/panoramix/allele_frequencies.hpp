// Allele frequencies of the counted allele (A1, .bim column 5), as PLINK computes them.
#pragma once
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct frequency_options {
  bool nonfounders = false;  ///< PLINK --nonfounders: count every sample, not only founders
  int64_t block_variants = 16384;
};

struct allele_frequencies {
  std::vector<variant_counts> counted;  ///< counts over the samples frequencies come from
  std::vector<int64_t> missing_all;     ///< missing calls per variant over all kept samples
  std::vector<double> a1;               ///< A1 frequency; NaN where no counted sample has a call
  int64_t total_missing() const;
};

/// One pass over the kept variants. PLINK counts founders only (parents "0 0" in .fam) unless
/// `nonfounders` is set.
allele_frequencies compute_allele_frequencies(const executor& exec, const plink_fileset& data,
                                              const frequency_options& opt, progress_sink* progress);

/// Mask of the samples frequencies are counted over (empty = all).
std::vector<uint8_t> frequency_sample_mask(const plink_fileset& data, bool nonfounders);

}  // namespace pmx
