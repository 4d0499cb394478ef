// The pedigree analysis entry (run_pedigree_analysis: a file to results) and its writers, on a
// pedigree with inbreeding, records listed before their parents, a parent not listed and the
// parent columns swapped: F against the diagonal of the tabular A, A⁻¹ against A inverted densely
// in long double; PREFIX.ids/.inbreeding/.ainv read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "panoramix/pedigree_analysis.hpp"
#include "panoramix/pedigree_files.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// dam before sire (as the header says); "o" and "q" are listed before their parents; "z" is a dam
// never listed as an animal; full-sib and half-sib matings make inbred animals.
const char* pedigree_text =
    "id,dam,sire\n"
    "o,m,n\n"
    "a,0,0\nb,0,0\nc,z,0\n"
    "d,a,b\ne,a,b\nf,c,b\n"
    "g,d,e\nh,d,e\nm,g,h\nn,f,e\n"
    "q,o,h\n";

struct recording_log final : analysis_log {
  std::vector<std::string> lines;
  std::vector<double> progress;  // fractions reported for the stage "inbreeding"
  void message(const std::string& line) override { lines.push_back(line); }
  void begin(const std::string& stage) override { lines.push_back("[" + stage + "]"); }
  void end() override {}
  void substage(const std::string&, double) override {}
  void update(std::string_view stage, double f) override {
    if (stage == "inbreeding") progress.push_back(f);
  }
};

TEST(PedigreeAnalysis, InbreedingAndAInverseFromAFile) {
  test::temp_dir dir;
  const std::string path = dir.path("p.csv");
  std::ofstream(path) << pedigree_text;
  pedigree_analysis_options o;
  o.ped = path;
  o.a_inverse = true;
  o.threads = 2;
  recording_log log;
  const pedigree_analysis r = run_pedigree_analysis(o, &log);
  const pedigree& ped = r.ped;
  const int64_t n = ped.size();
  ASSERT_EQ(n, 13);  // 12 listed + z
  EXPECT_EQ(r.notes.added_founders, 1);
  // Columns swapped by the header: c's dam is z, m's dam is g.
  EXPECT_EQ(ped.dam(ped.index("c")), ped.index("z"));
  EXPECT_EQ(ped.sire(ped.index("m")), ped.index("h"));
  // F_i = A_ii − 1 from the tabular method.
  const std::vector<double> A = relationship_matrix(ped);
  ASSERT_EQ(static_cast<int64_t>(r.F.size()), n);
  int inbred = 0;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_NEAR(r.F[i], A[i * n + i] - 1, 1e-15) << ped.id(i);
    inbred += r.F[i] > 0;
  }
  EXPECT_GE(inbred, 3);
  // A⁻¹ entries against the dense inverse (lower triangle; every other entry of the inverse is 0).
  ASSERT_TRUE(r.has_a_inverse);
  std::vector<long double> Am(A.begin(), A.end()), Ainv(n * n, 0);
  for (int64_t i = 0; i < n; ++i) Ainv[i * n + i] = 1;
  test::ld_solve(Am, Ainv, n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j)
      EXPECT_NEAR(r.a_inverse.at(i, j), static_cast<double>(Ainv[i * n + j]), 1e-12) << i << "," << j;
  // The log: stages in order, the counts.
  const std::vector<std::string> stages = {"[read and check pedigree]", "[inbreeding]", "[A-inverse]"};
  std::vector<std::string> seen;
  for (const auto& l : log.lines)
    if (l.front() == '[') seen.push_back(l);
  EXPECT_EQ(seen, stages);
  EXPECT_NE(std::find(log.lines.begin(), log.lines.end(),
                      "A-inverse: " + std::to_string(r.a_inverse.nonzeros()) + " nonzeros in the lower triangle"),
            log.lines.end());

  // The writers, read back.
  output_group out;
  write_pedigree_analysis(out, dir.path("res"), r);
  out.commit_all();
  std::ifstream ids(dir.path("res.ids")), inb(dir.path("res.inbreeding")), ainv(dir.path("res.ainv"));
  std::string line;
  std::getline(ids, line);
  EXPECT_EQ(line, "#index\tid\tsire\tdam");
  std::getline(inb, line);
  EXPECT_EQ(line, "#index\tid\tF");
  for (int64_t i = 0; i < n; ++i) {
    int64_t index = 0;
    std::string id, sire, dam, f;
    ASSERT_TRUE(ids >> index >> id >> sire >> dam);
    EXPECT_EQ(index, i + 1);
    EXPECT_EQ(id, ped.id(i));
    EXPECT_EQ(sire, ped.sire(i) < 0 ? "0" : ped.id(ped.sire(i)));
    EXPECT_EQ(dam, ped.dam(i) < 0 ? "0" : ped.id(ped.dam(i)));
    ASSERT_TRUE(inb >> index >> id >> f);
    EXPECT_EQ(std::stod(f), r.F[i]);  // shortest round-trip form
  }
  int64_t triplets = 0, row = 0, col = 0;
  double v = 0;
  while (ainv >> row >> col >> v) {
    ++triplets;
    EXPECT_GE(row, col);
    EXPECT_EQ(v, r.a_inverse.at(row - 1, col - 1));
  }
  EXPECT_EQ(triplets, r.a_inverse.nonzeros());
}

