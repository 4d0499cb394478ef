// QQ plot quantiles, λ_GC and the null band of the order statistics (plot_geometry.hpp).
#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <functional>

#include "panoramix/error.hpp"
#include "panoramix/genomic_control.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx {

qq_layout layout_qq(std::span<const double> p_in) {
  PMX_EXPECTS(!p_in.empty(), "at least one P value");
  // Largest P first: drawing order bottom-left to top-right, the strongest signals on top.
  std::vector<double> p(p_in.begin(), p_in.end());
  std::sort(p.begin(), p.end(), std::greater<>());
  const size_t n = p.size();
  qq_layout q;
  q.lambda_gc = genomic_control_lambda(p);
  q.points.resize(n);
  for (size_t k = 0; k < n; ++k) q.points[k].x = -std::log10((double(n - k) - 0.5) / double(n));  // rank n - k
  q.y_max = place_minus_log10_p(q.points, p, q.zero_p);
  q.x_max = -std::log10(0.5 / double(n));
  // The band at up to ~300 ranks spread evenly in -log10 of the expected P (every rank where n is
  // small): the beta quantiles cost far more than a point, and the band is smooth.
  const size_t steps = std::min<size_t>(n, 300);
  size_t last = SIZE_MAX;
  for (size_t s = 0; s < steps; ++s) {
    // rank from n down to 1, evenly in log(rank)
    const double f = steps == 1 ? 1.0 : double(s) / double(steps - 1);
    const size_t rank = std::clamp<size_t>(size_t(std::llround(std::exp((1 - f) * std::log(double(n))))), 1, n);
    if (rank == last) continue;
    last = rank;
    const double a = double(rank), b = double(n - rank + 1);
    q.band_x.push_back(-std::log10((a - 0.5) / double(n)));
    q.band_low.push_back(-std::log10(boost::math::ibeta_inv(a, b, 0.975)));
    q.band_high.push_back(-std::log10(boost::math::ibeta_inv(a, b, 0.025)));
  }
  return q;
}

}  // namespace pmx
