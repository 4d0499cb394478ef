// Mutation ("fuzz") test of the .pgen reader: seeded random mutants (bits flipped, bytes inserted,
// deleted or overwritten, the file cut at a random point) of small valid filesets plink2 wrote --
// a .pgen with every record type, one with phase tracks and 8-bit record types, a fixed-width
// (format=2) one, and a .pvar.zst -- are read whole; the reader must not crash or hang, must
// either succeed or throw a pmx::error naming the file, and must read the valid filesets.
// PMX_MUTANTS=<n> sets the number of mutants per seed file (default 1500).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "mutant_checks.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pgen_files.hpp"
#include "pgen_test_files.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {
namespace {

TEST(PgenMutations, ReaderFailsOnlyWithPmxErrorsNamingTheFile) {
  if (!have_program("plink2")) GTEST_SKIP() << "plink2 writes the seed filesets";
  temp_dir tmp;
  struct seed {
    std::string name, prefix, ext;  // the fileset and which of its files is mutated
  };
  std::vector<seed> seeds;
  const std::string base = tmp.path("base");
  write_record_type_fileset(base, 70, 48, 12);
  for (const char* modifiers : {"", "format=2", "vzs"}) {
    const std::string p = tmp.path(std::string("seed_") + (*modifiers ? modifiers : "default"));
    ASSERT_EQ(plink2_make_pgen("--bfile " + shq(base), modifiers, p), 0) << read_text(p + ".plink2.txt");
    seeds.push_back({std::filesystem::path(p).filename().string(), p, *modifiers == 'v' ? ".pvar.zst" : ".pgen"});
  }
  std::vector<std::string> ids;
  for (int i = 0; i < 40; ++i) ids.push_back("i" + std::to_string(i));
  write_file(tmp.path("phased.vcf"), users_vcf(ids, 40, 23, false));
  const std::string phased = tmp.path("seed_phased");
  ASSERT_EQ(plink2_make_pgen("--vcf " + shq(tmp.path("phased.vcf")) + " --max-alleles 2", "", phased), 0)
      << read_text(phased + ".plink2.txt");
  seeds.push_back({"seed_phased", phased, ".pgen"});

  for (const seed& sd : seeds) {
    EXPECT_NO_THROW(pgen_genotypes{sd.prefix}) << sd.name;
    const std::string bytes = file_bytes(sd.prefix + sd.ext);
    // The mutant is a copy of the fileset with one file replaced.
    const std::string mutant = tmp.path("mutant_" + sd.name);
    for (const char* ext : {".pgen", ".psam", ".pvar", ".pvar.zst"})
      if (std::filesystem::exists(sd.prefix + ext))
        std::filesystem::copy_file(sd.prefix + ext, mutant + ext, std::filesystem::copy_options::overwrite_existing);
    expect_mutants_read_or_named_error(sd.name, bytes, mutant + sd.ext, mutant, mutate_bytes, [&](int i) {
      pgen_options o;
      o.threads = 1 + i % 2;
      const pgen_genotypes p(mutant, o);
      if (p.n_variants() > 0) (void)p.read_block(0, p.n_variants());
    });
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace pmx::test
