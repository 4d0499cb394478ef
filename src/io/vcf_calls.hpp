// One VCF record's calls as a .bed row: GT values (htslib's integer encoding) to 2-bit codes with
// A1 = ALT, and the FORMAT/GQ, FORMAT/DP thresholds that make calls missing. No htslib here: the
// encoding constants are restated (vcf_file.cpp checks them against htslib's), so the rules can be
// tested on their own.
#pragma once
#include <cmath>
#include <cstdint>

#include "panoramix/genotype_view.hpp"
#include "panoramix/vcf_files.hpp"

namespace pmx::io {

/// htslib's GT encoding: (allele + 1) << 1 | phased; 0 or 1 = missing allele ('.'); a sample of
/// lower ploidy than the record's widest is padded with `gt_vector_end`.
inline constexpr int32_t gt_vector_end = INT32_MIN + 1;
/// The same padding in a BCF record's own 8-bit GT values (records of fewer than 63 alleles).
inline constexpr int8_t gt8_vector_end = INT8_MIN + 1;
/// Integer FORMAT values: missing ('.') and padding.
inline constexpr int32_t int_missing = INT32_MIN;
inline constexpr int32_t int_vector_end = INT32_MIN + 1;

/// ALT copies (0, 1, 2) -> .bed code; A1 = ALT, so two ALT copies are "homozygous A1".
constexpr uint8_t code_of_alt_count(int copies) {
  constexpr uint8_t codes[3] = {code_hom_a2, code_het, code_hom_a1};
  return codes[copies];
}

/// A Float FORMAT value (GQ, DP) as the integer the thresholds compare with: floored (x < m <=>
/// floor(x) < m for integer m), clamped to int32 beyond ±2e9 clear of the missing/padding codes.
inline int32_t floored_format_value(double x) {
  return x >= 2e9 ? INT32_MAX : x <= -2e9 ? INT32_MIN + 2 : static_cast<int32_t>(std::floor(x));
}

/// What went wrong in a row, for the reader's message (sample < 0: nothing).
struct gt_row_problem {
  int64_t sample = -1;
  enum class kind { none, half_call, bad_allele, malformed } what = kind::none;
  int allele = 0;  ///< with bad_allele: the allele index found
};

/// One call's .bed code from its GT as counted: `ploidy` alleles written, `called` of them not
/// '.', `alt` the sum of their allele indices (ALT copies). Ploidy 0 or above 2 and no called
/// allele: missing; ploidy 1: homozygous (plink2's .bed); a half-call ("./1") by `half`, `refused`
/// when `half` is error.
struct call_rule {
  uint8_t code;
  bool half_call, refused;
};
call_rule apply_call_rule(int ploidy, int called, int alt, vcf_half_call half);

/// Writes the codes of `n` samples into `row` (ceil(n/4) bytes, zeroed by the caller: padding calls
/// stay 0). `gt` holds `stride` values per sample; `n_alleles` is 1 (ALT ".") or 2. Returns the
/// number of half-calls; stops at the first problem that makes the file unreadable (a half-call
/// with vcf_half_call::error, an allele index >= n_alleles) and reports it in `problem`.
int64_t encode_gt_row(const int32_t* gt, int stride, int64_t n, int n_alleles, vcf_half_call half,
                      uint8_t* row, gt_row_problem& problem);

/// encode_gt_row on the 8-bit GT values as a BCF record stores them (no widening to int32).
int64_t encode_gt_row8(const int8_t* gt, int stride, int64_t n, int n_alleles, vcf_half_call half, uint8_t* row,
                       gt_row_problem& problem);

/// Sets to missing the calls of samples whose first value in `values` (`stride` per sample) is
/// below `min` (missing values and padding leave the call as it is). Returns how many calls
/// changed from called to missing.
int64_t mask_below(const int32_t* values, int stride, int64_t n, int32_t min, uint8_t* row);

}  // namespace pmx::io
