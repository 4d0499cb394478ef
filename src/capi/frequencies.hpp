// A1 frequencies of a handle's kept genotypes with PLINK 2's --freq rules.
//
// The rules are pmx::frequency_counter's (src/stats/frequency/allele_frequencies.cpp), fed with the kept
// view and what the rules need of each sample and variant (a handle may come from memory bytes or
// index subsets, without a plink_fileset). test_capi checks the numbers against
// compute_allele_frequencies on real filesets.
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx::capi {

struct frequency_inputs {
  std::vector<uint8_t> founder;  ///< per kept sample, 1 = founder; empty = all founders
  std::vector<uint8_t> male;     ///< per kept sample, 1 = male (sex 1); empty = none
  std::vector<chromosome_set::kind> kinds;  ///< per kept variant; empty = all autosomal
};

/// p_j over the counted samples (founders unless `nonfounders`): diploid calls count two alleles,
/// haploid calls one with a heterozygous haploid call adding half an A1; haploid are males on X
/// and Y (only males count on Y) and everyone on MT. NaN where no counted call exists.
std::vector<double> plink_frequencies(const executor& exec, const variant_major_view& g,
                                      const frequency_inputs& in, bool nonfounders);

}  // namespace pmx::capi
