// `panoramix plot manhattan|qq` end to end: on `assoc --glm` output with covariate rows and NA
// rows, the two PNGs (their size read from the PNG header) and SVGs, the logs beside them (the
// assoc run's PREFIX.log left alone), the counts and λ_GC in the log against awk and scipy; the
// help text; and bad input, which must fail naming the file and line and leave only the log.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "command_checks.hpp"
#include "panoramix/plot_files.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

namespace fs = std::filesystem;

// Width and height from a PNG's IHDR chunk (bytes 16-23, big-endian); 0 x 0 if it is no PNG.
std::pair<int, int> png_size(const std::string& path) {
  const std::string b = read_text(path);
  if (b.size() < 24 || b.compare(1, 3, "PNG") != 0) return {0, 0};
  const auto be = [&](size_t at) {
    return int(uint8_t(b[at])) << 24 | int(uint8_t(b[at + 1])) << 16 | int(uint8_t(b[at + 2])) << 8 | int(uint8_t(b[at + 3]));
  };
  return {be(16), be(20)};
}

std::string log_line(const std::string& log, const std::string& start) {
  const size_t at = log.find(start);
  return at == std::string::npos ? "" : log.substr(at, log.find('\n', at) - at);
}

// The set: simulated genotypes with monomorphic variants (NA rows), a covariate (covariate rows).
struct gwas_set {
  std::string dir, glm;
};

const gwas_set& gwas() {
  static const gwas_set set = [] {
    gwas_set s{work().path("gwas"), ""};
    fs::create_directories(s.dir);
    EXPECT_EQ(panoramix("simulate --samples 400 --variants 3000 --traits 1 --qtl 20 --monomorphic 0.02 --seed 9 --out " +
                        s.dir + "/s"),
              0);
    EXPECT_EQ(run("{ awk 'NR == 1 {print \"FID IID c\"; next} {print $1, $2, NR % 3}' " + s.dir + "/s.pheno > " +
                  s.dir + "/c.txt; }"),
              0);
    EXPECT_EQ(panoramix("assoc --bfile " + s.dir + "/s --pheno " + s.dir + "/s.pheno --covar " + s.dir +
                        "/c.txt --glm --out " + s.dir + "/g"),
              0);
    s.glm = s.dir + "/g.trait1.glm.linear";
    return s;
  }();
  return set;
}

TEST(PlotCommand, ManhattanAndQqOfAssocOutput) {
  if (!plots_compiled_in()) GTEST_SKIP() << "this build has no cairo (Debian libcairo2-dev): plots are not drawn";
  const gwas_set& g = gwas();
  const std::string assoc_log = read_text(g.dir + "/g.log");
  ASSERT_EQ(panoramix("plot manhattan --assoc " + g.glm + " --out " + g.dir + "/g --suggestive --title 'Trait 1'"), 0)
      << read_text(g.dir + "/g.manhattan.log");
  ASSERT_EQ(panoramix("plot qq --assoc " + g.glm + " --out " + g.dir + "/g --width 800 --height 700"), 0)
      << read_text(g.dir + "/g.qq.log");
  EXPECT_EQ(png_size(g.dir + "/g.manhattan.png"), std::make_pair(1600, 640));
  EXPECT_EQ(png_size(g.dir + "/g.qq.png"), std::make_pair(800, 700));
  for (const char* svg : {"/g.manhattan.svg", "/g.qq.svg"})
    EXPECT_EQ(run("/usr/bin/python3 -c \"import sys, xml.etree.ElementTree as E; "
                  "sys.exit(E.parse(sys.argv[1]).getroot().tag != '{http://www.w3.org/2000/svg}svg')\" " +
                  g.dir + svg),
              0)
        << svg << " is not a well-formed SVG";
  EXPECT_EQ(read_text(g.dir + "/g.log"), assoc_log);  // the association's log stays

  // Counts against awk: covariate rows, NA rows, the P values plotted.
  const std::string counts = g.dir + "/counts.txt";
  ASSERT_EQ(run("{ awk 'NR > 1 && $7 != \"ADD\" {o++} NR > 1 && $7 == \"ADD\" && $12 == \"NA\" {n++} "
                "NR > 1 && $7 == \"ADD\" && $12 != \"NA\" {print $12 > \"" + g.dir + "/p.txt\"; p++} "
                "END {print o + 0, n + 0, p + 0}' " + g.glm + " > " + counts + "; }"),
            0);
  int64_t other = 0, na = 0, plotted = 0;
  std::ifstream(counts) >> other >> na >> plotted;
  EXPECT_GT(na, 0);
  const std::string log = read_text(g.dir + "/g.qq.log");
  EXPECT_NE(log.find(std::to_string(plotted) + " P values (column P) on 22 chromosomes"), std::string::npos) << log;
  EXPECT_NE(log.find(std::to_string(other) + " rows of other tests than ADD"), std::string::npos) << log;
  EXPECT_NE(log.find(std::to_string(na) + " rows with P missing (NA) skipped"), std::string::npos) << log;
  EXPECT_NE(read_text(g.dir + "/g.manhattan.log").find("Written: " + g.dir + "/g.manhattan.png, " + g.dir +
                                                         "/g.manhattan.svg"),
            std::string::npos);
  // λ_GC to the log's 4 decimals, against scipy on awk's P values.
  const std::string want = g.dir + "/lambda.txt";
  ASSERT_EQ(run("/usr/bin/python3 -c \"import numpy as np; from scipy import stats; "
                "p = np.loadtxt('" + g.dir + "/p.txt'); "
                "print('%.4f' % (np.median(stats.chi2.isf(p, 1)) / stats.chi2.ppf(0.5, 1)))\" > " + want),
            0);
  const std::string lambda = read_text(want).substr(0, read_text(want).find('\n'));
  EXPECT_EQ(log_line(log, "lambda_GC = ").substr(0, 12 + lambda.size()), "lambda_GC = " + lambda) << log;
}

