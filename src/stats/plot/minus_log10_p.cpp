// The y of the association plots (plot_geometry.hpp): -log10 P, with P = 0 at the top.
#include <algorithm>
#include <cmath>

#include "panoramix/error.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx {

double place_minus_log10_p(std::span<plot_point> points, std::span<const double> p_of_point, int64_t& zero_p) {
  PMX_EXPECTS(points.size() == p_of_point.size(), "one P value per point");
  double y_max = 0;
  zero_p = 0;
  for (size_t k = 0; k < points.size(); ++k) {
    if (p_of_point[k] > 0) {
      points[k].y = -std::log10(p_of_point[k]);
      y_max = std::max(y_max, points[k].y);
    } else {
      ++zero_p;
    }
  }
  if (zero_p == int64_t(points.size())) y_max = 1;
  for (size_t k = 0; k < points.size(); ++k)
    if (!(p_of_point[k] > 0)) points[k].y = y_max;
  return y_max;
}

}  // namespace pmx
