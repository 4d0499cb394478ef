// PLINK 2's variant selections by place and name: --chr, --not-chr, --autosome, --from-bp/--to-bp
// and --snps (IDs and ID ranges).
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "panoramix/chromosome_set.hpp"
#include "panoramix/genotype_records.hpp"
#include "panoramix/selected_genotypes.hpp"

namespace pmx {

/// Chromosomes and positions to keep; every part given must hold (intersection), as in plink2.
class chromosome_ranges {
 public:
  /// `chr` / `not_chr`: plink2's lists, items separated by commas or given as separate words,
  /// a numeric range "1-5" or a code ("X", "chr2", "23", "MT", a contig name). Throws input_error
  /// on a malformed range, --from-bp/--to-bp without exactly one --chr chromosome, or
  /// from > to. `from_bp`/`to_bp` < 0: not given.
  chromosome_ranges(const std::vector<std::string>& chr, const std::vector<std::string>& not_chr,
                    bool autosome, int64_t from_bp, int64_t to_bp, const chromosome_set& chroms);
  bool active() const { return has_chr_ || !not_chr_.empty() || autosome_ || from_ >= 0 || to_ >= 0; }
  bool keeps(const variant_record& v) const;

 private:
  chromosome_set chroms_;
  std::set<std::string> chr_, not_chr_;  // canonical names
  bool has_chr_ = false, autosome_ = false;
  int64_t from_ = -1, to_ = -1;
};

/// plink2 --snps: keeps the variants named in `items` (comma-separated or separate words); "a-b"
/// keeps every variant from ID a to ID b in file order (inclusive). Throws input_error when an ID
/// is not in the data (among all of its variants) or a range runs backwards.
void keep_snps(selected_genotypes& data, const std::vector<std::string>& items);

}  // namespace pmx
