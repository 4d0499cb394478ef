// PREFIX.qq.png/.svg (plot_files.hpp): observed against expected -log10 P, the 95 % band of the
// null, the line y = x, and λ_GC with the number of P values in the corner.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "formats/plot_canvas.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plot_files.hpp"

namespace pmx {

plot_drawing write_qq_plot(output_group& out, const std::string& prefix, const qq_layout& q, const plot_style& s) {
  PMX_EXPECTS(!q.points.empty(), "a layout with points");
  plot_drawing d;
  d.width = s.width > 0 ? s.width : 720;
  d.height = s.height > 0 ? s.height : 720;
  const plot::plot_metrics m = plot::metrics_for(d.width, d.height);
  double band_top = 0;
  for (double v : q.band_high) band_top = std::max(band_top, v);
  const double x_top = q.x_max * 1.04, y_top = std::max({q.y_max, q.x_max, band_top}) * 1.05;
  const std::vector<axis_tick> y_ticks = axis_ticks(0, y_top, 6), x_ticks = axis_ticks(0, x_top, 6);
  const plot::measuring_context measure;
  plot_frame& f = d.frame;
  f = plot::frame_for(measure.get(), d.width, d.height, m, y_ticks, s.title);
  f.x_lo = 0, f.x_hi = x_top, f.y_lo = 0, f.y_hi = y_top;
  std::vector<double> at;
  std::vector<std::string> labels;
  for (const axis_tick& t : x_ticks) at.push_back(t.value), labels.push_back(t.label);

  std::vector<uint32_t> keep;
  if (s.thin) keep = thin_points(q.points, f);
  else for (uint32_t k = 0; k < q.points.size(); ++k) keep.push_back(k);
  d.points_drawn = int64_t(keep.size());

  char lambda[64];
  std::snprintf(lambda, sizeof lambda, " = %.3f", q.lambda_gc);
  const std::string n_text = "n = " + plot::with_thousands(int64_t(q.points.size()));

  const auto draw = [&](cairo_t* cr) {
    plot::draw_title(cr, m, d.width, s.title);
    cairo_save(cr);
    cairo_rectangle(cr, f.left, f.top, f.width, f.height);
    cairo_clip(cr);
    // The band: along its lower edge, back along the upper one.
    if (q.band_x.size() > 1) {
      for (size_t i = 0; i < q.band_x.size(); ++i) cairo_line_to(cr, f.px(q.band_x[i]), f.py(q.band_low[i]));
      for (size_t i = q.band_x.size(); i-- > 0;) cairo_line_to(cr, f.px(q.band_x[i]), f.py(q.band_high[i]));
      cairo_close_path(cr);
      plot::set_colour(cr, plot_band_colour);
      cairo_fill(cr);
    }
    const double diagonal = std::min(f.x_hi, f.y_hi);
    cairo_move_to(cr, f.px(0), f.py(0));
    cairo_line_to(cr, f.px(diagonal), f.py(diagonal));
    plot::set_colour(cr, plot_significance_colour);
    cairo_set_line_width(cr, m.line * 0.75);
    cairo_stroke(cr);
    cairo_restore(cr);
    plot::draw_markers(cr, f, m, q.points, keep, plot_point_colours, 2);
    plot::draw_axes(cr, f, m, y_ticks, "Observed \xe2\x88\x92log\xe2\x82\x81\xe2\x82\x80(P)");
    plot::draw_x_labels(cr, f, m, at, labels, "Expected \xe2\x88\x92log\xe2\x82\x81\xe2\x82\x80(P)");
    // λ_GC (a subscript GC) and n in the top-left corner, where the points of a QQ plot never are.
    const double x = f.left + m.font, y = f.top + m.font, size = m.axis_title();
    plot::draw_text(cr, "\xce\xbb", x, y, size, 0, 0);  // λ
    const double lw = plot::text_width(cr, "\xce\xbb", size);
    plot::draw_text(cr, "GC", x + lw + 0.05 * size, y + 0.45 * size, size * 0.7, 0, 0);
    plot::draw_text(cr, lambda, x + lw + 0.05 * size + plot::text_width(cr, "GC", size * 0.7), y, size, 0, 0);
    plot::draw_text(cr, n_text, x, y + 1.6 * size, size, 0, 0);
  };
  d.png = prefix + ".qq.png";
  d.svg = prefix + ".qq.svg";
  plot::write_png_and_svg(out, d.png, d.svg, d.width, d.height, draw);
  return d;
}

}  // namespace pmx
