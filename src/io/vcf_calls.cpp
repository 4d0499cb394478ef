// GT values to .bed codes, as plink2 imports them (checked call by call in tests/io/test_vcf_file.cpp).
#include "io/vcf_calls.hpp"

#include "panoramix/genotype_view.hpp"

namespace pmx::io {
namespace {

inline bool allele_missing(int32_t v) { return (v >> 1) == 0; }
inline int allele_of(int32_t v) { return (v >> 1) - 1; }

inline void put(uint8_t* row, int64_t i, uint8_t code) {
  row[i >> 2] = static_cast<uint8_t>((row[i >> 2] & ~(3u << (2 * (i & 3)))) | (code << (2 * (i & 3))));
}


}  // namespace

call_rule apply_call_rule(int ploidy, int called, int alt, vcf_half_call half) {
  // Ploidy 0 (no GT for this sample) and above 2 (plink2 reads no polyploid calls): missing.
  if (ploidy == 0 || ploidy > 2 || called == 0) return {code_missing, false, false};
  if (ploidy == 1) return {code_of_alt_count(2 * alt), false, false};  // haploid: homozygous, as plink2's .bed
  if (called == 1) {  // "./A": a half-call
    switch (half) {
      case vcf_half_call::error: return {code_missing, true, true};
      case vcf_half_call::missing: return {code_missing, true, false};
      case vcf_half_call::haploid: return {code_of_alt_count(2 * alt), true, false};
      case vcf_half_call::reference: return {code_of_alt_count(alt), true, false};  // the missing allele is REF
    }
  }
  return {code_of_alt_count(alt), false, false};
}

namespace {

// The code of sample i's call (v: its `stride` values); sets `problem` and returns code_missing for a call that
// makes the file unreadable.
template <class T>
inline uint8_t code_of_values(const T* v, int stride, T vector_end, int64_t i, int n_alleles, vcf_half_call half,
                              int64_t& half_calls, gt_row_problem& problem) {
  if (stride == 2) {  // the common diploid call with both alleles known: a1 - 1 + a2 - 1 ALT copies
    const int a1 = v[0] >> 1, a2 = v[1] >> 1;  // 0: missing allele, k + 1: allele k (vector_end < 0)
    if (static_cast<unsigned>(a1 - 1) < static_cast<unsigned>(n_alleles) &&
        static_cast<unsigned>(a2 - 1) < static_cast<unsigned>(n_alleles))
      return code_of_alt_count(a1 + a2 - 2);
  }
  int ploidy = 0;
  while (ploidy < stride && v[ploidy] != vector_end) ++ploidy;
  int alt = 0, called = 0;
  for (int k = 0; k < ploidy && ploidy <= 2; ++k) {
    if (allele_missing(v[k])) continue;
    const int a = allele_of(v[k]);
    if (a >= n_alleles) {
      problem = {i, gt_row_problem::kind::bad_allele, a};
      return code_missing;
    }
    alt += a, ++called;
  }
  const call_rule c = apply_call_rule(ploidy, called, alt, half);
  half_calls += c.half_call;
  if (c.refused) problem = {i, gt_row_problem::kind::half_call, 0};
  return c.code;
}

// Four codes a byte, written whole (the caller's row is zeroed; the padding calls stay 0).
template <class T>
int64_t encode_gt_values(const T* gt, int stride, T vector_end, int64_t n, int n_alleles, vcf_half_call half,
                         uint8_t* row, gt_row_problem& problem) {
  int64_t half_calls = 0;
  unsigned byte = 0;
  gt_row_problem found;  // a local: the row's stores could alias the caller's (uint8_t), forcing a reload a call
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t code = code_of_values(gt + i * stride, stride, vector_end, i, n_alleles, half, half_calls, found);
    if (found.sample >= 0) {
      problem = found;
      return half_calls;
    }
    byte |= unsigned{code} << (2 * (i & 3));
    if ((i & 3) == 3) row[i >> 2] = static_cast<uint8_t>(byte), byte = 0;
  }
  if (n & 3) row[n >> 2] = static_cast<uint8_t>(byte);
  return half_calls;
}

}  // namespace

int64_t encode_gt_row(const int32_t* gt, int stride, int64_t n, int n_alleles, vcf_half_call half, uint8_t* row,
                      gt_row_problem& problem) {
  return encode_gt_values<int32_t>(gt, stride, gt_vector_end, n, n_alleles, half, row, problem);
}

int64_t encode_gt_row8(const int8_t* gt, int stride, int64_t n, int n_alleles, vcf_half_call half, uint8_t* row,
                       gt_row_problem& problem) {
  return encode_gt_values<int8_t>(gt, stride, gt8_vector_end, n, n_alleles, half, row, problem);
}

int64_t mask_below(const int32_t* values, int stride, int64_t n, int32_t min, uint8_t* row) {
  int64_t masked = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t x = values[i * stride];
    if (x == int_missing || x == int_vector_end || x >= min) continue;
    const int shift = static_cast<int>(2 * (i & 3));
    if (((row[i >> 2] >> shift) & 3) == code_missing) continue;
    put(row, i, code_missing);
    ++masked;
  }
  return masked;
}

}  // namespace pmx::io
