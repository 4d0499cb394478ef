// The geometry of the association plots, apart from any drawing: where each variant goes on a
// Manhattan plot (chromosomes end to end in their natural order, labels at their centres), the
// expected and observed quantiles of a QQ plot with λ_GC and the 95 % band, axis ticks at round
// numbers, which labels fit along an axis, and which points a raster of given pixels can leave out.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "panoramix/association_table.hpp"

namespace pmx {

/// A point in data units (x along the genome or expected -log10 P, y = -log10 P); `colour` is
/// the index of its colour (a Manhattan plot alternates 0 and 1 by chromosome).
struct plot_point {
  double x = 0, y = 0;
  int32_t colour = 0;
};

/// y of the plots: -log10 P for every point, and the P values of 0 (below what the writer could
/// print; no -log10) at the highest of the others (1 when all are 0). Returns that highest y and
/// counts the P values of 0 in `zero_p`. `p_of_point[k]` is point k's P value.
double place_minus_log10_p(std::span<plot_point> points, std::span<const double> p_of_point, int64_t& zero_p);

/// A tick at `value`, printed as `label` (as many decimals as the step needs).
struct axis_tick {
  double value = 0;
  std::string label;
};

/// Ticks at multiples of a round step (1, 2 or 5 × 10^k) inside [lo, hi], about `target` of them.
std::vector<axis_tick> axis_ticks(double lo, double hi, int target = 6);

/// Which labels to show along an axis so that shown ones keep `gap` between them and stay inside
/// [lo, hi] (the picture): left to right, a label inside is shown when it starts at least `gap`
/// after the last shown one ends (centres ascending; widths in the centres' unit).
std::vector<bool> spaced_labels(std::span<const double> centre, std::span<const double> width, double gap,
                                double lo = -INFINITY, double hi = INFINITY);

/// One chromosome on the Manhattan x axis: its variants' positions [first, last] are drawn at
/// [start, end] (x = start + pos - first); `centre` takes its label.
struct chromosome_span {
  std::string name;
  double start = 0, end = 0, centre = 0;
  int64_t first = 0, last = 0;  ///< smallest and largest position
  int64_t variants = 0;
};

struct manhattan_layout {
  std::vector<chromosome_span> chromosomes;  ///< natural order (io/chromosome_order.hpp)
  std::vector<plot_point> points;            ///< in genome order; colour = chromosome's rank % 2
  double x_end = 0;                          ///< x of the last chromosome's end
  double y_max = 0;                          ///< the largest -log10 P
  int64_t zero_p = 0;                        ///< P values of 0 (below the file's precision), drawn at y_max
};

/// Chromosomes end to end, each as long as its variants' span, with a gap of `gap_fraction` of
/// the summed spans between them (at least 1 bp); y = -log10 P.
manhattan_layout layout_manhattan(const association_table& t, double gap_fraction = 0.004);

struct qq_layout {
  std::vector<plot_point> points;  ///< x = -log10((i - 0.5) / n), y = -log10 P(i), P ascending
  /// The pointwise 95 % band of the observed quantile under the null: P(i) ~ Beta(i, n - i + 1);
  /// band_x ascending, band_low/high the -log10 of its 97.5 % and 2.5 % quantiles.
  std::vector<double> band_x, band_low, band_high;
  double x_max = 0, y_max = 0;
  double lambda_gc = 0;  ///< genomic_control.hpp
  int64_t zero_p = 0;    ///< P values of 0, drawn at y_max
};

qq_layout layout_qq(std::span<const double> p);

/// The plotting area of a drawing: a rectangle in device units (pixels, y down) showing the data
/// range [x_lo, x_hi] × [y_lo, y_hi].
struct plot_frame {
  double left = 0, top = 0, width = 1, height = 1;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  double px(double x) const { return left + (x - x_lo) / (x_hi - x_lo) * width; }
  double py(double y) const { return top + height - (y - y_lo) / (y_hi - y_lo) * height; }
};

/// The points to draw, as indices in drawing order. Points with y >= `thin_below` are all kept.
/// The others (-log10 P < 2: P > 0.01, nearly all of a genome scan) are drawn as the same whole
/// pixels around the centre of the pixel they fall in (snapped_pixel, no antialiasing), so of two
/// of one colour in one pixel the later covers the earlier exactly: only the last in drawing order
/// is kept, and the picture is the same to the bit.
std::vector<uint32_t> thin_points(std::span<const plot_point> points, const plot_frame& f, double thin_below = 2);

/// The centre of the pixel holding device coordinate v.
double snapped_pixel(double v);

}  // namespace pmx
