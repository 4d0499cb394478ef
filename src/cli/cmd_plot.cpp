// panoramix plot manhattan|qq: pictures of an association table (issue #23).
#include <cmath>
#include <cstdio>

#include "cli/common.hpp"
#include "core/checked_number.hpp"
#include "panoramix/association_table.hpp"
#include "panoramix/genomic_control.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/plot_files.hpp"
#include "panoramix/plot_geometry.hpp"

namespace pmx::cli {
namespace {

struct plot_cli {
  std::string assoc, p_column, out = "panoramix";
  plot_style style;
  bool suggestive = false, all_points = false;
};

void check_plot_options(const plot_cli& c) {
  require_plots();  // before reading a large table
  if (!(c.style.genome_wide_p > 0 && c.style.genome_wide_p < 1))
    throw input_error("--genome-wide must be a P value in (0, 1) (got " + detail::number_for_message(c.style.genome_wide_p) + ")");
  for (const int v : {c.style.width, c.style.height})
    if (v != 0 && (v < 200 || v > 20000))
      throw input_error("--width and --height must be in [200, 20000] pixels (got " + std::to_string(v) + ")");
}

// Reads the table and logs what was left out.
association_table read_table(const plot_cli& c, run_log& log) {
  log.begin("read " + c.assoc);
  association_table t = read_association_table(c.assoc, {.p_column = c.p_column});
  log.end();
  log.message(std::to_string(t.p.size()) + " P values (column " + t.p_column + ") on " +
              std::to_string(t.chromosomes.size()) + " chromosomes, from " + std::to_string(t.rows) + " rows of " +
              c.assoc);
  if (t.other_tests)
    log.message(std::to_string(t.other_tests) + " rows of other tests than ADD (covariates) skipped");
  if (t.missing_p) log.message(std::to_string(t.missing_p) + " rows with P missing (NA) skipped");
  return t;
}

std::string lambda_text(double lambda) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", lambda);
  return buf;
}

void finish(output_group& out, const plot_drawing& d, run_log& log) {
  out.commit_all();
  log.end();
  log.message(std::to_string(d.points_drawn) + " points drawn (" + std::to_string(d.width) + " x " +
              std::to_string(d.height) + " pixels)");
  log.message("Written: " + d.png + ", " + d.svg);
}

void run_manhattan(const plot_cli& c, run_log& log) {
  check_plot_options(c);
  const association_table t = read_table(c, log);
  const manhattan_layout m = layout_manhattan(t);
  if (m.zero_p) log.message(std::to_string(m.zero_p) + " P values of 0 drawn at the top of the others");
  plot_style s = c.style;
  if (c.suggestive) s.suggestive_p = 1e-5;
  s.thin = !c.all_points;
  log.begin("draw");
  output_group out;
  const plot_drawing d = write_manhattan_plot(out, c.out, m, s);
  finish(out, d, log);
}

void run_qq(const plot_cli& c, run_log& log) {
  check_plot_options(c);
  const association_table t = read_table(c, log);
  const qq_layout q = layout_qq(t.p);
  log.message("lambda_GC = " + lambda_text(q.lambda_gc) + " (median 1-df chi-square of the " +
              std::to_string(t.p.size()) + " P values over 0.454936)");
  if (q.zero_p) log.message(std::to_string(q.zero_p) + " P values of 0 drawn at the top of the others");
  plot_style s = c.style;
  s.thin = !c.all_points;
  log.begin("draw");
  output_group out;
  const plot_drawing d = write_qq_plot(out, c.out, q, s);
  finish(out, d, log);
}

void add_plot_options(CLI::App* cmd, plot_cli& c) {
  cmd->add_option("--assoc", c.assoc, "association FILE (plink2 --glm, PLINK 1.9, GEMMA .assoc.txt)")->required();
  cmd->add_option("--out", c.out, "output PREFIX (default: panoramix)");
  cmd->add_option("--p-column", c.p_column, "the P value column by header name (default: P, p_wald, p_lrt or p_score)");
  cmd->add_option("--title", c.style.title, "title above the plot");
  cmd->add_option("--width", c.style.width, "width in pixels (default 1600 Manhattan, 720 QQ)");
  cmd->add_option("--height", c.style.height, "height in pixels (default 640 Manhattan, 720 QQ)");
  cmd->add_flag("--all-points", c.all_points, "draw every point (default: leave out those covered, P > 0.01)");
}

}  // namespace