TEST(PlotCommand, HelpExplainsTheFlags) {
  const std::string out = work().path("help.txt");
  ASSERT_EQ(run(std::string(PMX_BINARY) + " plot --help", out), 0);
  const std::string help = read_text(out);
  for (const char* s : {"manhattan", "qq", "--assoc", "--out", "--p-column", "--title", "--suggestive", "--genome-wide",
                        "--width", "--all-points", "ADD", "lambda_GC", "GEMMA"})
    EXPECT_NE(help.find(s), std::string::npos) << "plot --help lacks " << s;
  ASSERT_EQ(run(std::string(PMX_BINARY) + " plot manhattan --help", out), 0);
  EXPECT_NE(read_text(out).find("--suggestive"), std::string::npos);
}

TEST(PlotCommand, BadInputFailsNamingFileAndLineAndLeavesOnlyTheLog) {
  temp_dir dir;
  const std::string out_dir = dir.path("out");
  fs::create_directories(out_dir);
  const std::string res = out_dir + "/res";
  const auto table = [&](const std::string& name, const std::string& text) {
    const std::string path = dir.path(name);
    std::ofstream(path) << text;
    return path;
  };
  const std::string good = table("good.txt", "#CHROM\tPOS\tID\tTEST\tP\n1\t5\trs1\tADD\t0.5\n1\t9\trs2\tADD\t1e-9\n");
  const std::string nop = table("nop.txt", "#CHROM\tPOS\tID\tBETA\n1\t5\trs1\t0.1\n");
  const std::string bad_line = table("bad.txt", "#CHROM\tPOS\tID\tTEST\tP\n1\t5\trs1\tADD\t0.5\n1\t7\trs2\tADD\tx\n");
  const std::string short_line = table("short.txt", "CHR BP P\n1 5 0.5\n1 7\n");
  if (!plots_compiled_in()) {  // refused before the table is read
    expect_named_failure("plot qq --out " + res + " --assoc " + good, {"draws no plots", "libcairo2-dev"}, dir, out_dir,
                         "res.qq.log");
    return;
  }
  for (const std::string kind : {"manhattan", "qq"}) {
    const std::string log = "res." + kind + ".log";
    const std::string cmd = "plot " + kind + " --out " + res + " --assoc ";
    expect_named_failure(cmd + nop, {"nop.txt:1:", "no P value column"}, dir, out_dir, log);
    expect_named_failure(cmd + bad_line, {"bad.txt:3:", "is not a number in [0, 1]: 'x'"}, dir, out_dir, log);
    expect_named_failure(cmd + short_line, {"short.txt:3:", "2 fields, the header names 3 columns"}, dir, out_dir, log);
    expect_named_failure(cmd + good + " --p-column p_lrt", {"good.txt:1:", "no column 'p_lrt'"}, dir, out_dir, log);
    expect_named_failure(cmd + dir.path("absent.txt"), {"absent.txt", "cannot be opened"}, dir, out_dir, log);
    expect_named_failure(cmd + good + " --width 50", {"--width and --height"}, dir, out_dir, log);
  }
  expect_named_failure("plot manhattan --out " + res + " --assoc " + good + " --genome-wide 0",
                       {"--genome-wide must be a P value in (0, 1)"}, dir, out_dir, "res.manhattan.log");
}

}  // namespace
}  // namespace pmx::test
