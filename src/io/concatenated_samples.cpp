#include "panoramix/concatenated_samples.hpp"

#include <algorithm>

#include "panoramix/error.hpp"

namespace pmx {
namespace {

std::string describe(const variant_record& v) {
  return v.id + " (chromosome " + v.chrom + ", position " + std::to_string(v.pos) + ", A1 " + v.a1 + ", A2 " +
         v.a2 + ")";
}

}  // namespace

void check_same_variants(const genotype_source& a, const genotype_source& b) {
  const int64_t m = std::min(a.n_variants(), b.n_variants());
  for (int64_t j = 0; j < m; ++j) {
    const variant_record &x = a.variant(j), &y = b.variant(j);
    if (x.chrom != y.chrom || x.pos != y.pos || x.id != y.id || x.a1 != y.a1 || x.a2 != y.a2)
      throw input_error(b.name() + ": variant " + std::to_string(j + 1) + " is " + describe(y) + " but in " +
                        a.name() + " it is " + describe(x) + "; both must have the same variants in the same order");
  }
  if (a.n_variants() != b.n_variants())
    throw input_error(b.name() + " has " + std::to_string(b.n_variants()) + " variants and " + a.name() + " " +
                      std::to_string(a.n_variants()) + "; both must have the same variants");
}

concatenated_samples::concatenated_samples(const genotype_source& first, const genotype_source& second)
    : first_(first), second_(second), name_(first.name() + " + " + second.name()) {
  check_same_variants(first, second);
}

const sample_record& concatenated_samples::sample(int64_t i) const {
  return i < first_.n_samples() ? first_.sample(i) : second_.sample(i - first_.n_samples());
}

packed_genotypes concatenated_samples::read_block(int64_t first, int64_t count) const {
  const int64_t n1 = first_.n_samples(), n2 = second_.n_samples();
  packed_genotypes out(n1 + n2, count);
  packed_genotypes copy_a, copy_b;
  const variant_major_view a = first_.block(first, count, copy_a), b = second_.block(first, count, copy_b);
  for (int64_t j = 0; j < count; ++j) {
    uint8_t* row = out.row(j);
    std::copy_n(a.row(j), (n1 + 3) / 4, row);
    if (n1 % 4 == 0) {  // byte-aligned: the second source's row follows as is
      std::copy_n(b.row(j), (n2 + 3) / 4, row + n1 / 4);
      continue;
    }
    row[n1 / 4] &= static_cast<uint8_t>((1u << (2 * (n1 % 4))) - 1);  // drop the first row's padding
    for (int64_t i = 0; i < n2; ++i) {
      const int64_t s = n1 + i;
      row[s >> 2] |= static_cast<uint8_t>(b.code(i, j) << (2 * (s & 3)));
    }
  }
  return out;
}

}  // namespace pmx
