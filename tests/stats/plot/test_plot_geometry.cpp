// The plot geometry against independent values: λ_GC, the χ²₁ quantiles and the QQ band against
// scipy (plot_oracle.py) and closed forms; the Manhattan x positions, spans and label centres
// worked out by hand for a small table; round-number ticks; label spacing; the natural order of
// chromosome names; and which points thinning keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "io/chromosome_order.hpp"
#include "panoramix/genomic_control.hpp"
#include "panoramix/plot_geometry.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

std::vector<double> oracle(const std::string& args) {
  const std::string out = work().path("oracle.out");
  // In braces: run() sends the line's own output to /dev/null, after this redirection.
  EXPECT_EQ(run("{ /usr/bin/python3 " + shq(std::string(PMX_TEST_DIR) + "/plot_oracle.py") + " " + args + " > " + out +
                "; }"),
            0)
      << "python3 with scipy is needed (Debian python3-scipy)";
  std::vector<double> v;
  std::ifstream in(out);
  for (double x; in >> x;) v.push_back(x);
  return v;
}

std::string p_file(const std::vector<double>& p) {
  const std::string path = work().path("p.txt");
  std::ofstream f(path);
  f.precision(17);
  for (double x : p) f << x << "\n";
  return path;
}

double relative(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

TEST(GenomicControl, ChiSquareQuantilesMatchScipyAndClosedForms) {
  // Closed forms: the χ²₁ upper quantile of p is z², z the normal quantile of 1 - p/2.
  EXPECT_LT(relative(chi2_1df_upper_quantile(0.05), 1.959963984540054 * 1.959963984540054), 1e-14);
  EXPECT_LT(relative(chi2_1df_upper_quantile(0.5), 0.454936423119572799), 1e-14);
  EXPECT_EQ(chi2_1df_upper_quantile(1), 0);
  EXPECT_TRUE(std::isinf(chi2_1df_upper_quantile(0)));
  const std::vector<double> p = {0.999999, 0.9, 0.5, 0.3, 1e-2, 1e-5, 5e-8, 1e-20, 1e-100, 1e-300, 4.9e-324};
  const std::vector<double> want = oracle("chi2 " + p_file(p));
  ASSERT_EQ(want.size(), p.size());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_LT(relative(chi2_1df_upper_quantile(p[i]), want[i]), 1e-12) << p[i];
}

TEST(GenomicControl, LambdaMatchesScipy) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t n : {1, 2, 3, 10, 1001, 20000}) {
    for (double inflation : {1.0, 1.3}) {
      // Null P values, or those of χ² statistics scaled by `inflation` (λ near 1.3).
      std::vector<double> p(n);
      for (double& x : p) {
        const double z = std::sqrt(-2 * std::log(u(rng))) * std::cos(2 * M_PI * u(rng));
        x = std::erfc(std::fabs(z) * std::sqrt(inflation) / std::sqrt(2.0));
      }
      if (n > 3) p[0] = 1e-300, p[1] = 1, p[2] = 0.5;  // the ends of the range
      const std::vector<double> want = oracle("lambda " + p_file(p));
      ASSERT_EQ(want.size(), 1u);
      EXPECT_LT(relative(genomic_control_lambda(p), want[0]), 1e-12) << "n = " << n << ", inflation " << inflation;
    }
  }
  // λ = 1 exactly when the median P is 1/2; an even count averages the two middle χ² values.
  EXPECT_DOUBLE_EQ(genomic_control_lambda(std::vector<double>{0.5}), 1.0);
  const double two = genomic_control_lambda(std::vector<double>{0.05, 0.5});
  EXPECT_LT(relative(two, (1.959963984540054 * 1.959963984540054 / 0.454936423119572799 + 1) / 2), 1e-13);
}

