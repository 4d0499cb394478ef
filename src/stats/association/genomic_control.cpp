#include "panoramix/genomic_control.hpp"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <limits>
#include <vector>

#include "panoramix/error.hpp"

namespace pmx {

double chi2_1df_upper_quantile(double p) {
  PMX_EXPECTS(p >= 0 && p <= 1, "a P value in [0, 1]");
  if (p == 0) return std::numeric_limits<double>::infinity();
  if (p == 1) return 0;
  // χ²₁ is Gamma(1/2, scale 2): its upper-tail quantile is 2·Q⁻¹(1/2, p).
  return 2 * boost::math::gamma_q_inv(0.5, p);
}

double genomic_control_lambda(std::span<const double> p) {
  PMX_EXPECTS(!p.empty(), "at least one P value");
  // The χ² values fall as P rises, so their median is taken on P (no χ² for the rest): the middle
  // one or two P values, by selection rather than a full sort.
  std::vector<double> v(p.begin(), p.end());
  const size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double median = chi2_1df_upper_quantile(v[mid]);
  if (n % 2 == 0) {
    const double below = *std::max_element(v.begin(), v.begin() + mid);  // the other middle value
    median = (median + chi2_1df_upper_quantile(below)) / 2;
  }
  // qchisq(0.5, 1) = 0.454936423119572...
  static const double chi2_median = chi2_1df_upper_quantile(0.5);
  return median / chi2_median;
}

}  // namespace pmx
