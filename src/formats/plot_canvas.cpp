#include "formats/plot_canvas.hpp"

#include <cairo-svg.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>

#include "panoramix/error.hpp"

namespace pmx::plot {
namespace {

constexpr plot_rgb text_colour = {0x1a, 0x1a, 0x1a}, axis_colour = {0x33, 0x33, 0x33};

// Height of the digits (cap height) at `size`: labels are placed by it rather than by the font's
// ascent, which makes room for accents that numbers and chromosome names do not have.
double digit_height(cairo_t* cr, double size) {
  set_font(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, "0", &e);
  return -e.y_bearing;
}

struct surface_deleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct context_deleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
using surface_ptr = std::unique_ptr<cairo_surface_t, surface_deleter>;
using context_ptr = std::unique_ptr<cairo_t, context_deleter>;

// cairo writes through this callback; an output_file error cannot unwind through cairo's C frames,
// so it is kept here and thrown again once cairo has returned.
struct stream_target {
  output_file* file;
  std::exception_ptr error;
};

cairo_status_t write_chunk(void* closure, const unsigned char* data, unsigned int length) {
  auto* t = static_cast<stream_target*>(closure);
  try {
    t->file->write(data, length);
    return CAIRO_STATUS_SUCCESS;
  } catch (...) {
    t->error = std::current_exception();
    return CAIRO_STATUS_WRITE_ERROR;
  }
}

void check(cairo_status_t status, const stream_target& t, const std::string& what) {
  if (t.error) std::rethrow_exception(t.error);
  if (status != CAIRO_STATUS_SUCCESS)
    throw io_error("cannot draw '" + what + "': " + cairo_status_to_string(status));
}

void paint(cairo_surface_t* surface, const std::string& name, const std::function<void(cairo_t*)>& draw) {
  const context_ptr cr(cairo_create(surface));
  set_colour(cr.get(), {0xff, 0xff, 0xff});  // white under everything, in the SVG too (dark viewers)
  cairo_paint(cr.get());
  draw(cr.get());
  const stream_target none{nullptr, nullptr};
  check(cairo_status(cr.get()), none, name);
}

}  // namespace

plot_metrics metrics_for(int width, int height) {
  // Sized by the shorter side, so that a square QQ plot and a wide Manhattan plot of the same
  // height read alike: 14 px tick labels at 640 px, never below 11 px (small pictures stay legible).
  const double s = std::min(width, height) / 640.0;
  plot_metrics m;
  m.font = std::max(11.0, 14 * s);
  m.tick = m.font * 5 / 14;
  m.pad = m.font;
  m.line = std::max(1.0, std::round(1.5 * s));
  m.radius = std::max(1.6, 2.4 * s);
  return m;
}

void set_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_font_options_t* o = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias(o, CAIRO_ANTIALIAS_GRAY);
  cairo_set_font_options(cr, o);
  cairo_font_options_destroy(o);
}

void set_colour(cairo_t* cr, plot_rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

double text_width(cairo_t* cr, const std::string& text, double size, bool bold) {
  set_font(cr, size, bold);
  cairo_text_extents_t e;
  cairo_text_extents(cr, text.c_str(), &e);
  return e.x_advance;
}

void draw_text(cairo_t* cr, const std::string& text, double x, double y, double size, double ax, double ay,
               double angle, bool bold) {
  const double w = text_width(cr, text, size, bold), h = digit_height(cr, size);
  set_font(cr, size, bold);
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, -ax * w, (1 - ay) * h);
  set_colour(cr, text_colour);
  cairo_show_text(cr, text.c_str());
  cairo_new_path(cr);
  cairo_restore(cr);
}

measuring_context::measuring_context()
    : surface_(cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1)), cr_(cairo_create(surface_)) {}

measuring_context::~measuring_context() {
  cairo_destroy(cr_);
  cairo_surface_destroy(surface_);
}

