// The pedigree simulator's text options and files (simulate/pedigree_sim_traits.hpp,
// simulate/pedigree_sim_files.hpp): the per-trait lists, and a simulated dataset written and read
// back through the readers `pedigree` and `ssblup` use (pedigree records, breeding records,
// variance components, the PLINK fileset), the same bytes for any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "panoramix/breeding_records.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pedigree_records.hpp"
#include "panoramix/plink_files.hpp"
#include "simulate/pedigree_sim_files.hpp"
#include "simulate/pedigree_sim_traits.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

TEST(PedigreeSimTraits, ListsAndOneVarianceForEveryTrait) {
  EXPECT_EQ(sim::parse_trait_list("0.3,0.45,1e-1", "--h2"), (std::vector<double>{0.3, 0.45, 0.1}));
  sim::pedigree_params p;
  sim::set_trait_lists(p, "0.3,0.4,0.2", "2.5");
  EXPECT_EQ(p.h2, (std::vector<double>{0.3, 0.4, 0.2}));
  EXPECT_EQ(p.genetic_variance, (std::vector<double>{2.5, 2.5, 2.5}));
  sim::set_trait_lists(p, "0.3,0.4", "1,4");
  EXPECT_EQ(p.genetic_variance, (std::vector<double>{1, 4}));
  sim::set_trait_lists(p, "0.3,0.4", "1,4,5");  // sizes are validate's business
  EXPECT_THROW(sim::validate(p), input_error);
  for (const char* bad : {"0.3,abc", "0.3x", "0.3,,0.4"}) {
    try {
      sim::set_trait_lists(p, bad, "1");
      ADD_FAILURE() << bad << " accepted";
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("simulate-pedigree: --h2: '", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("' is not a number"), std::string::npos) << e.what();
    }
  }
  try {
    sim::set_trait_lists(p, "0.3", "1,b");
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "simulate-pedigree: --vg: 'b' is not a number");
  }
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; ss >> x;) f.push_back(x);
  return f;
}

TEST(PedigreeSimFiles, ReadBackThroughTheReaders) {
  sim::pedigree_params p;
  p.n_animals = 1200;
  p.n_founders = 100;
  p.n_generations = 4;
  p.sires_per_generation = 10;
  p.n_variants = 300;
  p.n_chromosomes = 3;
  p.n_qtl = 50;
  p.h2 = {0.3, 0.5};
  p.genetic_variance = {1.0, 2.0};
  p.n_genotyped = 200;
  p.seed = 11;
  const sim::pedigree_dataset d = sim::simulate_pedigree(p, 2);
  test::temp_dir dir;
  const std::string prefix = dir.path("s");
  sim::write_pedigree_dataset(prefix, d, 3);
  const int64_t n = static_cast<int64_t>(d.id.size());
  // .ped
  const auto recs = read_pedigree_records(prefix + ".ped");
  ASSERT_EQ(static_cast<int64_t>(recs.size()), n);
  for (int64_t a = 0; a < n; ++a) {
    EXPECT_EQ(recs[a].id, d.id[a]);
    EXPECT_EQ(recs[a].sire, d.sire[a] < 0 ? "" : d.id[d.sire[a]]);
    EXPECT_EQ(recs[a].dam, d.dam[a] < 0 ? "" : d.id[d.dam[a]]);
  }
  // .pheno: one record per animal with a herd, traits to 10 significant digits, NA where missing.
  const breeding_records rec = read_breeding_records(prefix + ".pheno", {"trait1", "trait2"}, {"herd", "lact"}, {"dim"});
  EXPECT_EQ(rec.size(), sim::animals_with_records(d));
  int64_t r = 0;
  for (int64_t a = 0; a < n; ++a) {
    if (d.herd[a] <= 0) continue;
    ASSERT_LT(r, rec.size());
    EXPECT_EQ(rec.id[r], d.id[a]);
    EXPECT_EQ(rec.level[0][r], std::to_string(d.herd[a]));
    EXPECT_EQ(rec.level[1][r], std::to_string(d.lact[a]));
    EXPECT_NEAR(rec.covariate[0][r], d.dim[a], 1e-9 * std::fabs(d.dim[a]));
    for (int k = 0; k < 2; ++k) {
      const double want = d.phenotype[a * 2 + k], got = rec.y[r * 2 + k];
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got));
      else
        EXPECT_NEAR(got, want, 1e-9 * std::fabs(want));
    }
    ++r;
  }
  // .vc
  const variance_components vc = read_variance_components(prefix + ".vc", 2);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(vc.genetic[i], d.G0[i], 1e-9 * std::fabs(d.G0[i]) + 1e-300);
    EXPECT_NEAR(vc.residual[i], d.R0[i], 1e-9 * std::fabs(d.R0[i]) + 1e-300);
  }
  // .tbv: ID generation genotyped TBVs
  std::ifstream tbv(prefix + ".tbv");
  std::string line;
  std::getline(tbv, line);
  EXPECT_EQ(line, "ID generation genotyped trait1 trait2");
  std::vector<char> typed(n, 0);
  for (int64_t a : d.genotyped) typed[a] = 1;
  for (int64_t a = 0; a < n; ++a) {
    ASSERT_TRUE(std::getline(tbv, line));
    const auto f = fields(line);
    ASSERT_EQ(f.size(), 5u);
    EXPECT_EQ(f[0], d.id[a]);
    EXPECT_EQ(std::stoi(f[1]), d.generation[a]);
    EXPECT_EQ(std::stoi(f[2]), typed[a]);
    EXPECT_NEAR(std::stod(f[3]), d.tbv[a * 2], 1e-9 * std::fabs(d.tbv[a * 2]) + 1e-300);
  }
  // PLINK fileset: the genotyped animals, their genotypes.
  plink_fileset fs(prefix);
  ASSERT_EQ(fs.n_samples(), static_cast<int64_t>(d.genotyped.size()));
  ASSERT_EQ(fs.n_variants(), p.n_variants);
  for (int64_t i = 0; i < fs.n_samples(); ++i) EXPECT_EQ(fs.sample(i).iid, d.id[d.genotyped[i]]);
  const packed_genotypes g = fs.read_block(0, fs.n_variants());
  for (int64_t j = 0; j < fs.n_variants(); ++j)
    for (int64_t i = 0; i < fs.n_samples(); ++i)
      ASSERT_EQ(test::dosage(g, i, j), test::dosage(d.genotypes, i, j)) << i << "," << j;
  // The same bytes with one thread.
  const std::string one = dir.path("one");
  sim::write_pedigree_dataset(one, d, 1);
  for (const char* ext : {".ped", ".pheno", ".tbv", ".vc", ".bed", ".bim", ".fam"})
    EXPECT_EQ(test::read_text(prefix + ext), test::read_text(one + ext)) << ext;
}

}  // namespace
}  // namespace pmx
