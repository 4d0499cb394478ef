// Points a raster leaves out (plot_geometry.hpp): of the markers snapped to one pixel in one
// colour, only the last drawn shows.
#include <algorithm>
#include <cmath>

#include "panoramix/error.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx {

double snapped_pixel(double v) { return std::floor(v) + 0.5; }

std::vector<uint32_t> thin_points(std::span<const plot_point> points, const plot_frame& f, double thin_below) {
  PMX_EXPECTS(points.size() < UINT32_MAX, "fewer than 2^32 points");
  int32_t colours = 1;
  for (const plot_point& p : points) {
    PMX_EXPECTS(p.colour >= 0 && p.colour < 64, "colour indices in [0, 64)");
    colours = std::max(colours, p.colour + 1);
  }
  // One bit per (pixel, colour) of the frame and a pixel's margin around it; pixels outside
  // that (clipped points) are never thinned.
  const int64_t x0 = int64_t(std::floor(f.left)) - 1, y0 = int64_t(std::floor(f.top)) - 1;
  const int64_t w = int64_t(std::ceil(f.width)) + 3, h = int64_t(std::ceil(f.height)) + 3;
  std::vector<bool> taken(size_t(w * h * colours), false);
  std::vector<uint32_t> keep;
  keep.reserve(points.size());
  // Backwards: the first time a (pixel, colour) is met is its last drawing.
  for (size_t k = points.size(); k-- > 0;) {
    const plot_point& p = points[k];
    if (p.y < thin_below) {
      const double px = std::floor(f.px(p.x)) - double(x0), py = std::floor(f.py(p.y)) - double(y0);
      if (px >= 0 && py >= 0 && px < double(w) && py < double(h)) {
        const size_t cell = (size_t(py) * size_t(w) + size_t(px)) * size_t(colours) + size_t(p.colour);
        if (taken[cell]) continue;
        taken[cell] = true;
      }
    }
    keep.push_back(uint32_t(k));
  }
  std::reverse(keep.begin(), keep.end());
  return keep;
}

}  // namespace pmx