void add_plot_command(CLI::App& app, int argc, char** argv, int& status) {
  auto* plot = app.add_subcommand("plot", "Manhattan and QQ plots of association results (PNG and SVG)");
  plot->require_subcommand(1);
  plot->footer(
      "  panoramix plot manhattan --assoc FILE --out Y [--title T] [--suggestive] [--genome-wide P]\n"
      "  panoramix plot qq        --assoc FILE --out Y [--title T]\n"
      "Input (--assoc): a table with a header naming the chromosome (#CHROM, CHROM, CHR, chr), the\n"
      "  position (POS, BP, ps) and the P value (P, p_wald, p_lrt, p_score, or --p-column NAME);\n"
      "  names match without regard to case: panoramix assoc (.glm.linear, .glm.logistic.hybrid,\n"
      "  .lmm), plink2 --glm (also .zst), PLINK 1.9 (.assoc, .qassoc, .assoc.linear), GEMMA\n"
      "  (.assoc.txt). With a TEST column only the ADD rows count (files written without\n"
      "  --hide-covar); P = NA rows are skipped and counted in the log. Chromosomes in natural order:\n"
      "  1, 2, ..., 10, ..., X, Y, XY, MT, then other names (contigs); a 'chr' prefix is dropped.\n"
      "Outputs: Y.manhattan.png and .svg (-log10 P along the genome, chromosomes in alternating\n"
      "  colours, labels at their centres, a red line at --genome-wide, default 5e-8, and with\n"
      "  --suggestive a dashed grey one at 1e-5), Y.qq.png and .svg (observed against expected\n"
      "  -log10 P, the grey 95 % band of the null, the line y = x, lambda_GC and n printed), and\n"
      "  Y.manhattan.log / Y.qq.log (counts, lambda_GC), so that an assoc run's Y.log stays.\n"
      "Flags of both: --assoc FILE, --out PREFIX, --p-column NAME, --title TEXT, --width/--height\n"
      "  PIXELS, --all-points (also the points with P > 0.01 that a later one in the same pixel\n"
      "  covers: the PNG is the same to the bit, the SVG then holds every point).\n"
      "Example: panoramix assoc --bfile data --pheno y.txt --glm --out gwas\n"
      "         panoramix plot manhattan --assoc gwas.y.glm.linear --out gwas --suggestive");

  auto manhattan_cli = std::make_shared<plot_cli>();
  auto* manhattan = plot->add_subcommand("manhattan", "Manhattan plot: -log10 P along the genome");
  add_plot_options(manhattan, *manhattan_cli);
  manhattan->add_option("--genome-wide", manhattan_cli->style.genome_wide_p,
                        "P of the genome-wide significance line (default 5e-8)");
  manhattan->add_flag("--suggestive", manhattan_cli->suggestive, "also a dashed line at P = 1e-5");
  manhattan->callback([=, &status] {
    status = run_command(manhattan_cli->out + ".manhattan", argc, argv,
                         [&](run_log& log) { run_manhattan(*manhattan_cli, log); });
  });

  auto qq_cli = std::make_shared<plot_cli>();
  auto* qq = plot->add_subcommand("qq", "QQ plot: observed against expected -log10 P, with lambda_GC");
  add_plot_options(qq, *qq_cli);
  qq->callback([=, &status] {
    status = run_command(qq_cli->out + ".qq", argc, argv, [&](run_log& log) { run_qq(*qq_cli, log); });
  });
}

}  // namespace pmx::cli
