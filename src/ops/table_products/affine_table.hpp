// The affine form of a code table, shared by the integer routes of the weighted products (the CPU
// AMX route, cpu_amx.hpp, and the cuda int8 tensor-core route, sample_sums/integer_weights.hpp).
//
// A table is affine when its three called entries lie on a line in the dosage, T[het] = (T[hom A1]
// + T[hom A2]) / 2 to 2^-48 of the largest entry, and a missing call maps to 0. Then
// T[code] = α + β y(code), with y ∈ {0, 1, 2} counting whichever allele makes |α| the smaller (so
// y is mostly 0 and the integer products are not much larger than the result): y counts A1 unless
// `counts_a2`.
#pragma once
#include <algorithm>
#include <cmath>

#include "panoramix/genotype_view.hpp"
#include "panoramix/ops/table_products.hpp"

namespace pmx::kernels {

struct affine_form {
  double alpha = 0, beta = 0;
  bool counts_a2 = false;
  /// y of a .bed code (a missing call gives 0).
  int y(uint8_t code) const {
    if (code == code_het) return 1;
    if (code == code_missing) return 0;
    return (code == code_hom_a1) != counts_a2 ? 2 : 0;
  }
};

/// The affine form of `t`, or false when it is not affine, its missing entry is not 0, or an
/// entry (or β², α²) is not finite.
inline bool affine_form_of(const code_table& t, affine_form& f) {
  const double t2 = t[code_hom_a1], t1 = t[code_het], t0 = t[code_hom_a2];
  if (t[code_missing] != 0 || !std::isfinite(t0) || !std::isfinite(t1) || !std::isfinite(t2)) return false;
  const double largest = std::max({std::abs(t0), std::abs(t1), std::abs(t2)});
  if (std::abs(t2 - 2 * t1 + t0) > std::ldexp(largest, -48)) return false;
  f.counts_a2 = std::abs(t2) < std::abs(t0);
  f.alpha = f.counts_a2 ? t2 : t0;
  f.beta = f.counts_a2 ? (t0 - t2) / 2 : (t2 - t0) / 2;
  return std::isfinite(f.beta * f.beta) && std::isfinite(f.alpha * f.alpha);
}

}  // namespace pmx::kernels
