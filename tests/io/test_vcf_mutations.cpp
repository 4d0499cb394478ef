// Mutation ("fuzz") test of the VCF/BCF reader: seeded random mutants of small valid VCF, BGZF and
// BCF files (bits flipped, bytes inserted or deleted, lines duplicated, deleted or swapped, tabs
// removed, the file cut at a random point) are read; the reader must not crash or hang, must
// either succeed or throw a pmx::error naming the file, and must read the valid files.
// PMX_MUTANTS=<n> sets the number of mutants per seed file (default 1500).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/vcf_files.hpp"
#include "mutant_checks.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {
namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < s.size()) {
    const size_t nl = s.find('\n', at);
    const size_t end = nl == std::string::npos ? s.size() : nl + 1;
    out.push_back(s.substr(at, end - at));
    at = end;
  }
  return out;
}

std::string mutate(std::string s, std::mt19937_64& rng, bool text) {
  auto pick = [&](size_t k) { return k == 0 ? size_t{0} : static_cast<size_t>(rng() % k); };
  const int ops = 1 + static_cast<int>(pick(3));
  for (int k = 0; k < ops && !s.empty(); ++k) {
    const int op = static_cast<int>(pick(text ? byte_edit_ops + 3 : byte_edit_ops));
    switch (op) {
      case 5: {
        auto l = lines_of(s);
        const size_t a = pick(l.size()), b = pick(l.size());
        std::swap(l[a], l[b]);
        s.clear();
        for (auto& x : l) s += x;
        break;
      }
      case 6: {
        auto l = lines_of(s);
        const size_t a = pick(l.size());
        if (pick(2)) l.insert(l.begin() + static_cast<long>(a), l[a]);
        else l.erase(l.begin() + static_cast<long>(a));
        s.clear();
        for (auto& x : l) s += x;
        break;
      }
      case 7: {
        const size_t t = s.find('\t', pick(s.size()));
        if (t != std::string::npos) s.erase(t, 1);
        break;
      }
      default: apply_byte_edit(s, op, rng);  // ops 0-4: the byte edits of every reader's mutants
    }
  }
  return s;
}

TEST(VcfMutations, ReaderFailsOnlyWithPmxErrorsNamingTheFile) {
  if (!vcf_compiled_in()) GTEST_SKIP() << "this build has no htslib";
  temp_dir tmp;
  const std::string plain = tmp.path("seed.vcf");
  write_file(plain, users_vcf({"a_1", "b", "c_2", "d", "e"}, 12, 9, true));
  struct seed {
    std::string name, bytes;
    bool text;
  };
  std::vector<seed> seeds = {{"vcf", file_bytes(plain), true}};
  const std::string gz = tmp.path("seed.vcf.gz");
  if (write_bgzf(plain, gz, 400)) seeds.push_back({"bgzf", file_bytes(gz), false});
  const std::string exp = tmp.path("seed_bcf");
  if (have_program("plink2") &&
      run("plink2 --vcf " + shq(plain) + " --vcf-half-call m --export bcf --out " + shq(exp)) == 0)
    seeds.push_back({"bcf", file_bytes(exp + ".bcf"), false});
  for (const seed& sd : seeds) {
    const std::string valid = tmp.path("valid." + sd.name);
    write_file(valid, sd.bytes);
    EXPECT_NO_THROW(vcf_genotypes(valid, {.half_call = vcf_half_call::missing})) << sd.name;
    const std::string path = tmp.path("mutant." + sd.name);
    auto edit = [&](const std::string& b, std::mt19937_64& rng) { return mutate(b, rng, sd.text); };
    expect_mutants_read_or_named_error(sd.name, sd.bytes, path, path, edit, [&](int i) {
      const vcf_genotypes v(path, {.half_call = vcf_half_call(i % 4)});
      if (v.n_variants() > 0) (void)v.read_block(0, v.n_variants());
    });
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace pmx::test
