// The association plots as files: PREFIX.manhattan.png/.svg and PREFIX.qq.png/.svg, drawn with
// cairo (plot_geometry.hpp gives the geometry). Each picture is drawn once per surface by one
// drawing function, so the PNG and the SVG show the same thing. A build without cairo draws
// nothing: plots_compiled_in() says so, and the writers throw unsupported_error.
#pragma once
#include <cstdint>
#include <string>

#include "panoramix/output_file.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx {

struct plot_style {
  int width = 0, height = 0;    ///< pixels (SVG: px units); 0: 1600 × 640 Manhattan, 720 × 720 QQ
  std::string title;            ///< above the plot; empty: none
  double genome_wide_p = 5e-8;  ///< Manhattan: the significance line
  double suggestive_p = 0;      ///< Manhattan: a second, dashed line (e.g. 1e-5); 0: none
  bool thin = true;             ///< leave out points that are drawn over (thin_points)
};

/// Colours as 8-bit RGB, for the drawing and for checking a picture.
struct plot_rgb {
  uint8_t r, g, b;
};
inline constexpr plot_rgb plot_point_colours[2] = {{0x23, 0x4a, 0x78}, {0x7a, 0xa5, 0xd2}};
inline constexpr plot_rgb plot_significance_colour = {0xc8, 0x1e, 0x1e};  ///< genome-wide line, QQ's y = x
inline constexpr plot_rgb plot_suggestive_colour = {0x70, 0x70, 0x70};
inline constexpr plot_rgb plot_band_colour = {0xe0, 0xe0, 0xe0};  ///< QQ's 95 % band

/// What was drawn: the plotting area (the same in both files), the size and the points drawn.
struct plot_drawing {
  plot_frame frame;
  int width = 0, height = 0;
  int64_t points_drawn = 0;
  std::string png, svg;  ///< the file names
};

/// True when this build draws (cairo was found).
bool plots_compiled_in();
/// Throws unsupported_error, saying why, when it does not.
void require_plots();

/// Adds PREFIX.manhattan.png and PREFIX.manhattan.svg to `out`.
plot_drawing write_manhattan_plot(output_group& out, const std::string& prefix, const manhattan_layout& m,
                                  const plot_style& s);

/// Adds PREFIX.qq.png and PREFIX.qq.svg to `out`; λ_GC and the number of P values are printed on it.
plot_drawing write_qq_plot(output_group& out, const std::string& prefix, const qq_layout& q, const plot_style& s);

}  // namespace pmx
