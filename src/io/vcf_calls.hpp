// One VCF record's calls as a .bed row: GT values (htslib's integer encoding) to 2-bit codes with
// A1 = ALT, and the FORMAT/GQ, FORMAT/DP thresholds that make calls missing. No htslib here: the
// encoding constants are restated (vcf_file.cpp checks them against htslib's), so the rules can be
// tested on their own.
#pragma once
#include <cstdint>

#include "panoramix/vcf_files.hpp"

namespace pmx::io {

/// htslib's GT encoding: (allele + 1) << 1 | phased; 0 or 1 = missing allele ('.'); a sample of
/// lower ploidy than the record's widest is padded with `gt_vector_end`.
inline constexpr int32_t gt_vector_end = INT32_MIN + 1;
/// Integer FORMAT values: missing ('.') and padding.
inline constexpr int32_t int_missing = INT32_MIN;
inline constexpr int32_t int_vector_end = INT32_MIN + 1;

/// What went wrong in a row, for the reader's message (sample < 0: nothing).
struct gt_row_problem {
  int64_t sample = -1;
  enum class kind { none, half_call, bad_allele } what = kind::none;
  int allele = 0;  ///< with bad_allele: the allele index found
};

/// Writes the codes of `n` samples into `row` (ceil(n/4) bytes, zeroed by the caller: padding calls
/// stay 0). `gt` holds `stride` values per sample; `n_alleles` is 1 (ALT ".") or 2. Returns the
/// number of half-calls; stops at the first problem that makes the file unreadable (a half-call
/// with vcf_half_call::error, an allele index >= n_alleles) and reports it in `problem`.
int64_t encode_gt_row(const int32_t* gt, int stride, int64_t n, int n_alleles, vcf_half_call half,
                      uint8_t* row, gt_row_problem& problem);

/// Sets to missing the calls of samples whose first value in `values` (`stride` per sample) is
/// below `min` (missing values and padding leave the call as it is). Returns how many calls
/// changed from called to missing.
int64_t mask_below(const int32_t* values, int stride, int64_t n, int32_t min, uint8_t* row);

}  // namespace pmx::io