TEST(QqLayout, QuantilesAndBandMatchScipy) {
  const std::vector<double> p = {0.5, 1e-8, 0.02, 0.9};
  const qq_layout q = layout_qq(p);
  ASSERT_EQ(q.points.size(), 4u);
  // Largest P first: expected -log10((i - 0.5) / 4) for ranks 4, 3, 2, 1.
  const double want_y[4] = {-std::log10(0.9), -std::log10(0.5), -std::log10(0.02), 8};
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(q.points[size_t(k)].x, -std::log10((3.5 - k) / 4), 1e-15);
    EXPECT_NEAR(q.points[size_t(k)].y, want_y[k], 1e-14);
  }
  EXPECT_NEAR(q.x_max, -std::log10(0.125), 1e-15);
  EXPECT_NEAR(q.y_max, 8, 1e-14);
  EXPECT_LT(relative(q.lambda_gc, genomic_control_lambda(p)), 1e-15);
  // P = 0 has no -log10: drawn at the highest of the others (1 when there are none).
  const qq_layout zero = layout_qq(std::vector<double>{0, 0.1});
  EXPECT_EQ(zero.zero_p, 1);
  EXPECT_DOUBLE_EQ(zero.points[1].y, 1);
  EXPECT_DOUBLE_EQ(zero.y_max, 1);
  EXPECT_DOUBLE_EQ(layout_qq(std::vector<double>{0, 0}).points[0].y, 1);

  std::vector<double> many(5000);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (double& x : many) x = u(rng);
  const qq_layout big = layout_qq(many);
  ASSERT_GT(big.band_x.size(), 100u);
  EXPECT_TRUE(std::is_sorted(big.band_x.begin(), big.band_x.end()));
  // The band's ranks back from its x (x = -log10((rank - 0.5) / n)), checked against scipy.
  std::string ranks;
  std::vector<size_t> rows;
  for (size_t i = 0; i < big.band_x.size(); i += 37) {
    const double rank = std::pow(10.0, -big.band_x[i]) * 5000 + 0.5;
    ASSERT_NEAR(rank, std::round(rank), 1e-6);
    ranks += " " + std::to_string(std::llround(rank));
    rows.push_back(i);
  }
  const std::vector<double> want = oracle("beta 5000" + ranks);
  ASSERT_EQ(want.size(), 2 * rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    EXPECT_NEAR(big.band_low[rows[k]], -std::log10(want[2 * k]), 1e-10);
    EXPECT_NEAR(big.band_high[rows[k]], -std::log10(want[2 * k + 1]), 1e-10);
  }
  // Rank 1 and rank n are in it: the band spans the whole x range.
  EXPECT_NEAR(big.band_x.front(), -std::log10(4999.5 / 5000), 1e-15);
  EXPECT_NEAR(big.band_x.back(), big.x_max, 1e-15);
}

TEST(ChromosomeOrder, NaturalOrderOfNames) {
  std::vector<std::string> names = {"ctg10", "X", "10", "MT", "chr2", "Y", "1", "XY", "ctg2", "95", "0", "23",
                                    "scaffold_1", "ctg02"};
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return io::chromosome_natural_less(a, b);
  });
  EXPECT_EQ(names, (std::vector<std::string>{"0", "1", "chr2", "10", "23", "95", "X", "Y", "XY", "MT", "ctg02", "ctg2",
                                             "ctg10", "scaffold_1"}));
  EXPECT_FALSE(io::chromosome_natural_less("3", "3"));
  EXPECT_NE(io::chromosome_natural_less("ctg2", "ctg02"), io::chromosome_natural_less("ctg02", "ctg2"));
}

// A table made by hand: chromosome 2 before 1 in the file, X between them, a contig.
association_table hand_table() {
  association_table t;
  t.chromosomes = {"2", "X", "1", "ctg7"};
  // chrom index, position, P
  const std::vector<std::tuple<int32_t, int64_t, double>> rows = {
      {0, 5000, 0.5}, {0, 1000, 1e-20}, {1, 300, 0.01}, {1, 100, 1}, {2, 2000, 0.1}, {2, 2500, 0}, {3, 42, 0.2}};
  for (const auto& [c, pos, p] : rows) t.chrom.push_back(c), t.pos.push_back(pos), t.p.push_back(p);
  return t;
}

TEST(ManhattanLayout, PositionsSpansAndCentresOfAHandMadeTable) {
  const manhattan_layout m = layout_manhattan(hand_table(), 0.01);
  // Natural order 1, 2, X, ctg7; spans 500 (1: 2000..2500), 4000 (2: 1000..5000), 200 (X), 0 (ctg7).
  // Gap: 1 % of 4700 = 47.
  ASSERT_EQ(m.chromosomes.size(), 4u);
  const std::vector<std::string> names = {"1", "2", "X", "ctg7"};
  const double start[4] = {0, 547, 4594, 4841}, end[4] = {500, 4547, 4794, 4841};
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(m.chromosomes[r].name, names[r]);
    EXPECT_DOUBLE_EQ(m.chromosomes[r].start, start[r]) << names[r];
    EXPECT_DOUBLE_EQ(m.chromosomes[r].end, end[r]) << names[r];
    EXPECT_DOUBLE_EQ(m.chromosomes[r].centre, (start[r] + end[r]) / 2) << names[r];
  }
  EXPECT_EQ(m.chromosomes[1].variants, 2);
  EXPECT_DOUBLE_EQ(m.x_end, 4841);
  // Points in genome order, x = start + pos - first, y = -log10 P (P = 0 at the top of the others).
  const std::vector<plot_point> want = {{0, 1, 0},          {500, 20, 0},    {547, 20, 1}, {4547, -std::log10(0.5), 1},
                                        {4594, 0, 0},       {4794, 2, 0},    {4841, -std::log10(0.2), 1}};
  ASSERT_EQ(m.points.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_DOUBLE_EQ(m.points[k].x, want[k].x) << k;
    EXPECT_NEAR(m.points[k].y, want[k].y, 1e-14) << k;
    EXPECT_EQ(m.points[k].colour, want[k].colour) << k;
  }
  EXPECT_EQ(m.zero_p, 1);
  EXPECT_DOUBLE_EQ(m.y_max, 20);
}

