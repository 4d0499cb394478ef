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

// ALT copies (0, 1, 2) -> code; A1 = ALT, so two ALT copies are "homozygous A1".
constexpr uint8_t code_of_alt_count[3] = {code_hom_a2, code_het, code_hom_a1};

}  // namespace

int64_t encode_gt_row(const int32_t* gt, int stride, int64_t n, int n_alleles, vcf_half_call half,
                      uint8_t* row, gt_row_problem& problem) {
  int64_t half_calls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t* v = gt + i * stride;
    int ploidy = 0;
    while (ploidy < stride && v[ploidy] != gt_vector_end) ++ploidy;
    // Ploidy 0 (no GT for this sample) and above 2 (plink2 reads no polyploid calls): missing.
    if (ploidy == 0 || ploidy > 2) {
      put(row, i, code_missing);
      continue;
    }
    int alt = 0, called = 0;
    for (int k = 0; k < ploidy; ++k) {
      if (allele_missing(v[k])) continue;
      const int a = allele_of(v[k]);
      if (a >= n_alleles) {
        problem = {i, gt_row_problem::kind::bad_allele, a};
        return half_calls;
      }
      alt += a, ++called;
    }
    if (called == 0) {
      put(row, i, code_missing);
      continue;
    }
    if (ploidy == 1) {  // a haploid call counts as homozygous, as in plink2's .bed
      put(row, i, code_of_alt_count[2 * alt]);
      continue;
    }
    if (called == 1) {  // "./A": a half-call
      ++half_calls;
      switch (half) {
        case vcf_half_call::error:
          problem = {i, gt_row_problem::kind::half_call, 0};
          return half_calls;
        case vcf_half_call::missing: put(row, i, code_missing); continue;
        case vcf_half_call::haploid: put(row, i, code_of_alt_count[2 * alt]); continue;
        case vcf_half_call::reference: break;  // the missing allele is REF: alt stays as counted
      }
    }
    put(row, i, code_of_alt_count[alt]);
  }
  return half_calls;
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
