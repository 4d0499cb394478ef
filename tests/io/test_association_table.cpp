// read_association_table: hand-made tables in each layout; the files assoc --lmm, plink2 --glm
// (plain and zstd), PLINK 1.9 --assoc and GEMMA -lm/-lmm write for a simulated set, compared row by row with
// an awk reading of the same file; and malformed tables, which must name the file and line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "panoramix/association_table.hpp"
#include "panoramix/error.hpp"
#include "test_support.hpp"

namespace pmx {
using namespace test;
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = work().path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// (chrom, pos, P text) per counted row, as awk reads `path`: the columns named in its header,
// rows with TEST other than ADD and with P = NA left out.
struct awk_rows {
  std::vector<std::string> chrom;
  std::vector<int64_t> pos;
  std::vector<double> p;
};

awk_rows read_with_awk(const std::string& path, const std::string& chrom, const std::string& pos,
                       const std::string& p, bool zstd = false) {
  const std::string out = path + ".awk";
  const std::string cat = zstd ? "zstdcat " + shq(path) : "cat " + shq(path);
  const std::string program =
      "NR == 1 { for (k = 1; k <= NF; ++k) { h = $k; sub(/^#/, \"\", h); col[h] = k }; next } "
      "(\"TEST\" in col) && $col[\"TEST\"] != \"ADD\" { next } "
      "$col[\"" + p + "\"] == \"NA\" { next } "
      "{ c = $col[\"" + chrom + "\"]; sub(/^chr/, \"\", c); print c, $col[\"" + pos + "\"], $col[\"" + p + "\"] }";
  EXPECT_EQ(run("{ " + cat + " | awk '" + program + "' > " + shq(out) + "; }"), 0);
  awk_rows r;
  std::ifstream in(out);
  std::string c;
  int64_t x;
  std::string v;
  while (in >> c >> x >> v) r.chrom.push_back(c), r.pos.push_back(x), r.p.push_back(std::stod(v));
  return r;
}

void expect_same_rows(const association_table& t, const awk_rows& r) {
  EXPECT_GT(r.p.size(), 400u);  // the set's 600 variants less the NA rows (GEMMA: less its MAF filter)
  ASSERT_EQ(t.p.size(), r.p.size());
  for (size_t i = 0; i < r.p.size(); ++i) {
    EXPECT_EQ(t.chromosomes[size_t(t.chrom[i])], r.chrom[i]) << "row " << i;
    EXPECT_EQ(t.pos[i], r.pos[i]) << "row " << i;
    EXPECT_EQ(t.p[i], r.p[i]) << "row " << i;  // the same text parsed twice
  }
}

// Expects read_association_table(path) to throw input_error whose message holds each of `parts`.
void expect_error(const std::string& path, const std::vector<std::string>& parts, const association_table_options& o = {}) {
  try {
    (void)read_association_table(path, o);
    ADD_FAILURE() << path << " was accepted";
  } catch (const input_error& e) {
    for (const auto& s : parts) EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what();
  }
}

TEST(AssociationTable, Plink2LayoutWithCovariateRowsNaAndChrPrefix) {
  const std::string path = write_file(
      "hand.glm.linear",
      "#CHROM\tPOS\tID\tREF\tALT\tA1\tTEST\tOBS_CT\tBETA\tSE\tT_STAT\tP\tERRCODE\n"
      "chr1\t100\trs1\tA\tG\tG\tADD\t10\t0.5\t0.1\t5\t1e-06\t.\n"
      "chr1\t100\trs1\tA\tG\tG\tsex\t10\t0.2\t0.1\t2\t0.05\t.\n"
      "chr1\t250\trs2\tC\tT\tT\tADD\t10\tNA\tNA\tNA\tNA\tCONST_OMITTED_ALLELE\n"
      "chr1\t250\trs2\tC\tT\tT\tsex\t10\t0.2\t0.1\t2\t0.04\t.\n"
      "chrX\t7\trs3\tA\tC\tC\tADD\t10\t0.1\t0.1\t1\t0.3\t.\n"
      "chrX\t7\trs3\tA\tC\tC\tsex\t10\t0.1\t0.1\t1\t0.2\t.\n"
      "1\t300\trs4\tA\tC\tC\tADD\t10\t0.1\t0.1\t1\t1\t.\n"
      "1\t300\trs4\tA\tC\tC\tsex\t10\t0.1\t0.1\t1\t0\t.\n");
  const association_table t = read_association_table(path);
  EXPECT_EQ(t.p_column, "P");
  EXPECT_EQ(t.rows, 8);
  EXPECT_EQ(t.other_tests, 4);
  EXPECT_EQ(t.missing_p, 1);
  ASSERT_EQ(t.chromosomes, (std::vector<std::string>{"1", "X"}));  // "chr1" and "1" are one chromosome
  EXPECT_EQ(t.chrom, (std::vector<int32_t>{0, 1, 0}));
  EXPECT_EQ(t.pos, (std::vector<int64_t>{100, 7, 300}));
  EXPECT_EQ(t.p, (std::vector<double>{1e-6, 0.3, 1}));
}

TEST(AssociationTable, GemmaLayoutAndPColumnByName) {
  const std::string path = write_file("hand.assoc.txt",
                                      "chr\trs\tps\tn_miss\tallele1\tallele0\taf\tbeta\tse\tlogl_H1\tl_remle\tp_wald\tp_lrt\n"
                                      "1\trs1\t595\t0\tA\tT\t0.513\t0.08\t0.09\t-407\t3.3\t4.1e-01\t4.2e-01\n"
                                      "2\trs2\t1847\t0\tA\tT\t0.278\t0.17\t0.10\t-406\t3.4\tnan\t1.1e-01\n"
                                      "10\tctg\t5\t0\tA\tT\t0.278\t0.17\t0.10\t-406\t3.4\t2e-300\t1.1e-01\n");
  association_table t = read_association_table(path);
  EXPECT_EQ(t.p_column, "p_wald");
  EXPECT_EQ(t.missing_p, 1);
  EXPECT_EQ(t.p, (std::vector<double>{0.41, 2e-300}));
  EXPECT_EQ(t.pos, (std::vector<int64_t>{595, 5}));
  t = read_association_table(path, {.p_column = "P_LRT"});  // any case
  EXPECT_EQ(t.p_column, "p_lrt");
  EXPECT_EQ(t.p, (std::vector<double>{0.42, 0.11, 0.11}));
}

TEST(AssociationTable, Plink1AssocWithAlignedColumns) {
  const std::string path = write_file("hand.qassoc",
                                      " CHR   SNP    BP  NMISS   BETA     SE      R2      T      P \n"
                                      "   1   rs1   595    300  0.007  0.077   3e-05  0.095  0.9243 \n"
                                      "  26   rs2  1847    300  0.100  0.089   0.004  1.123      NA \n"
                                      "  26   rs3  1900    300  0.100  0.089   0.004  1.123  1e-09 \n");
  const association_table t = read_association_table(path);
  EXPECT_EQ(t.chromosomes, (std::vector<std::string>{"1", "26"}));
  EXPECT_EQ(t.p, (std::vector<double>{0.9243, 1e-9}));
  EXPECT_EQ(t.missing_p, 1);
}

// The peers' own files for one simulated set: every counted row equal to awk's reading.
TEST(AssociationTable, FilesOfAssocPlink2Plink19AndGemma) {
  const std::string dir = work().path("peers");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(panoramix("simulate --samples 300 --variants 600 --traits 1 --qtl 10 --missing 0.01 --monomorphic 0.02 "
                      "--seed 5 --out " + dir + "/s"),
            0);
  // A covariate, so that plink2 writes covariate rows, and monomorphic variants give NA rows.
  ASSERT_EQ(run("{ awk 'NR == 1 {print \"FID IID c\"; next} {print $1, $2, NR % 3}' " + dir + "/s.pheno > " + dir +
                "/c.txt; }"),
            0);
  // panoramix's own mixed-model output (no TEST column).
  ASSERT_EQ(panoramix("assoc --bfile " + dir + "/s --pheno " + dir + "/s.pheno --lmm --out " + dir + "/o"), 0);
  expect_same_rows(read_association_table(dir + "/o.trait1.lmm"), read_with_awk(dir + "/o.trait1.lmm", "CHROM", "POS", "P"));
  if (have_program("plink2")) {
    ASSERT_EQ(run("plink2 --bfile " + dir + "/s --pheno " + dir + "/s.pheno --covar " + dir + "/c.txt --glm --out " +
                  dir + "/p"),
              0);
    const association_table t = read_association_table(dir + "/p.trait1.glm.linear");
    expect_same_rows(t, read_with_awk(dir + "/p.trait1.glm.linear", "CHROM", "POS", "P"));
    EXPECT_EQ(t.other_tests, t.rows / 2);  // one covariate row per variant
    EXPECT_GT(t.missing_p, 0);             // the monomorphic variants
    // zstd-compressed (--glm zs): the same rows.
    ASSERT_EQ(run("plink2 --bfile " + dir + "/s --pheno " + dir + "/s.pheno --glm zs allow-no-covars --out " + dir +
                  "/z"),
              0);
    if (have_program("zstdcat"))
      expect_same_rows(read_association_table(dir + "/z.trait1.glm.linear.zst"),
                       read_with_awk(dir + "/z.trait1.glm.linear.zst", "CHROM", "POS", "P", true));
  }
  if (have_program("plink1.9")) {
    ASSERT_EQ(run("plink1.9 --bfile " + dir + "/s --pheno " + dir + "/s.pheno --assoc --out " + dir + "/q"), 0);
    expect_same_rows(read_association_table(dir + "/q.qassoc"), read_with_awk(dir + "/q.qassoc", "CHR", "BP", "P"));
  }
  if (!have_program("gemma")) GTEST_SKIP() << "gemma is not installed";
  // GEMMA writes into ./output; its phenotype file is one column in .fam order.
  ASSERT_EQ(run("{ cd " + dir + " && tail -n +2 s.pheno | cut -d' ' -f3 > y.txt && gemma -bfile s -p y.txt -lm 4 -o lm "
                "&& gemma -bfile s -p y.txt -gk 1 -o k && gemma -bfile s -p y.txt -k output/k.cXX.txt -lmm 4 -o lmm; }",
                dir + "/gemma.out"),
            0)
      << read_text(dir + "/gemma.out");
  for (const std::string name : {"lm", "lmm"}) {
    const std::string path = dir + "/output/" + name + ".assoc.txt";
    const association_table t = read_association_table(path);
    EXPECT_EQ(t.p_column, "p_wald");
    expect_same_rows(t, read_with_awk(path, "chr", "ps", "p_wald"));
    expect_same_rows(read_association_table(path, {.p_column = "p_score"}), read_with_awk(path, "chr", "ps", "p_score"));
  }
}

TEST(AssociationTable, MalformedTablesNameFileAndLine) {
  const std::string header = "#CHROM\tPOS\tID\tTEST\tP\n";
  expect_error(write_file("nop.txt", "#CHROM\tPOS\tID\tBETA\n1\t5\trs1\t0.1\n"),
               {"nop.txt:1:", "no P value column", "#CHROM POS ID BETA"});
  expect_error(write_file("nochrom.txt", "POS\tP\n5\t0.1\n"), {"nochrom.txt:1:", "no chromosome column"});
  expect_error(write_file("nopos.txt", "CHR\tP\n1\t0.1\n"), {"nopos.txt:1:", "no position column"});
  expect_error(write_file("named.txt", header + "1\t5\trs1\tADD\t0.1\n"), {"named.txt:1:", "no column 'p_lrt'"},
               {.p_column = "p_lrt"});
  expect_error(write_file("short.txt", header + "1\t5\trs1\tADD\t0.1\n1\t6\trs2\tADD\n"),
               {"short.txt:3:", "4 fields, the header names 5 columns"});
  expect_error(write_file("badp.txt", header + "1\t5\trs1\tADD\t0.1\n1\t6\trs2\tADD\tabc\n"),
               {"badp.txt:3:", "P value (column 5, 'P') is not a number in [0, 1]: 'abc'"});
  expect_error(write_file("bigp.txt", header + "1\t6\trs2\tADD\t1.5\n"), {"bigp.txt:2:", "'1.5'"});
  expect_error(write_file("infp.txt", header + "1\t6\trs2\tADD\tinf\n"), {"infp.txt:2:", "'inf'"});
  expect_error(write_file("badpos.txt", header + "1\t6.5\trs2\tADD\t0.5\n"),
               {"badpos.txt:2:", "position (column 2) is not a non-negative integer: '6.5'"});
  expect_error(write_file("negpos.txt", header + "1\t-6\trs2\tADD\t0.5\n"), {"negpos.txt:2:", "'-6'"});
  expect_error(write_file("empty.txt", ""), {"empty.txt: empty"});
  expect_error(write_file("allna.txt", header + "1\t6\trs2\tADD\tNA\n"), {"allna.txt: no P values", "1 with P missing"});
  expect_error(write_file("noadd.txt", header + "1\t6\trs2\tDOM\t0.5\n"), {"noadd.txt: no ADD rows"});
  expect_error(work().path("absent.txt"), {"absent.txt", "cannot be opened"});
}

}  // namespace
}  // namespace pmx
