// The drawn plots, read back: the PNG through cairo (size, the colour of the pixels where known
// points and the genome-wide line must be, found by scanning the image, not by the drawing's own
// code), the SVG through python3's XML parser (well formed, one filled path per point drawn, in
// each colour), and thinning, which must leave the PNG the same to the bit.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <random>

#include "panoramix/error.hpp"
#include "panoramix/plot_files.hpp"
#include "panoramix/plot_geometry.hpp"
#include "test_support.hpp"

#if PMX_HAVE_CAIRO
#include <cairo.h>
#endif

/// First statement of a test that reads a drawing back: skips it, saying why, without cairo.
#if PMX_HAVE_CAIRO
#define PMX_REQUIRE_CAIRO() \
  do {                      \
  } while (0)
#else
#define PMX_REQUIRE_CAIRO() GTEST_SKIP() << "this build has no cairo (Debian libcairo2-dev): plots are not drawn"
#endif

namespace pmx {
using namespace test;
namespace {

#if PMX_HAVE_CAIRO
// A PNG read back: its pixels as 0xRRGGBB.
struct image {
  int width = 0, height = 0;
  std::vector<uint32_t> px;
  uint32_t at(int x, int y) const { return px[size_t(y) * size_t(width) + size_t(x)] & 0xffffff; }
};

image read_png(const std::string& path) {
  cairo_surface_t* s = cairo_image_surface_create_from_png(path.c_str());
  image im;
  if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
    im.width = cairo_image_surface_get_width(s);
    im.height = cairo_image_surface_get_height(s);
    const int stride = cairo_image_surface_get_stride(s);
    const unsigned char* data = cairo_image_surface_get_data(s);
    for (int y = 0; y < im.height; ++y)
      for (int x = 0; x < im.width; ++x) im.px.push_back(reinterpret_cast<const uint32_t*>(data + y * stride)[x]);
  }
  cairo_surface_destroy(s);
  EXPECT_GT(im.width, 0) << "cannot read " << path;
  return im;
}

uint32_t rgb(plot_rgb c) { return uint32_t(c.r) << 16 | uint32_t(c.g) << 8 | c.b; }

// Three chromosomes of evenly spread P = 0.5 variants, one variant of P = 1e-20 on chromosome 2.
association_table sparse_table() {
  association_table t;
  t.chromosomes = {"1", "2", "3"};
  for (int32_t c = 0; c < 3; ++c)
    for (int64_t pos = 0; pos <= 10'000'000; pos += 1'000'000) {
      t.chrom.push_back(c);
      t.pos.push_back(pos);
      t.p.push_back(c == 1 && pos == 4'000'000 ? 1e-20 : 0.5);
    }
  return t;
}

// Counts of filled paths in the SVG per fill colour, by python3's XML parser (which also
// rejects an SVG that is not well formed).
std::map<std::string, int> svg_fills(const std::string& svg) {
  const std::string out = svg + ".fills";
  const std::string program =
      "import collections, re, sys, xml.etree.ElementTree as E\n"
      "c = collections.Counter()\n"
      "for e in E.parse(sys.argv[1]).iter('{http://www.w3.org/2000/svg}path'):\n"
      "    m = re.search(r'fill:(rgb\\([^)]*\\))', e.get('style', ''))\n"
      "    if m and 'stroke:none' in e.get('style', ''): c[m.group(1).replace(' ', '')] += 1\n"
      "for k, v in c.items(): print(k, v)\n";
  std::ofstream(svg + ".py") << program;
  EXPECT_EQ(run("{ /usr/bin/python3 " + shq(svg + ".py") + " " + shq(svg) + " > " + shq(out) + "; }"), 0) << svg;
  std::map<std::string, int> fills;
  std::ifstream in(out);
  std::string k;
  for (int v; in >> k >> v;) fills[k] = v;
  return fills;
}

// cairo's SVG spelling of a colour: rgb(r%,g%,b%) with up to 6 decimals.
std::string svg_colour(plot_rgb c) {
  const auto pc = [](uint8_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6f", v / 255.0 * 100);
    std::string s = b;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s + "%";
  };
  return "rgb(" + pc(c.r) + "," + pc(c.g) + "," + pc(c.b) + ")";
}
#endif

TEST(PlotFiles, ManhattanPointsAndGenomeWideLineWhereTheyMustBe) {
  PMX_REQUIRE_CAIRO();
#if PMX_HAVE_CAIRO
  const manhattan_layout m = layout_manhattan(sparse_table());
  output_group out;
  plot_style s;
  s.suggestive_p = 1e-5;
  const std::string prefix = work().path("sparse");
  const plot_drawing d = write_manhattan_plot(out, prefix, m, s);
  out.commit_all();
  EXPECT_EQ(d.png, prefix + ".manhattan.png");
  EXPECT_EQ(d.points_drawn, 33);  // nothing to thin: no two points share a pixel
  const image im = read_png(d.png);
  ASSERT_EQ(im.width, 1600);
  ASSERT_EQ(im.height, 640);
  const plot_frame& f = d.frame;
  // The frame inside the image, maps the data range linearly (computed here from its fields).
  ASSERT_GT(f.left, 0);
  ASSERT_LT(f.left + f.width, 1600);
  ASSERT_GT(f.top, 0);
  ASSERT_LT(f.top + f.height, 640);
  const auto px = [&](double x) { return f.left + (x - f.x_lo) / (f.x_hi - f.x_lo) * f.width; };
  const auto py = [&](double y) { return f.top + f.height * (1 - (y - f.y_lo) / (f.y_hi - f.y_lo)); };
  EXPECT_EQ(f.y_lo, 0);
  EXPECT_GE(f.y_hi, 20);  // the highest point is inside

  // The significant variant: chromosome 2 (second colour) at the centre of its span.
  const uint32_t second = rgb(plot_point_colours[1]), first = rgb(plot_point_colours[0]);
  const double sx = px(m.chromosomes[1].start + 4'000'000), sy = py(20);
  EXPECT_EQ(im.at(int(sx), int(sy)), second) << "at " << sx << ", " << sy;
  // It is the highest thing of its colour in the image, and the only one within 20 rows of it.
  int top_row = -1, top_col = -1;
  for (int y = 0; y < im.height && top_row < 0; ++y)
    for (int x = 0; x < im.width; ++x)
      if (im.at(x, y) == second) {
        top_row = y, top_col = x;
        break;
      }
  EXPECT_NEAR(top_row, sy, 3.5);
  EXPECT_NEAR(top_col, sx, 3.5);
  // A P = 0.5 point of chromosome 1 and one of chromosome 3 (first colour).
  for (const double x : {m.chromosomes[0].start + 2'000'000, m.chromosomes[2].start + 10'000'000})
    EXPECT_EQ(im.at(int(px(x)), int(py(-std::log10(0.5)))), first) << x;

  // The genome-wide line: in a column between points, the rows of the line's colour are those
  // of y = -log10(5e-8), and the line runs across the frame.
  const int col = int(px(m.chromosomes[0].start + 1'500'000));
  std::vector<int> red;
  for (int y = 0; y < im.height; ++y)
    if (im.at(col, y) == rgb(plot_significance_colour)) red.push_back(y);
  ASSERT_FALSE(red.empty());
  EXPECT_LE(red.size(), 3u);
  EXPECT_NEAR((red.front() + red.back() + 1) / 2.0, py(-std::log10(5e-8)), 1.0);
  for (int x = int(f.left) + 1; x < int(f.left + f.width) - 1; x += 10)
    EXPECT_EQ(im.at(x, red.front()), rgb(plot_significance_colour)) << "column " << x;
  // The dashed suggestive line at 1e-5: its colour along that row, in part of the columns.
  int dashes = 0;
  const int srow = int(py(5));
  for (int x = int(f.left); x < int(f.left + f.width); ++x) {
    bool dash = false;
    for (int y = srow - 1; y <= srow + 1; ++y) dash = dash || im.at(x, y) == rgb(plot_suggestive_colour);
    dashes += dash;
  }
  EXPECT_GT(dashes, f.width * 0.4);
  EXPECT_LT(dashes, f.width * 0.9);

  // The SVG: one filled path per point, in the point's colour (11 + 11 of the first, 11 of the second).
  const std::map<std::string, int> fills = svg_fills(d.svg);
  EXPECT_EQ(fills.count(svg_colour(plot_point_colours[0])) ? fills.at(svg_colour(plot_point_colours[0])) : 0, 22);
  EXPECT_EQ(fills.count(svg_colour(plot_point_colours[1])) ? fills.at(svg_colour(plot_point_colours[1])) : 0, 11);
  EXPECT_NE(read_text(d.svg).find("width=\"1600px\""), std::string::npos);
#endif
}

TEST(PlotFiles, ThinningLeavesThePngTheSameToTheBit) {
  PMX_REQUIRE_CAIRO();
#if PMX_HAVE_CAIRO
  // 200,000 variants on 5 chromosomes, null P values: most pixels of the lower band hold many.
  association_table t;
  t.chromosomes = {"1", "2", "3", "4", "5"};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 200'000; ++i) {
    t.chrom.push_back(i / 40'000);
    t.pos.push_back(int64_t(u(rng) * 1e8));
    t.p.push_back(i % 5000 == 0 ? 1e-9 * u(rng) : u(rng));
  }
  const manhattan_layout m = layout_manhattan(t);
  const qq_layout q = layout_qq(t.p);
  plot_style thin, all;
  all.thin = false;
  output_group out;
  const plot_drawing a = write_manhattan_plot(out, work().path("thin"), m, thin);
  const plot_drawing b = write_manhattan_plot(out, work().path("all"), m, all);
  const plot_drawing qa = write_qq_plot(out, work().path("thin"), q, thin);
  const plot_drawing qb = write_qq_plot(out, work().path("all"), q, all);
  out.commit_all();
  EXPECT_EQ(b.points_drawn, 200'000);
  EXPECT_LT(a.points_drawn, 100'000);
  EXPECT_LT(qa.points_drawn, 20'000);
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{qa, qb}}) {
    const image ix = read_png(x.png), iy = read_png(y.png);
    ASSERT_EQ(ix.px.size(), iy.px.size());
    size_t differ = 0;
    for (size_t i = 0; i < ix.px.size(); ++i) differ += (ix.px[i] & 0xffffff) != (iy.px[i] & 0xffffff);
    EXPECT_EQ(differ, 0u) << x.png << " and " << y.png;
  }
  // The SVG holds what was drawn: a path per point kept.
  int paths = 0;
  for (const auto& [colour, count] : svg_fills(a.svg))
    if (colour == svg_colour(plot_point_colours[0]) || colour == svg_colour(plot_point_colours[1])) paths += count;
  EXPECT_EQ(paths, a.points_drawn);
#endif
}

TEST(PlotFiles, QqPointsDiagonalAndSize) {
  PMX_REQUIRE_CAIRO();
#if PMX_HAVE_CAIRO
  // 999 null P values (i / 1000) and one of 1e-12.
  std::vector<double> p;
  for (int i = 1; i < 1000; ++i) p.push_back(i / 1000.0);
  p.push_back(1e-12);
  const qq_layout q = layout_qq(p);
  output_group out;
  plot_style s;
  s.width = 600, s.height = 500;
  s.title = "QQ";
  const plot_drawing d = write_qq_plot(out, work().path("qq"), q, s);
  out.commit_all();
  const image im = read_png(d.png);
  ASSERT_EQ(im.width, 600);
  ASSERT_EQ(im.height, 500);
  const plot_frame& f = d.frame;
  const auto px = [&](double x) { return f.left + (x - f.x_lo) / (f.x_hi - f.x_lo) * f.width; };
  const auto py = [&](double y) { return f.top + f.height * (1 - (y - f.y_lo) / (f.y_hi - f.y_lo)); };
  // The strongest: expected -log10(0.5 / 1000), observed 12.
  const uint32_t point = rgb(plot_point_colours[0]);
  EXPECT_EQ(im.at(int(px(-std::log10(0.0005))), int(py(12))), point);
  // The line y = x beyond the points' end (x = 3.3 up to the frame's right edge).
  // Antialiased: some pixel of the column within 2 rows of it is clearly red.
  const double x = f.x_hi * 0.99;
  bool red = false;
  for (int y = int(py(x)) - 2; y <= int(py(x)) + 2; ++y) {
    const uint32_t c = im.at(int(px(x)), y);
    red = red || (int(c >> 16) - int(c >> 8 & 0xff) > 80 && int(c >> 16) - int(c & 0xff) > 80);
  }
  EXPECT_TRUE(red) << "no red near " << px(x) << ", " << py(x);
  // The band at x = 2 (rank 10.5 of 1000: observed -log10 P from 1.74 to 2.32 under the null):
  // grey at y = 2.25, between points; white far from it.
  EXPECT_EQ(im.at(int(px(2)), int(py(2.25))), rgb(plot_band_colour));
  EXPECT_EQ(im.at(int(px(0.3)), int(py(2.5))), 0xffffffu);
#endif
}

TEST(PlotFiles, WithoutCairoTheWritersSaySo) {
  if (plots_compiled_in()) GTEST_SKIP() << "this build draws (cairo found): nothing to refuse";
  output_group out;
  EXPECT_THROW(require_plots(), unsupported_error);
  EXPECT_THROW(write_qq_plot(out, work().path("none"), layout_qq(std::vector<double>{0.5}), {}), unsupported_error);
}

}  // namespace
}  // namespace pmx
