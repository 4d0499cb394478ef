// Mutation ("fuzz") test of the BGEN reader: seeded random mutants of small valid BGEN files
// (uncompressed, zlib, zstd, plink2's export; bits flipped, bytes inserted, deleted or overwritten,
// the file cut at a random point) are read; the reader must not crash or hang, must either succeed
// or throw a pmx::error naming the file, and must read the valid files.
// PMX_MUTANTS=<n> sets the number of mutants per seed file (default 1500).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bgen_test_files.hpp"
#include "panoramix/bgen_files.hpp"
#include "panoramix/error.hpp"
#include "mutant_checks.hpp"
#include "test_support.hpp"

namespace pmx::test {
namespace {

TEST(BgenMutations, ReaderFailsOnlyWithPmxErrorsNamingTheFile) {
  temp_dir tmp;
  struct seed {
    std::string name, bytes;
  };
  const std::vector<std::string> ids = {"a_1", "b", "c_2", "d", "e"};
  std::vector<seed> seeds;
  for (int compression : {0, 1, 2}) {
#ifndef PMX_TEST_ZSTD
    if (compression == 2) continue;
#endif
    seeds.push_back({"hand" + std::to_string(compression),
                     bgen_bytes(random_bgen(ids, 12, compression == 1 ? 8 : 11, compression,
                                            40 + uint64_t(compression)))});
  }
  const std::string bfile = shared_data("gapit_maize282/mdp_maize282");
  const std::string exp = tmp.path("seed_export");
  const std::string keep = tmp.path("seed.keep");
  write_file(keep, "33-16 33-16\n38-11 38-11\n4226 4226\n");
  if (!bfile.empty() && have_program("plink2") &&
      run("plink2 --bfile " + shq(bfile) + " --thin-count 8 --seed 1 --keep " + shq(keep) +
          " --export bgen-1.3 bits=8 --out " + shq(exp)) == 0)
    seeds.push_back({"plink2", file_bytes(exp + ".bgen")});
  for (const seed& sd : seeds) {
    const std::string valid = tmp.path("valid." + sd.name);
    write_file(valid, sd.bytes);
    EXPECT_NO_THROW(bgen_genotypes{valid}) << sd.name;
    const std::string path = tmp.path("mutant." + sd.name);
    expect_mutants_read_or_named_error(sd.name, sd.bytes, path, path, mutate_bytes, [&](int i) {
      bgen_options o;
      o.threads = 1 + i % 2;
      const bgen_genotypes b(path, o);
      if (b.n_variants() > 0) (void)b.read_block(0, b.n_variants());
    });
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace pmx::test
