// What the Manhattan and QQ drawings share (cairo): the two files written from one drawing
// function, text in one font with unhinted metrics (so that the PNG and the SVG measure it
// alike), the frame's margins, the axes and the point markers.
#pragma once
#include <cairo.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "panoramix/output_file.hpp"
#include "panoramix/plot_files.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx::plot {

/// Sizes of a drawing, from its pixel size: text, ticks, margins and markers grow with it.
struct plot_metrics {
  double font = 14;       ///< tick labels; axis titles 1.15x, the title 1.35x
  double tick = 5;        ///< tick mark length
  double pad = 14;        ///< outer margin
  double line = 2;        ///< significance lines (whole pixels, so they stay crisp)
  double radius = 2.4;    ///< point markers
  double axis_title() const { return font * 1.15; }
  double title() const { return font * 1.35; }
};

plot_metrics metrics_for(int width, int height);

/// Sets the plots' font (sans-serif, unhinted metrics) at `size`.
void set_font(cairo_t* cr, double size, bool bold = false);
void set_colour(cairo_t* cr, plot_rgb c);

/// Width of `text` at `size`.
double text_width(cairo_t* cr, const std::string& text, double size, bool bold = false);

/// Draws `text` with its anchor at (x, y): ax = 0 left, 0.5 centre, 1 right of the text; ay = 0
/// puts the top of the digits at y, 0.5 their middle, 1 the baseline. `angle` in radians turns
/// the text about the anchor (-pi/2: reading upwards).
void draw_text(cairo_t* cr, const std::string& text, double x, double y, double size, double ax, double ay,
               double angle = 0, bool bold = false);

/// A cairo context on a 1 × 1 image, for measuring text before the drawing exists.
class measuring_context {
 public:
  measuring_context();
  ~measuring_context();
  measuring_context(const measuring_context&) = delete;
  measuring_context& operator=(const measuring_context&) = delete;
  cairo_t* get() const { return cr_; }

 private:
  cairo_surface_t* surface_;
  cairo_t* cr_;
};

/// The frame of a w × h drawing with y tick labels `y_ticks` on the left, one line of x labels
/// and an x-axis title below, and a title above when `title` is not empty.
plot_frame frame_for(cairo_t* measure, int w, int h, const plot_metrics& m, const std::vector<axis_tick>& y_ticks,
                     const std::string& title);

/// The y axis (line, ticks, labels, the title reading upwards) and the x axis line.
void draw_axes(cairo_t* cr, const plot_frame& f, const plot_metrics& m, const std::vector<axis_tick>& y_ticks,
               const std::string& y_title);
/// Tick marks and labels below the x axis at data positions `at` (labels empty: not shown), and
/// the x-axis title centred under them.
void draw_x_labels(cairo_t* cr, const plot_frame& f, const plot_metrics& m, std::span<const double> at,
                   std::span<const std::string> labels, const std::string& x_title);
/// The title centred above the frame.
void draw_title(cairo_t* cr, const plot_metrics& m, int width, const std::string& title);

/// Markers for points[keep[...]] in `colours` (by the point's colour index), those with
/// y < thin_below centred on their pixel (thin_points). Each marker is its own small filled path:
/// cairo fills a path of many overlapping circles far more slowly than the circles one by one.
void draw_markers(cairo_t* cr, const plot_frame& f, const plot_metrics& m, std::span<const plot_point> points,
                  std::span<const uint32_t> keep, std::span<const plot_rgb> colours, double thin_below);

/// A horizontal line across the frame at data y, `dashed` or solid, aligned to whole pixels.
void draw_level(cairo_t* cr, const plot_frame& f, const plot_metrics& m, double y, plot_rgb colour, bool dashed);

/// "12,345".
std::string with_thousands(int64_t v);

/// Adds `png` and `svg` (w × h) to `out`, each drawn by `draw` on its own cairo surface.
void write_png_and_svg(output_group& out, const std::string& png, const std::string& svg, int w, int h,
                       const std::function<void(cairo_t*)>& draw);

}  // namespace pmx::plot
