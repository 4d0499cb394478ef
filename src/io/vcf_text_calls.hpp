// The sample columns of a VCF text line read straight into a .bed row, without htslib's parse of
// every FORMAT value into a BCF record (which is most of the time of reading a VCF: the reader
// lets htslib parse the eight fixed columns only). The call rules are vcf_calls.hpp's
// (apply_call_rule), so a text line and the same record in BCF give the same codes.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "io/vcf_calls.hpp"

namespace pmx::io {

/// Positions of GT, GQ and DP in a FORMAT column ("GT:AD:DP:GQ" -> 0, 3, 2); -1 where absent.
struct format_keys {
  int gt = -1, gq = -1, dp = -1;
};
format_keys find_format_keys(std::string_view format);

struct text_row {
  int64_t columns = 0;     ///< sample columns seen (counting stops at n + 1)
  int64_t half_calls = 0;
  gt_row_problem problem;  ///< as encode_gt_row reports it
};

/// Reads the sample columns in [p, end) (tab-separated, at least one: the text after the tab that
/// ends the FORMAT column)
/// into `row` (ceil(n/4) bytes, zeroed: padding calls stay 0) by the FORMAT keys: GT codes for
/// `n_alleles` (1 or 2) alleles, and where `gq`/`dp` are not null the GQ/DP values (integers, a
/// decimal floored, `int_missing` for '.' or absent) of each sample. Stops at the first problem
/// (as encode_gt_row) or when the column count differs from n (columns tells which).
text_row encode_gt_text(const char* p, const char* end, int64_t n, const format_keys& keys, int n_alleles,
                        vcf_half_call half, uint8_t* row, std::vector<int32_t>* gq, std::vector<int32_t>* dp);

}  // namespace pmx::io