TEST(PedigreeAnalysis, WithoutAInverseAndWithForcedColumns) {
  test::temp_dir dir;
  const std::string path = dir.path("p.txt");
  std::ofstream(path) << "x 0 0\ny 0 0\nw x y\n";
  pedigree_analysis_options o;
  o.ped = path;
  o.columns = pedigree_columns::dam_sire;
  const pedigree_analysis r = run_pedigree_analysis(o);
  EXPECT_FALSE(r.has_a_inverse);
  EXPECT_EQ(r.ped.dam(r.ped.index("w")), r.ped.index("x"));
  output_group out;
  write_pedigree_analysis(out, dir.path("res"), r);
  out.commit_all();
  EXPECT_FALSE(std::ifstream(dir.path("res.ainv")).good());
  EXPECT_EQ(test::read_text(dir.path("res.ids")), "#index\tid\tsire\tdam\n1\tx\t0\t0\n2\ty\t0\t0\n3\tw\ty\tx\n");
  EXPECT_EQ(test::read_text(dir.path("res.inbreeding")), "#index\tid\tF\n1\tx\t0\n2\ty\t0\n3\tw\t0\n");
}

// Issue #29: a pathological pedigree (a chain, each animal the child of the one before it and of
// the one before that, so deep and inbred) is named at once: its depth, a warning before the
// inbreeding stage starts, progress while it runs; F still exact (the diagonal of the tabular A).
TEST(PedigreeAnalysis, DeepChainIsWarnedAboutAtOnceWithProgress) {
  test::temp_dir dir;
  const int n = 1202;  // a1, a2 founders; a_k (k >= 3): depth k - 2, so 1200 generations
  {
    std::ofstream ped(dir.path("chain.ped"));
    ped << "a1 0 0\na2 0 0\n";
    for (int k = 3; k <= n; ++k) {  // even animals are sires, odd ones dams
      const std::string prev = "a" + std::to_string(k - 1), before = "a" + std::to_string(k - 2);
      ped << "a" << k << " " << (k % 2 ? prev : before) << " " << (k % 2 ? before : prev) << "\n";
    }
  }
  pedigree_analysis_options o;
  o.ped = dir.path("chain.ped");
  o.threads = 1;
  recording_log log;
  const pedigree_analysis r = run_pedigree_analysis(o, &log);
  EXPECT_EQ(pedigree_depth(r.ped), 1200);
  const auto at = [&](const std::string& prefix) {
    const auto it = std::find_if(log.lines.begin(), log.lines.end(),
                                 [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
    EXPECT_NE(it, log.lines.end()) << prefix;
    return it - log.lines.begin();
  };
  const auto depth = at("1200 generations (longest line of descent from a founder)");
  const auto warning = at("Warning: the pedigree is 1200 generations deep (livestock pedigrees are 20-60): exact "
                          "inbreeding walks every sire's ancestors, so its cost grows with the depth, to about "
                          "(animals with both parents known) x depth / 2 = 7.2e+05 steps for a chain");
  const auto stage = at("[inbreeding]");
  EXPECT_LT(depth, warning);
  EXPECT_LT(warning, stage);
  ASSERT_FALSE(log.progress.empty());
  EXPECT_TRUE(std::is_sorted(log.progress.begin(), log.progress.end()));
  EXPECT_EQ(log.progress.back(), 1.0);
  EXPECT_EQ(log.progress.size(), 1200u);  // once per depth after the founders
  const std::vector<double> A = relationship_matrix(r.ped);
  double worst = 0;
  for (int64_t i = 0; i < r.ped.size(); ++i) worst = std::max(worst, std::fabs(r.F[i] - (A[i * r.ped.size() + i] - 1)));
  EXPECT_LE(worst, 1e-13);
  EXPECT_GT(r.F.back(), 0.9);  // ever closer mating: F approaches 1
}

// A chain with one parent per animal is as deep, but no animal can be inbred: no walk, no warning.
TEST(PedigreeAnalysis, DeepChainWithOneParentIsNotWarnedAbout) {
  test::temp_dir dir;
  {
    std::ofstream ped(dir.path("chain1.ped"));
    ped << "a1 0 0\n";
    for (int k = 2; k <= 1501; ++k) ped << "a" << k << " a" << k - 1 << " 0\n";
  }
  pedigree_analysis_options o;
  o.ped = dir.path("chain1.ped");
  recording_log log;
  const pedigree_analysis r = run_pedigree_analysis(o, &log);
  EXPECT_NE(std::find(log.lines.begin(), log.lines.end(), "1500 generations (longest line of descent from a founder)"),
            log.lines.end());
  for (const auto& l : log.lines) EXPECT_EQ(l.rfind("Warning", 0), std::string::npos) << l;
  for (double f : r.F) EXPECT_EQ(f, 0.0);
}

TEST(PedigreeAnalysis, DepthOfShallowPedigreeAndNoWarning) {
  test::temp_dir dir;
  const std::string path = dir.path("p.csv");
  std::ofstream(path) << pedigree_text;
  pedigree_analysis_options o;
  o.ped = path;
  recording_log log;
  const pedigree_analysis r = run_pedigree_analysis(o, &log);
  // a, b, z -> c, d, e -> f, g, h -> m, n -> o -> q: o has parents m (depth 3) and n (3).
  EXPECT_EQ(pedigree_depth(r.ped), 5);
  EXPECT_NE(std::find(log.lines.begin(), log.lines.end(), "5 generations (longest line of descent from a founder)"),
            log.lines.end());
  for (const auto& l : log.lines) EXPECT_EQ(l.rfind("Warning", 0), std::string::npos) << l;
}

}  // namespace
}  // namespace pmx
