// PREFIX.manhattan.png/.svg (plot_files.hpp): -log10 P along the genome, chromosomes in two
// alternating colours, the genome-wide line (and a dashed suggestive one) under the points.
#include <algorithm>
#include <cmath>

#include "formats/plot_canvas.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plot_files.hpp"

namespace pmx {

plot_drawing write_manhattan_plot(output_group& out, const std::string& prefix, const manhattan_layout& lay,
                                  const plot_style& s) {
  PMX_EXPECTS(!lay.points.empty(), "a layout with points");
  plot_drawing d;
  d.width = s.width > 0 ? s.width : 1600;
  d.height = s.height > 0 ? s.height : 640;
  const plot::plot_metrics m = plot::metrics_for(d.width, d.height);
  // y from 0 to a little above the highest point or line, whichever is higher.
  const double y_top = std::max({lay.y_max, -std::log10(s.genome_wide_p),
                                 s.suggestive_p > 0 ? -std::log10(s.suggestive_p) : 0.0}) * 1.06;
  const std::vector<axis_tick> y_ticks = axis_ticks(0, y_top, 6);
  const plot::measuring_context measure;
  plot_frame& f = d.frame;
  f = plot::frame_for(measure.get(), d.width, d.height, m, y_ticks, s.title);
  // A margin of a marker and a bit at both ends of the genome, so that no point sits on the y axis.
  const double x_margin = (m.radius * 2 + 2) / f.width * std::max(lay.x_end, 1.0);
  f.x_lo = -x_margin, f.x_hi = std::max(lay.x_end, 1.0) + x_margin;
  f.y_lo = 0, f.y_hi = y_top;

  // Chromosome labels that fit: measured at the tick font, a third of a font apart at least.
  std::vector<double> centre, width;
  for (const chromosome_span& c : lay.chromosomes) {
    centre.push_back(f.px(c.centre));
    width.push_back(plot::text_width(measure.get(), c.name, m.font));
  }
  const std::vector<bool> shown = spaced_labels(centre, width, m.font / 3, m.pad / 2, d.width - m.pad / 2);
  std::vector<double> at;
  std::vector<std::string> labels;
  for (size_t r = 0; r < lay.chromosomes.size(); ++r) {
    at.push_back(lay.chromosomes[r].centre);
    labels.push_back(shown[r] ? lay.chromosomes[r].name : std::string());
  }

  std::vector<uint32_t> keep;
  if (s.thin) keep = thin_points(lay.points, f);
  else for (uint32_t k = 0; k < lay.points.size(); ++k) keep.push_back(k);
  d.points_drawn = int64_t(keep.size());

  const auto draw = [&](cairo_t* cr) {
    plot::draw_title(cr, m, d.width, s.title);
    if (s.suggestive_p > 0) plot::draw_level(cr, f, m, -std::log10(s.suggestive_p), plot_suggestive_colour, true);
    plot::draw_level(cr, f, m, -std::log10(s.genome_wide_p), plot_significance_colour, false);
    plot::draw_markers(cr, f, m, lay.points, keep, plot_point_colours, 2);
    plot::draw_axes(cr, f, m, y_ticks, "\xe2\x88\x92log\xe2\x82\x81\xe2\x82\x80(P)");  // −log₁₀(P)
    plot::draw_x_labels(cr, f, m, at, labels, "Chromosome");
  };
  d.png = prefix + ".manhattan.png";
  d.svg = prefix + ".manhattan.svg";
  plot::write_png_and_svg(out, d.png, d.svg, d.width, d.height, draw);
  return d;
}

}  // namespace pmx
