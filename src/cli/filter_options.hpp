// PLINK 2's sample and variant filters on every command that reads genotypes: the flags, their
// checks, and their application in plink2's order.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_log.hpp"
#include "panoramix/chromosome_set.hpp"
#include "panoramix/selected_genotypes.hpp"

namespace pmx::cli {

/// The flags as given; negative numbers: not given.
struct filter_options {
  std::string keep, remove, keep_fam, extract, exclude;
  std::vector<std::string> chr, not_chr, snps, hwe;  // hwe: P [midp]
  bool autosome = false, seed_given = false;
  int64_t from_bp = -1, to_bp = -1, thin_count = -1, thin_indiv_count = -1;
  std::vector<uint32_t> seeds{0};  // plink2's --seed: one value or several (a key)
  double mind = -1, geno = -1, maf = -1, max_maf = -1, mac = -1;
};

/// Adds --remove, --keep-fam, --exclude, --chr, --not-chr, --autosome, --from-bp, --to-bp, --snps,
/// --thin-count, --thin-indiv-count, --seed, --mind, --geno, --hwe, --maf, --max-maf and --mac (--keep and --extract
/// are the caller's, stored in `f` too).
void add_filter_options(CLI::App* cmd, filter_options& f);

/// Refuses (input_error) values out of range and the combinations plink2 refuses.
void check_filter_options(const filter_options& f);

/// Applies the filters in plink2's order and logs each one's effect as plink2 does: --keep-fam,
/// --keep, --remove; the chromosome/position selection, --extract, --snps, --exclude;
/// --thin-count, --thin-indiv-count; --mind; --geno, --hwe, --maf/--max-maf/--mac. Throws input_error naming the
/// filter that leaves no sample or no variant.
void apply_filters(selected_genotypes& data, const filter_options& f, const chromosome_set& chroms,
                   bool nonfounders, int threads, run_log& log);

}  // namespace pmx::cli