TEST(ManhattanLayout, OneVariantChromosomesKeepAGapOfOneBase) {
  association_table t;
  t.chromosomes = {"1", "2"};
  t.chrom = {0, 1};
  t.pos = {7, 9};
  t.p = {0.5, 0.5};
  const manhattan_layout m = layout_manhattan(t);
  EXPECT_DOUBLE_EQ(m.points[0].x, 0);
  EXPECT_DOUBLE_EQ(m.points[1].x, 1);
}

TEST(AxisTicks, RoundStepsAndLabels) {
  const auto values = [](const std::vector<axis_tick>& t) {
    std::vector<double> v;
    for (const auto& x : t) v.push_back(x.value);
    return v;
  };
  const auto labels = [](const std::vector<axis_tick>& t) {
    std::vector<std::string> v;
    for (const auto& x : t) v.push_back(x.label);
    return v;
  };
  EXPECT_EQ(values(axis_ticks(0, 12.7, 6)), (std::vector<double>{0, 2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(labels(axis_ticks(0, 12.7, 6)), (std::vector<std::string>{"0", "2", "4", "6", "8", "10", "12"}));
  EXPECT_EQ(labels(axis_ticks(0, 0.93, 6)), (std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8"}));
  EXPECT_EQ(labels(axis_ticks(0, 7.74, 6)), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"}));
  EXPECT_EQ(labels(axis_ticks(0, 331, 6)), (std::vector<std::string>{"0", "50", "100", "150", "200", "250", "300"}));
  EXPECT_EQ(labels(axis_ticks(-0.3, 0.3, 6)), (std::vector<std::string>{"-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"}));
  EXPECT_EQ(labels(axis_ticks(0, 0.0049, 5)), (std::vector<std::string>{"0.000", "0.001", "0.002", "0.003", "0.004"}));
}

TEST(SpacedLabels, LaterLabelsGiveWayToEarlierOnes) {
  // Centres 0, 10, 15, 40, 44, 60; widths 8: 10 clears 0 (gap 2), 15 overlaps 10, 44 overlaps 40.
  const std::vector<double> c = {0, 10, 15, 40, 44, 60}, w(6, 8);
  EXPECT_EQ(spaced_labels(c, w, 2), (std::vector<bool>{true, true, false, true, false, true}));
  EXPECT_EQ(spaced_labels(c, w, 2.5), (std::vector<bool>{true, false, true, true, false, true}));
  // Inside [lo, hi] only: 0 starts at -4 < -3.5 and 60 ends at 64 > 63.
  EXPECT_EQ(spaced_labels(c, w, 2, -3.5, 63), (std::vector<bool>{false, true, false, true, false, false}));
  EXPECT_EQ(spaced_labels(c, w, 2, -4, 64), spaced_labels(c, w, 2));
}

TEST(ThinPoints, KeepsTheLastOfEachColourInAPixelBelowTheThreshold) {
  plot_frame f;
  f.left = 10, f.top = 5, f.width = 100, f.height = 50;
  f.x_lo = 0, f.x_hi = 100, f.y_lo = 0, f.y_hi = 10;  // 1 pixel per x unit, 5 pixels per y unit
  const std::vector<plot_point> points = {
      {20.1, 1.01, 0},  // 0: pixel (30, 49), dropped: 2 lands there later in the same colour
      {20.2, 1.01, 1},  // 1: same pixel, the other colour: kept
      {20.9, 1.03, 0},  // 2: same pixel (x 30.9, y 49.85): the last of colour 0 there
      {20.1, 1.3, 0},   // 3: pixel (30, 48): kept
      {20.1, 5.0, 0},   // 4: above the threshold: kept
      {20.1, 5.0, 0},   // 5: the same, kept too (not thinned above the threshold)
      {21.1, 1.01, 0},  // 6: pixel (31, 49): kept
  };
  EXPECT_EQ(thin_points(points, f, 2), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(thin_points(points, f, 0), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_DOUBLE_EQ(snapped_pixel(30.9), 30.5);
  EXPECT_DOUBLE_EQ(snapped_pixel(49.0), 49.5);
}

}  // namespace
}  // namespace pmx
