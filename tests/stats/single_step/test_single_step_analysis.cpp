// The single-step analysis entry (run_single_step_analysis: files to results) and its writers:
//  * pblup from a pedigree file (parents listed after offspring, a parent not listed), a records
//    file and a VC file: EBVs against Henderson's equations with the tabular A inverted densely in
//    long double;
//  * ssGBLUP from a PLINK fileset with a genotyped animal missing from the pedigree
//    (--allow-unpedigreed): the same solution as solve_single_step on inputs built by hand;
//  * the refusals (genotyped animal not in the pedigree, genotyped twice, genomic model without
//    genotypes) and "--bfile ignored" for pblup;
//  * PREFIX.iter/.sol/.ebv, the non-convergence message, and PREFIX.iter.part's lifetime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "panoramix/error.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/plink_write.hpp"
#include "panoramix/single_step_analysis.hpp"
#include "panoramix/single_step_files.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

struct recording_log final : analysis_log {
  std::vector<std::string> lines;
  void message(const std::string& line) override { lines.push_back(line); }
  void begin(const std::string&) override {}
  void end() override {}
  void substage(const std::string&, double) override {}
  void update(std::string_view, double) override {}
};

// 14 animals: "k" listed before its parents, "s0" a sire never listed as an animal.
const char* pedigree_text =
    "animal sire dam\n"
    "k g h\n"
    "a 0 0\nb 0 0\nc 0 0\nd 0 0\n"
    "e a b\nf a c\ng e d\nh s0 c\n"
    "i g f\nj g h\nl e f\nm 0 h\n";

// Records: ID herd y (three herds, some animals twice, one without y).
const char* records_text =
    "ID,herd,y\n"
    "e,H1,10.5\nf,H2,9.25\ng,H1,12.0\nh,H3,8.5\ni,H2,11.0\nj,H1,13.5\nk,H3,10.0\n"
    "l,H2,9.0\nm,H3,7.75\ni,H1,11.5\nj,H2,12.25\nd,H1,NA\nc,H3,9.5\n";

struct files {
  test::temp_dir dir;
  std::string ped, pheno, vc;
  files() : ped(dir.path("p.ped")), pheno(dir.path("r.csv")), vc(dir.path("v.vc")) {
    std::ofstream(ped) << pedigree_text;
    std::ofstream(pheno) << records_text;
    std::ofstream(vc) << "genetic\n2\nresidual\n3\n";
  }
};

single_step_analysis_options options(const files& f, single_step_model model) {
  single_step_analysis_options o;
  o.ped = f.ped;
  o.pheno = f.pheno;
  o.traits = {"y"};
  o.classes = {"herd"};
  o.vc = f.vc;
  o.model = model;
  o.solution_tol = 1e-13;
  return o;
}

analysis_context cpu_context(analysis_log* log, std::function<std::unique_ptr<genotype_source>()> genotypes = nullptr) {
  return {.log = log, .make_executor = [] { return executor(backend::cpu, 2); }, .open_genotypes = std::move(genotypes)};
}

