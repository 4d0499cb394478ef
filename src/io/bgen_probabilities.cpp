#include "io/bgen_probabilities.hpp"

#include <cmath>
#include <cstring>

#include "panoramix/genotype_view.hpp"

namespace pmx::io {
namespace {

uint32_t u32_at(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// The B-bit value at bit `bit` of `data` (bits little-endian, as the specification packs them);
// `size` bounds the load so the last value never reads past the block.
inline uint32_t value_at(const uint8_t* data, size_t size, uint64_t bit, int bits) {
  const size_t at = static_cast<size_t>(bit >> 3);
  if (bits == 8) return data[at];  // the common depths are byte-aligned
  if (bits == 16) return uint32_t(data[at]) | uint32_t(data[at + 1]) << 8;
  uint64_t word = 0;
  if (size - at >= 8) std::memcpy(&word, data + at, 8);  // little-endian host (x86-64)
  else std::memcpy(&word, data + at, size - at);
  return static_cast<uint32_t>((word >> (bit & 7)) & ((uint64_t(1) << bits) - 1));
}

// The call regions in v, the dosage of the FIRST allele in units of 1/M (M = 2^B - 1, v in
// [0, 2M]): plink2 turns v into di = floor((16384 v + 2^(B-1)) / M) (exactly 16384 v at B = 1), its
// integer dosage in 1/16384, and calls round(di / 16384) first alleles when di is within T of a
// multiple of 16384 (T = 0: only exact multiples). The offset 2^(B-1) = (M + 1) / 2 rounds up a
// fraction just below 1/2 (16 bits: 1/2 - 1/131070), so the rounding is done on the first
// allele's scale, as plink2 does, not on the second's. di grows with v, so each region is an
// interval of v found once per variant.
struct call_regions {
  uint64_t max_none, min_one, max_one, min_two;  // first-allele count 0: v <= max_none; 1; 2
};

uint64_t dosage_units(uint64_t v, int bits) {
  if (bits == 1) return v * bgen_dosage_one;
  return (v * bgen_dosage_one + (uint64_t(1) << (bits - 1))) / ((uint64_t(1) << bits) - 1);
}

// The least v in [0, 2m + 1] with dosage_units(v) >= d (2m + 1 when none).
uint64_t first_at_least(uint64_t d, int bits) {
  const uint64_t m = (uint64_t(1) << bits) - 1;
  uint64_t lo = 0, hi = 2 * m + 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (dosage_units(mid, bits) >= d) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

call_regions regions(int bits, uint32_t t) {
  const uint64_t one = bgen_dosage_one;
  // v <= max_none <=> di <= t <=> v < first_at_least(t + 1); the others likewise (di(0) = 0).
  return {first_at_least(t + 1, bits) - 1, first_at_least(one - t, bits), first_at_least(one + t + 1, bits) - 1,
          first_at_least(2 * one - t, bits)};
}

// The .bed code of a first-allele dosage v (the second allele is the counted A1), 4 where uncertain.
constexpr uint8_t uncertain = 4;
uint8_t code_of_dosage(uint64_t v, const call_regions& r) {
  return v <= r.max_none                     ? code_hom_a1
         : v >= r.min_one && v <= r.max_one ? code_het
         : v >= r.min_two                    ? code_hom_a2
                                             : uncertain;
}

// The usual block (unphased, every sample diploid, 8 or 16 bits) in one tight pass: values read as
// bytes or little-endian words in order, four calls a row byte written whole, the counts kept in
// registers (the row's byte stores could alias the caller's counts). `code_of_v` (8 bits: v ≤ 510)
// holds each v's code; null: the regions' comparisons.
template <class T>
std::string decode_diploid(const uint8_t* ploidy, const uint8_t* probs, int64_t n, const call_regions& r,
                           const uint8_t* code_of_v, uint8_t* row, bgen_row_counts& counts) {
  constexpr uint64_t m = T(~T(0));
  int64_t missing = 0, unsure = 0;
  unsigned byte = 0;
  for (int64_t i = 0; i < n; ++i) {
    T v[2];
    std::memcpy(v, probs + 2 * sizeof(T) * static_cast<size_t>(i), sizeof v);  // little-endian host
    const uint64_t a = v[0], b = v[1];
    uint8_t code = code_missing;
    if (ploidy[i] & 0x80) {
      ++missing;
    } else {
      if (a + b > m)
        return "sample " + std::to_string(i + 1) + ": probabilities sum above 1 (" + std::to_string(a) + " + " +
               std::to_string(b) + " > " + std::to_string(m) + ")";
      const uint64_t v = 2 * a + b;
      code = code_of_v ? code_of_v[v] : code_of_dosage(v, r);
      if (code == uncertain) code = code_missing, ++unsure;
    }
    byte |= unsigned{code} << (2 * (i & 3));
    if ((i & 3) == 3) row[i >> 2] = static_cast<uint8_t>(byte), byte = 0;
  }
  if (n & 3) row[n >> 2] = static_cast<uint8_t>(byte);
  counts.missing += missing, counts.uncertain += unsure;
  return {};
}

// code_of_v for 8-bit probabilities (v in [0, 510]) and threshold t, made once per t and kept.
const uint8_t* codes_of_8bit_dosages(uint32_t t) {
  thread_local uint32_t made_for = UINT32_MAX;
  thread_local uint8_t table[511];
  if (made_for != t) {
    const call_regions r = regions(8, t);
    for (uint64_t v = 0; v <= 510; ++v) table[v] = code_of_dosage(v, r);
    made_for = t;
  }
  return table;
}

}  // namespace

uint32_t bgen_hard_call_units(double threshold) {
  // plink2: hard_call_thresh = (int)(threshold * (1 + kSmallEpsilon) * kDosageMid).
  return static_cast<uint32_t>(threshold * ((1 + std::ldexp(1.0, -44)) * bgen_dosage_one));
}

std::string decode_bgen_probabilities(const uint8_t* data, size_t size, int64_t n, int n_alleles,
                                      uint32_t t, uint8_t* row, bgen_row_counts& counts) {
  const size_t fixed = 10 + static_cast<size_t>(n);  // N, K, Pmin, Pmax, ploidies, phased, B
  if (size < fixed)
    return "the genotype block is " + std::to_string(size) + " bytes, too short for " + std::to_string(n) +
           " samples";
  if (u32_at(data) != static_cast<uint64_t>(n))
    return "the genotype block is for " + std::to_string(u32_at(data)) + " samples, the header says " +
           std::to_string(n);
  const int k = data[4] | data[5] << 8;
  if (k != n_alleles)
    return "the genotype block has " + std::to_string(k) + " alleles, the variant " + std::to_string(n_alleles);
  const int pmin = data[6], pmax = data[7];
  if (pmax > 2)
    return "ploidy up to " + std::to_string(pmax) + ": ploidy above 2 is not supported (nor by plink2)";
  if (pmin > pmax) return "minimum ploidy " + std::to_string(pmin) + " above maximum " + std::to_string(pmax);
  const uint8_t* ploidy = data + 8;
  const int phased = data[8 + n];
  const int bits = data[9 + n];
  if (phased > 1) return "phased flag " + std::to_string(phased) + " (0 or 1 expected)";
  if (bits < 1 || bits > 32) return "probabilities of " + std::to_string(bits) + " bits (1 to 32 expected)";
  if (bits > 28) return std::to_string(bits) + "-bit probabilities are not supported (nor by plink2: 1 to 28)";

  // Values per sample: unphased, ploidy 2 -> P(11), P(12); ploidy 1 -> P(1); phased: P(1) per
  // haplotype. Missing samples keep their (zero) values in the block.
  uint64_t values = 0;
  unsigned off = 0;  // one ploidy for all (the usual block): a check that vectorises
  if (pmin == pmax)
    for (int64_t i = 0; i < n; ++i) off |= static_cast<unsigned>(ploidy[i] & 63) ^ static_cast<unsigned>(pmin);
  else
    off = 1;
  if (!off) values = static_cast<uint64_t>(n) * static_cast<uint64_t>(pmin);
  for (int64_t i = 0; i < n && off; ++i) {
    const int p = ploidy[i] & 63;
    if (p < pmin || p > pmax)
      return "sample " + std::to_string(i + 1) + " has ploidy " + std::to_string(p) + ", outside the block's " +
             std::to_string(pmin) + ".." + std::to_string(pmax);
    values += static_cast<uint64_t>(p);
  }
  const uint64_t need = fixed + (values * static_cast<uint64_t>(bits) + 7) / 8;
  if (size < need)
    return "the genotype block is " + std::to_string(size) + " bytes, its probabilities need " +
           std::to_string(need);
  const uint8_t* probs = data + fixed;
  const size_t probs_size = size - fixed;
  const uint64_t m = (uint64_t(1) << bits) - 1;
  const call_regions r = regions(bits, t);
  if (!phased && pmin == 2 && pmax == 2 && bits == 8)
    return decode_diploid<uint8_t>(ploidy, probs, n, r, codes_of_8bit_dosages(t), row, counts);
  if (!phased && pmin == 2 && pmax == 2 && bits == 16)
    return decode_diploid<uint16_t>(ploidy, probs, n, r, nullptr, row, counts);
  uint64_t bit = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int p = ploidy[i] & 63;
    const bool missing = (ploidy[i] & 0x80) || p == 0;
    uint64_t v = 0;  // first-allele dosage in units of 1/m
    if (!missing) {
      if (phased) {
        for (int h = 0; h < p; ++h) v += value_at(probs, probs_size, bit + uint64_t(h) * bits, bits);
        if (p == 1) v *= 2;
      } else if (p == 2) {
        const uint64_t a = value_at(probs, probs_size, bit, bits), b = value_at(probs, probs_size, bit + bits, bits);
        if (a + b > m)
          return "sample " + std::to_string(i + 1) + ": probabilities sum above 1 (" + std::to_string(a) + " + " +
                 std::to_string(b) + " > " + std::to_string(m) + ")";
        v = 2 * a + b;
      } else {
        v = 2 * value_at(probs, probs_size, bit, bits);
      }
    }
    bit += uint64_t(p) * bits;
    uint8_t code = code_missing;
    if (missing) {
      ++counts.missing;
    } else {
      code = code_of_dosage(v, r);
      if (code == uncertain) code = code_missing, ++counts.uncertain;
    }
    row[i >> 2] |= static_cast<uint8_t>(code << (2 * (i & 3)));
  }
  return {};
}

}  // namespace pmx::io