plot_frame frame_for(cairo_t* measure, int w, int h, const plot_metrics& m, const std::vector<axis_tick>& y_ticks,
                     const std::string& title) {
  double label_width = 0;
  for (const axis_tick& t : y_ticks) label_width = std::max(label_width, text_width(measure, t.label, m.font));
  const double digits = digit_height(measure, m.font), title_digits = digit_height(measure, m.axis_title());
  plot_frame f;
  // Left: outer margin, the y title (reading upwards: its height is its width here), a gap, the
  // tick labels, a gap, the ticks. Below: ticks, gap, labels, gap, x title, outer margin.
  f.left = m.pad + title_digits * 1.3 + 0.9 * m.font + label_width + 0.4 * m.font + m.tick;
  const double bottom = m.tick + 0.5 * m.font + digits + 0.9 * m.font + title_digits * 1.3 + m.pad;
  f.top = m.pad + (title.empty() ? 0.4 * m.font : digit_height(measure, m.title()) * 1.3 + 0.9 * m.font);
  f.width = w - f.left - m.pad * 1.5;
  f.height = h - f.top - bottom;
  if (f.width < 20 || f.height < 20)
    throw input_error("a plot of " + std::to_string(w) + " x " + std::to_string(h) +
                      " pixels leaves no room inside its axes: make it larger");
  return f;
}

void draw_axes(cairo_t* cr, const plot_frame& f, const plot_metrics& m, const std::vector<axis_tick>& y_ticks,
               const std::string& y_title) {
  // Lines on half pixels so that a 1 px line covers one row or column.
  const double lw = std::max(1.0, std::round(m.font / 14));
  const double x0 = std::round(f.left) - lw / 2, y0 = std::round(f.top + f.height) + lw / 2;
  set_colour(cr, axis_colour);
  cairo_set_line_width(cr, lw);
  cairo_move_to(cr, x0, f.top);
  cairo_line_to(cr, x0, y0);
  cairo_line_to(cr, f.left + f.width, y0);
  for (const axis_tick& t : y_ticks) {
    const double y = std::floor(f.py(t.value)) + 0.5 * lw;
    cairo_move_to(cr, x0, y);
    cairo_line_to(cr, x0 - m.tick, y);
  }
  cairo_stroke(cr);
  double label_width = 0;
  for (const axis_tick& t : y_ticks) {
    draw_text(cr, t.label, x0 - m.tick - 0.4 * m.font, f.py(t.value), m.font, 1, 0.5);
    label_width = std::max(label_width, text_width(cr, t.label, m.font));
  }
  const double title_x = x0 - m.tick - 0.4 * m.font - label_width - 0.9 * m.font;
  draw_text(cr, y_title, title_x, f.top + f.height / 2, m.axis_title(), 0.5, 1, -M_PI / 2);
}

void draw_x_labels(cairo_t* cr, const plot_frame& f, const plot_metrics& m, std::span<const double> at,
                   std::span<const std::string> labels, const std::string& x_title) {
  const double lw = std::max(1.0, std::round(m.font / 14));
  const double y0 = std::round(f.top + f.height) + lw;
  set_colour(cr, axis_colour);
  cairo_set_line_width(cr, lw);
  for (size_t i = 0; i < at.size(); ++i) {
    if (labels[i].empty()) continue;
    const double x = std::floor(f.px(at[i])) + 0.5 * lw;
    cairo_move_to(cr, x, y0);
    cairo_line_to(cr, x, y0 + m.tick);
  }
  cairo_stroke(cr);
  const double label_top = y0 + m.tick + 0.5 * m.font;
  for (size_t i = 0; i < at.size(); ++i)
    if (!labels[i].empty()) draw_text(cr, labels[i], f.px(at[i]), label_top, m.font, 0.5, 0);
  const double digits = digit_height(cr, m.font);
  draw_text(cr, x_title, f.left + f.width / 2, label_top + digits + 0.9 * m.font, m.axis_title(), 0.5, 0);
}