TEST(SingleStepAnalysis, PblupFromFilesMatchesHendersonEquations) {
  files f;
  recording_log log;
  const single_step_analysis r = run_single_step_analysis(options(f, single_step_model::pblup), cpu_context(&log));
  ASSERT_TRUE(r.solution.pcg.converged);
  const pedigree& ped = r.ped;
  ASSERT_EQ(ped.size(), 14);  // 13 listed + s0
  EXPECT_NE(ped.find("s0"), pedigree::unknown);
  EXPECT_EQ(r.traits, (std::vector<std::string>{"y"}));
  EXPECT_EQ(r.genotypes, nullptr);
  // Henderson: unknowns [μ, H2, H3 | a_0..a_13] (H1, the first sorted level, is the reference),
  // A from the tabular method, λ = σ²_e/σ²_a = 3/2.
  const int64_t n = ped.size(), p = 3, k = p + n;
  const std::vector<double> A = relationship_matrix(ped);
  std::vector<long double> Ainv(n * n, 0), Am(A.begin(), A.end());
  for (int64_t i = 0; i < n; ++i) Ainv[i * n + i] = 1;
  test::ld_solve(Am, Ainv, n, n);
  std::vector<long double> C(k * k, 0), rhs(k, 0);
  std::istringstream in(records_text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string id, herd, y;
    std::getline(ss, id, ','), std::getline(ss, herd, ','), std::getline(ss, y, ',');
    if (y == "NA") continue;
    std::vector<int64_t> cols = {0, p + ped.index(id)};
    if (herd == "H2") cols.push_back(1);
    if (herd == "H3") cols.push_back(2);
    for (int64_t a : cols) {
      for (int64_t b : cols) C[a * k + b] += 1;
      rhs[a] += std::stold(y);
    }
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) C[(p + i) * k + p + j] += 1.5L * Ainv[i * n + j];
  test::ld_solve(C, rhs, k, 1);
  double worst = 0, scale = 0;
  ASSERT_EQ(static_cast<int64_t>(r.solution.ebv.size()), n);
  for (int64_t i = 0; i < n; ++i) {
    worst = std::max(worst, std::fabs(r.solution.ebv[i] - static_cast<double>(rhs[p + i])));
    scale = std::max(scale, std::fabs(static_cast<double>(rhs[p + i])));
  }
  EXPECT_LE(worst, 1e-9 * scale);
  // The log names the pedigree and the records.
  auto logged = [&](const std::string& line) {
    return std::find(log.lines.begin(), log.lines.end(), line) != log.lines.end();
  };
  EXPECT_TRUE(logged("--ped " + f.ped + ": 13 records, 14 animals (1 parents added as founders)"));
  EXPECT_TRUE(logged("--pheno " + f.pheno +
                     ": 12 records used; 0 left out for a missing class or covariate, 1 without any trait"));

  // The writers: .ebv in the pedigree's order, .sol with the reference level, .iter; no .snp.
  output_group out;
  write_single_step(out, f.dir.path("res"), r);
  out.commit_all();
  std::ifstream ebv(f.dir.path("res.ebv"));
  std::getline(ebv, line);
  EXPECT_EQ(line, "ID\ty");
  for (int64_t i = 0; i < n; ++i) {
    std::string id, v;
    ASSERT_TRUE(ebv >> id >> v);
    EXPECT_EQ(id, ped.id(i));
    EXPECT_NEAR(std::stod(v), r.solution.ebv[i], 1e-9 * scale);
  }
  const std::string sol = test::read_text(f.dir.path("res.sol"));
  EXPECT_EQ(sol.substr(0, sol.find('\n')), "effect\tlevel\ttrait\tvalue");
  EXPECT_NE(sol.find("herd\tH1\ty\t0\n"), std::string::npos) << sol;
  EXPECT_TRUE(std::ifstream(f.dir.path("res.iter")).good());
  EXPECT_FALSE(std::ifstream(f.dir.path("res.snp")).good());
}

// Genotypes of 6 pedigree animals and one not in it ("x"), as a PLINK fileset.
std::string write_genotypes(const files& f, const std::vector<std::string>& ids, uint64_t seed) {
  const int64_t k = 40;
  const packed_genotypes g = test::random_genotypes(static_cast<int64_t>(ids.size()), k, 0.0, seed, false);
  std::vector<sample_record> samples;
  for (size_t i = 0; i < ids.size(); ++i) samples.push_back({"F" + std::to_string(i), ids[i], "0", "0", 0, "-9"});
  std::vector<variant_record> variants;
  for (int64_t j = 0; j < k; ++j) variants.push_back({"1", "v" + std::to_string(j), 0.0, 100 * (j + 1), "A", "C"});
  const std::string prefix = f.dir.path("geno" + std::to_string(seed));
  write_plink_fileset(prefix, samples, variants, g.view());
  return prefix;
}

TEST(SingleStepAnalysis, UnpedigreedGenotypedAnimalsAddedAsFoundersAsIfListed) {
  files f;
  const std::vector<std::string> ids = {"i", "j", "x", "k", "l", "m", "g"};
  const std::string bfile = write_genotypes(f, ids, 3);
  single_step_analysis_options o = options(f, single_step_model::ssgblup);
  o.bfile = bfile;
  auto open = [&]() -> std::unique_ptr<genotype_source> { return std::make_unique<plink_fileset>(bfile); };
  // Refused without --allow-unpedigreed, naming the animal.
  try {
    run_single_step_analysis(o, cpu_context(nullptr, open));
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), bfile + ".fam: 1 genotyped animal(s) not in the pedigree (x); add them to --ped or "
                                             "give --allow-unpedigreed to add them as founders");
  }
  o.allow_unpedigreed = true;
  recording_log log;
  const single_step_analysis r = run_single_step_analysis(o, cpu_context(&log, open));
  ASSERT_TRUE(r.solution.pcg.converged);
  ASSERT_EQ(r.ped.size(), 15);
  const int64_t x = r.ped.find("x");
  ASSERT_NE(x, pedigree::unknown);
  EXPECT_EQ(r.ped.sire(x), pedigree::unknown);
  EXPECT_EQ(r.ped.dam(x), pedigree::unknown);
  ASSERT_NE(r.genotypes, nullptr);
  EXPECT_EQ(r.genotypes->n_samples(), 7);
  // The oracle: the same equations built by hand, the pedigree file's records plus "x" as a founder.
  std::vector<pedigree_record> pr = read_pedigree_records(f.ped);
  pr.push_back({"x", "", "", 0});
  const pedigree ped = pedigree::from_records(pr, "by hand");
  plink_fileset fs(bfile);
  const packed_genotypes geno = fs.read_block(0, fs.n_variants());
  single_step_genotypes sg;
  sg.genotypes = geno.view();
  for (const auto& id : ids) sg.animals.push_back(ped.index(id));
  sg.w = o.w;
  single_step_options so;
  so.model = single_step_model::ssgblup;
  so.solution_tol = o.solution_tol;
  const single_step_solution s =
      solve_single_step(executor(backend::cpu, 2), ped, read_breeding_records(f.pheno, {"y"}, {"herd"}, {}),
                        read_variance_components(f.vc, 1), &sg, so);
  ASSERT_EQ(s.ebv.size(), r.solution.ebv.size());
  for (int64_t i = 0; i < ped.size(); ++i) {
    const double want = s.ebv[i], got = r.solution.ebv[r.ped.index(ped.id(i))];
    EXPECT_NEAR(got, want, 1e-12 * (1 + std::fabs(want))) << ped.id(i);
  }
  bool noted = false;
  for (const auto& l : log.lines)
    noted = noted || l == "--allow-unpedigreed: 1 genotyped animal(s) added to the pedigree as founders (x)";
  EXPECT_TRUE(noted);
}

