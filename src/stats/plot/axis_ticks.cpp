// Round-number ticks and the labels that fit along an axis (plot_geometry.hpp).
#include <cmath>
#include <cstdio>

#include "panoramix/error.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx {

std::vector<axis_tick> axis_ticks(double lo, double hi, int target) {
  PMX_EXPECTS(std::isfinite(lo) && std::isfinite(hi) && hi > lo && target >= 1, "a finite range with hi > lo");
  // The step: (hi - lo) / target rounded to 1, 2 or 5 times a power of ten, the nearest on a log scale.
  const double raw = (hi - lo) / target, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / magnitude;
  const double step = (r < std::sqrt(2.0) ? 1 : r < std::sqrt(10.0) ? 2 : r < std::sqrt(50.0) ? 5 : 10) * magnitude;
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  std::vector<axis_tick> ticks;
  // Multiples k·step (not sums of steps, which drift): k from ceil(lo/step) while k·step <= hi.
  const double slack = 1e-9 * step;
  for (double k = std::ceil((lo - slack) / step); k * step <= hi + slack; ++k) {
    const double v = k * step == 0 ? 0.0 : k * step;  // no "-0"
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    ticks.push_back({v, buf});
  }
  return ticks;
}

std::vector<bool> spaced_labels(std::span<const double> centre, std::span<const double> width, double gap, double lo,
                                double hi) {
  PMX_EXPECTS(centre.size() == width.size(), "one width per label");
  std::vector<bool> shown(centre.size(), false);
  double last_end = -INFINITY;
  for (size_t i = 0; i < centre.size(); ++i)
    if (centre[i] - width[i] / 2 >= std::max(last_end + gap, lo) && centre[i] + width[i] / 2 <= hi) {
      shown[i] = true;
      last_end = centre[i] + width[i] / 2;
    }
  return shown;
}

}  // namespace pmx
