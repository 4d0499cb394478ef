// Allele frequencies of the counted allele (A1, .bim column 5), as PLINK computes them.
#pragma once
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

struct frequency_options {
  bool nonfounders = false;  ///< PLINK --nonfounders: count every sample, not only founders
  chromosome_set chromosomes = chromosome_set::human();
  int64_t block_variants = 16384;
};

struct allele_frequencies {
  std::vector<int64_t> observations;  ///< allele observations counted (PLINK 2's OBS_CT)
  std::vector<int64_t> missing_all;   ///< missing calls per variant over all kept samples
  std::vector<double> a1;             ///< A1 frequency; NaN where no counted sample has a call
  int64_t total_missing() const;
  void resize(int64_t m);
};

/// One pass over the kept variants, as PLINK 2 counts: founders only (parents "0 0" in .fam)
/// unless `nonfounders`; diploid calls count two alleles, haploid calls one (a heterozygous
/// haploid call adds half an A1, its dosage / 2). Haploid: males on X (females and unknown sex
/// diploid), males on Y (nobody else counts), everyone on MT.
allele_frequencies compute_allele_frequencies(const executor& exec, const genotype_source& data,
                                              const frequency_options& opt, progress_sink* progress);

/// The same counting block by block, for passes that need each block's frequencies as the block
/// arrives (the GRM reads the genotypes once). `out` must have been sized with resize(m).
class frequency_counter {
 public:
  /// The rules take from `data` each kept sample's parents and sex and each kept variant's chromosome.
  frequency_counter(const genotype_source& data, const frequency_options& opt);
  /// Fills out[first .. first + block.n_variants) from the genotypes of those kept variants.
  void add_block(const executor& exec, int64_t first, const variant_major_view& block, allele_frequencies& out) const;

 private:
  std::vector<chromosome_set::kind> kinds_;
  std::vector<uint8_t> counted_, male_;
  bool haploid_ = false;
};

}  // namespace pmx
