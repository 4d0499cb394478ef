// Graffelman and Weir's exact HWE test on chromosome X, evaluated as plink2 evaluates it, so that
// its p-values and mid-p values are plink2's. The tables with the observed allele totals, females
// and males form rows, one per male allele-1 count; within a row the females' allele counts are
// fixed and a table is set by its female heterozygote count. Weights are relative to the observed
// table (1) in long double and move between neighbouring tables by exact ratios. The observed row
// is split into its centre (tables more likely than the observed one) and its two tails; the rows
// on either side follow, each from the previous row's two frontier tables (the tables at the edge
// of the centre) moved by one male allele, so that a row's tails are found in a few steps. Once
// a row has no table more likely than the observed one, it and the rows beyond it are all tail.
//
// Mid-p values subtract half the observed weight per tie, counting the ties plink2 counts (checked
// against plink2 in tests/io/test_plink_filters.cpp): the observed table; in the observed row, the
// tie at the edge of the low-heterozygote tail only when the observed table lies on the high side
// of the row's mode; in other rows, the ties met at their frontiers, but not the first table of a
// row found to be all tail.
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "panoramix/hardy_weinberg.hpp"

namespace pmx {
namespace {

constexpr long double tie = hwe_tie_tolerance;

// One female table of a row: its weight relative to the observed table and its counts.
struct table {
  long double w;
  long double het, hom1, hom2;
};

// Neighbours within a row: two heterozygotes fewer or more.
bool fewer_hets(table& x) {
  if (x.het < 2) return false;
  x.hom1 += 1, x.hom2 += 1;
  x.w *= x.het * (x.het - 1) / (4 * x.hom1 * x.hom2);
  x.het -= 2;
  return true;
}
bool more_hets(table& x) {
  if (x.hom1 < 1 || x.hom2 < 1) return false;
  x.het += 2;
  x.w *= 4 * x.hom1 * x.hom2 / (x.het * (x.het - 1));
  x.hom1 -= 1, x.hom2 -= 1;
  return true;
}

// Adds the tables past `x` (by `step`) to `sum` until they no longer change it.
template <class Step>
void add_beyond(table x, Step step, long double& sum) {
  while (step(x)) {
    const long double before = sum;
    sum += x.w;
    if (sum <= before) break;
  }
}

bool is_tie(long double w) { return w > 1 - tie; }

struct row_sums {
  long double tail = 0;
  int ties = 0;
};

// One side of a row, from that side's frontier table: returns false when the row has no table
// more likely than the observed one (the caller then takes it and the rows beyond as all tail).
// Otherwise adds the side's tail to `sums` and leaves `frontier` at the edge of the centre.
bool side_tail(table& frontier, bool high_side, row_sums& sums) {
  auto outward = [high_side](table& x) { return high_side ? more_hets(x) : fewer_hets(x); };
  auto inward = [high_side](table& x) { return high_side ? fewer_hets(x) : more_hets(x); };
  table start = frontier;
  long double tail = 0;
  if (frontier.w > 1 + tie) {
    // In the centre: out to the first tail table, which starts the tail.
    while (outward(start) && start.w > 1 + tie) {
    }
    frontier = start;
    if (start.w > 1 + tie) return true;  // every table of this side is more likely
  } else {
    // In the tail: in towards the centre, adding the tail tables met; past the row's mode without
    // meeting the centre means the whole row is tail.
    table x = start;
    for (;;) {
      const long double before = x.w;
      if (!inward(x) || x.w < before) return false;
      if (x.w > 1 + tie) break;
      sums.ties += is_tie(x.w);
      tail += x.w;
    }
    frontier = x;
  }
  sums.ties += is_tie(start.w);
  tail += start.w;
  add_beyond(start, outward, tail);
  sums.tail += tail;
  return true;
}

}  // namespace

double hwe_x_exact_p(int64_t female_hom1, int64_t female_het, int64_t female_hom2, int64_t male1, int64_t male2,
                     bool midp) {
  if (male1 + male2 == 0) return hwe_exact_p(female_hom1, female_het, female_hom2, midp);
  const table observed{1, static_cast<long double>(female_het), static_cast<long double>(female_hom1),
                       static_cast<long double>(female_hom2)};
  // The observed row: centre and tails; the frontiers for the next rows.
  long double tail = 1, centre = 0;
  int ties = 1;
  table left = observed, right = observed;
  const bool high_side = observed.het * observed.het > 4 * observed.hom1 * observed.hom2;
  table& scan = high_side ? left : right;  // the side the centre lies on
  for (;;) {
    if (!(high_side ? fewer_hets(scan) : more_hets(scan))) break;
    if (scan.w < 1 + tie) {
      if (high_side) ties += is_tie(scan.w);  // (plink2 does not count this tie on the low side)
      tail += scan.w;
      break;
    }
    centre += scan.w;
  }
  if (!std::isfinite(static_cast<double>(centre))) return 0.0;
  add_beyond(scan, high_side ? fewer_hets : more_hets, tail);
  add_beyond(observed, high_side ? more_hets : fewer_hets, tail);
  const long double observed_row = tail + centre;

  // The rows with more, then fewer, male allele-1 copies.
  const long double n1 = 2 * observed.hom1 + observed.het + male1, n2 = 2 * observed.hom2 + observed.het + male2;
  for (bool up : {true, false}) {
    long double m1 = male1, m2 = male2, row = observed_row;
    table l = left, r = right;
    // A male allele moves from one allele to the other; the females' counts follow.
    const int64_t steps = up ? std::min<int64_t>(2 * female_hom1 + female_het, male2)
                             : std::min<int64_t>(2 * female_hom2 + female_het, male1);
    for (int64_t k = 0; k < steps; ++k) {
      // Row weight: hypergeometric in the male allele-1 count.
      long double& gain = up ? m1 : m2;
      long double& lose = up ? m2 : m1;
      const long double female_gain_allele = (up ? n1 - m1 : n2 - m2), lost = lose;
      gain += 1, lose -= 1;
      row *= lost * female_gain_allele / (gain * ((up ? n2 : n1) - lose));
      // Left frontier: one heterozygote fewer if it has one, else one more.
      long double& l_to = up ? l.hom2 : l.hom1;
      long double& l_from = up ? l.hom1 : l.hom2;
      if (l.het != 0) {
        l_to += 1;
        l.w *= lost * l.het / (2 * gain * l_to);
        l.het -= 1;
      } else {
        l.het += 1;
        l.w *= 2 * lost * l_from / (gain * l.het);
        l_from -= 1;
      }
      row_sums sums;
      if (!side_tail(l, false, sums)) {
        // This row and the rows beyond are all tail (the ties met on the way in are counted, the
        // row's own first table is not).
        ties += sums.ties;
        for (;;) {
          const long double before = tail;
          tail += row;
          if (tail == before || lose < 1) break;
          const long double female_gain_now = up ? n1 - m1 : n2 - m2, female_lose_next = (up ? n2 - m2 : n1 - m1) + 1;
          row *= lose * female_gain_now / ((gain + 1) * female_lose_next);
          gain += 1, lose -= 1;
        }
        break;
      }
      // Right frontier: one heterozygote more if possible, else one fewer.
      long double& r_from = up ? r.hom1 : r.hom2;
      long double& r_to = up ? r.hom2 : r.hom1;
      if (r_from != 0) {
        r.het += 1;
        r.w *= 2 * lost * r_from / (gain * r.het);
        r_from -= 1;
      } else {
        r_to += 1;
        r.w *= lost * r.het / (2 * gain * r_to);
        r.het -= 1;
      }
      const long double left_tail = sums.tail;
      // A right side found to be all tail adds no tail (plink2 leaves that mass in the centre).
      const bool right_ok = side_tail(r, true, sums);
      const long double right_tail = right_ok ? sums.tail - left_tail : 0;
      tail += left_tail + right_tail;
      ties += sums.ties;
      centre += row - left_tail - right_tail;
    }
  }
  if (!std::isfinite(static_cast<double>(centre))) return 0.0;
  const long double total = tail + centre;
  return static_cast<double>(midp ? (tail - 0.5L * ties) / total : tail / total);
}

}  // namespace pmx
