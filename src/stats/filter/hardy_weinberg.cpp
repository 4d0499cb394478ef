// Exact HWE test: the heterozygote count's distribution given the allele counts, walked outward from
// the observed count by the ratio of neighbouring probabilities (Wigginton et al. 2005), every term
// relative to the observed one, so no factorials and no normalisation of the whole distribution.
#include "panoramix/hardy_weinberg.hpp"

#include <algorithm>

namespace pmx {

double hwe_exact_p(int64_t hom1, int64_t het, int64_t hom2, bool midp) {
  const int64_t n = hom1 + het + hom2;
  if (n == 0) return midp ? 0.5 : 1.0;
  const double homr0 = double(std::min(hom1, hom2)), homc0 = double(std::max(hom1, hom2));
  constexpr double tie = hwe_tie_tolerance, negligible = 1e-17, big = 1e280;
  // Terms relative to P(observed) = 1: at most as likely (tail, ties among them) or more (centre).
  // `unit` is P(observed) in the current scale (1 until a rescale).
  double tail = 1.0, ties = 1.0, centre = 0.0, unit = 1.0;
  auto add = [&](double t) {
    if (t > unit * (1 + tie)) {
      centre += t;
    } else {
      tail += t;
      if (t >= unit * (1 - tie)) ties += t;
    }
    if (centre > big) {  // p below 1e-280 at least: rescale rather than overflow
      centre /= big, tail /= big, ties /= big, unit /= big;
      return 1.0 / big;
    }
    return 1.0;
  };
  // Fewer heterozygotes: P(h-2)/P(h) = h(h-1) / (4 (homr+1)(homc+1)).
  double h = double(het), r = homr0, c = homc0, t = 1.0, prev = 1.0;
  while (h > 1.5) {
    r += 1, c += 1;
    t *= h * (h - 1) / (4 * r * c);
    h -= 2;
    const double s = add(t);
    t *= s, prev *= s;
    if (t < prev && t < negligible * tail) break;  // past the mode and below rounding of the tail
    prev = t;
  }
  // More heterozygotes: P(h+2)/P(h) = 4 homr homc / ((h+2)(h+1)).
  h = double(het), r = homr0, c = homc0, t = 1.0, prev = 1.0;
  while (r > 0.5) {
    t *= 4 * r * c / ((h + 2) * (h + 1));
    h += 2, r -= 1, c -= 1;
    const double s = add(t);
    t *= s, prev *= s;
    if (t < prev && t < negligible * tail) break;
    prev = t;
  }
  const double total = tail + centre;
  return midp ? (tail - 0.5 * ties) / total : tail / total;
}

}  // namespace pmx