TEST(SingleStepAnalysis, Refusals) {
  files f;
  // A genomic model without genotypes.
  try {
    run_single_step_analysis(options(f, single_step_model::sssnpblup), cpu_context(nullptr));
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "--model sssnpblup needs genotypes: give --bfile");
  }
  // An animal genotyped twice.
  const std::string bfile = write_genotypes(f, {"i", "j", "k", "j"}, 5);
  single_step_analysis_options o = options(f, single_step_model::ssgblup);
  o.bfile = bfile;
  try {
    run_single_step_analysis(o, cpu_context(nullptr, [&]() -> std::unique_ptr<genotype_source> {
                               return std::make_unique<plink_fileset>(bfile);
                             }));
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), bfile + ".fam: animal 'j' is genotyped twice (samples 2 and 4)");
  }
  // pblup never opens the genotypes, and says so.
  o.model = single_step_model::pblup;
  recording_log log;
  const single_step_analysis r = run_single_step_analysis(
      o, cpu_context(&log, []() -> std::unique_ptr<genotype_source> { throw logic_error("genotypes opened"); }));
  EXPECT_EQ(r.genotypes, nullptr);
  EXPECT_NE(std::find(log.lines.begin(), log.lines.end(), "--bfile ignored: --model pblup uses the pedigree only"),
            log.lines.end());
}

TEST(SingleStepAnalysis, NotConvergedWritesOnlyTheHistory) {
  files f;
  single_step_analysis_options o = options(f, single_step_model::pblup);
  o.solution_tol = 0;
  o.max_iterations = 1;
  std::vector<int64_t> seen;
  o.on_iteration = [&](const pcg_iteration& h, double, double) { seen.push_back(h.iteration); };
  const single_step_analysis r = run_single_step_analysis(o, cpu_context(nullptr));
  ASSERT_FALSE(r.solution.pcg.converged);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1}));
  output_group out;
  write_single_step(out, f.dir.path("nc"), r);
  out.commit_all();
  const std::string iter = test::read_text(f.dir.path("nc.iter"));
  EXPECT_EQ(std::count(iter.begin(), iter.end(), '\n'), 3);  // header + iterations 0 and 1
  EXPECT_FALSE(std::ifstream(f.dir.path("nc.ebv")).good());
  EXPECT_FALSE(std::ifstream(f.dir.path("nc.sol")).good());
  char rel[40];
  std::snprintf(rel, sizeof rel, "%.10g", r.solution.pcg.history.back().relative_residual);
  EXPECT_EQ(single_step_not_converged(r, "P"), std::string("PCG did not converge in 1 iterations (||r||^2/||b||^2 = ") +
                                                   rel + "); raise --max-iter or --tol. Only P.iter was written");
}

TEST(SingleStepAnalysis, ProgressFileLivesWithItsObject) {
  test::temp_dir dir;
  const std::string part = dir.path("run.iter.part");
  {
    pcg_progress_file p(dir.path("run"));
    p.add({3, 0.25, 1.5}, 0.5, 0.125);
    EXPECT_EQ(test::read_text(part),
              "iteration\trelative_residual\tseconds\tgenotype_seconds\tpedigree_seconds\n"
              "3\t2.500000e-01\t1.500000\t0.500000\t0.125000\n");
  }
  EXPECT_FALSE(std::ifstream(part).good());
  EXPECT_THROW({ pcg_progress_file p(dir.path("no/such/dir/run")); }, io_error);
}

}  // namespace
}  // namespace pmx