void draw_title(cairo_t* cr, const plot_metrics& m, int width, const std::string& title) {
  if (title.empty()) return;
  draw_text(cr, title, width / 2.0, m.pad, m.title(), 0.5, 0, 0, true);
}

void draw_markers(cairo_t* cr, const plot_frame& f, const plot_metrics& m, std::span<const plot_point> points,
                  std::span<const uint32_t> keep, std::span<const plot_rgb> colours, double thin_below) {
  cairo_save(cr);
  // Clip to the frame widened by a marker, so that points on the axes' ends are drawn whole.
  cairo_rectangle(cr, f.left - m.radius - 1, f.top - m.radius - 1, f.width + 2 * m.radius + 2,
                  f.height + 2 * m.radius + 2);
  cairo_clip(cr);
  int32_t current = -1;
  bool crisp = false;
  for (uint32_t k : keep) {
    const plot_point& p = points[k];
    if (p.colour != current) {
      current = p.colour;
      set_colour(cr, colours[size_t(current) % colours.size()]);
    }
    double x = f.px(p.x), y = f.py(p.y);
    // Markers that thinning may leave out are drawn without antialiasing on their pixel's centre:
    // each covers the same whole pixels as any other in that pixel, so drawing one again over
    // itself changes nothing and leaving out all but the last gives the same image to the bit.
    if ((p.y < thin_below) != crisp) {
      crisp = !crisp;
      cairo_set_antialias(cr, crisp ? CAIRO_ANTIALIAS_NONE : CAIRO_ANTIALIAS_DEFAULT);
    }
    if (crisp) x = snapped_pixel(x), y = snapped_pixel(y);
    cairo_new_path(cr);
    cairo_arc(cr, x, y, m.radius, 0, 2 * M_PI);
    cairo_fill(cr);
  }
  cairo_restore(cr);
}

void draw_level(cairo_t* cr, const plot_frame& f, const plot_metrics& m, double y, plot_rgb colour, bool dashed) {
  // An odd width on a pixel centre, an even one on a pixel edge: every row it touches is covered whole.
  const double at = std::fmod(m.line, 2.0) == 1 ? snapped_pixel(f.py(y)) : std::round(f.py(y));
  cairo_save(cr);
  set_colour(cr, colour);
  cairo_set_line_width(cr, m.line);
  if (dashed) {
    const double dash[2] = {6 * m.line, 4 * m.line};
    cairo_set_dash(cr, dash, 2, 0);
  }
  cairo_move_to(cr, std::round(f.left), at);
  cairo_line_to(cr, f.left + f.width, at);
  cairo_stroke(cr);
  cairo_restore(cr);
}

std::string with_thousands(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return v < 0 ? "-" + out : out;
}

void write_png_and_svg(output_group& out, const std::string& png, const std::string& svg, int w, int h,
                       const std::function<void(cairo_t*)>& draw) {
  {
    const surface_ptr image(cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h));
    paint(image.get(), png, draw);
    stream_target t{&out.add(png), nullptr};
    check(cairo_surface_write_to_png_stream(image.get(), write_chunk, &t), t, png);
  }
  stream_target t{&out.add(svg), nullptr};
  const surface_ptr vector(cairo_svg_surface_create_for_stream(write_chunk, &t, w, h));
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
  cairo_svg_surface_set_document_unit(vector.get(), CAIRO_SVG_UNIT_PX);  // the PNG's pixels, not points
#endif
  paint(vector.get(), svg, draw);
  cairo_surface_finish(vector.get());  // the SVG is written here
  check(cairo_surface_status(vector.get()), t, svg);
}

}  // namespace pmx::plot

namespace pmx {

// This file is built only where cairo is (plot_files_stub.cpp otherwise).
bool plots_compiled_in() { return true; }
void require_plots() {}

}  // namespace pmx
