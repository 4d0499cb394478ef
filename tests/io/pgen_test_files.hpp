// Helpers of the .pgen tests: plink2 as the writer of .pgen filesets and as the oracle of what they
// hold (`plink2 --pfile PREFIX --make-bed`), a byte-for-byte fileset comparison, and a hand-made
// .bed fileset whose variants make `plink2 --make-pgen` choose every record type: rare variants
// (difflists from hom REF), mostly hom ALT or missing ones, two-category ones (1-bit), and copies
// of the variant before with a few calls changed, plain or with REF and ALT swapped
// (LD-compressed, LD-inverted).
#pragma once
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "panoramix/plink_write.hpp"
#include "test_support.hpp"
#include "vcf_test_files.hpp"

namespace pmx::test {

/// `plink2 INPUT_FLAGS --make-pgen MODIFIERS --out PREFIX`; returns its status.
inline int plink2_make_pgen(const std::string& input_flags, const std::string& modifiers, const std::string& prefix) {
  return run("plink2 " + input_flags + " --make-pgen " + modifiers + " --threads 2 --out " + shq(prefix),
             prefix + ".plink2.txt");
}

/// `plink2 --pfile PREFIX [vzs] FLAGS --make-bed --out OUT`; returns its status.
inline int plink2_pfile_make_bed(const std::string& prefix, const std::string& flags, const std::string& out,
                                 bool vzs = false) {
  return run("plink2 --pfile " + shq(prefix) + (vzs ? " vzs " : " ") + flags + " --make-bed --threads 2 --out " +
                 shq(out),
             out + ".plink2.txt");
}

/// The .bed, .bim and .fam at `ours` must be byte for byte those at `ref` (the first differing
/// line or byte is reported).
inline void expect_same_bytes(const std::string& ours, const std::string& ref) {
  expect_same_fileset(read_fileset(ours), read_fileset(ref));
  for (const char* ext : {".bed", ".bim", ".fam"})
    EXPECT_EQ(file_bytes(ours + ext), file_bytes(ref + ext)) << ext << " bytes differ";
}

/// Writes PREFIX.bed/.bim/.fam: n samples, m variants cycling through the kinds above (seeded).
inline void write_record_type_fileset(const std::string& prefix, int64_t n, int64_t m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int64_t k) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(k)); };
  packed_genotypes g(n, m);
  std::vector<uint8_t> prev(static_cast<size_t>(n), code_hom_a2);
  for (int64_t j = 0; j < m; ++j) {
    std::vector<uint8_t> calls(static_cast<size_t>(n));
    const int64_t kind = j == 0 ? 0 : uniform(7);
    auto scatter = [&](uint8_t common, int64_t others) {
      std::fill(calls.begin(), calls.end(), common);
      const uint8_t codes[4] = {code_hom_a1, code_het, code_hom_a2, code_missing};
      for (int64_t k = 0; k < others; ++k) calls[size_t(uniform(n))] = codes[uniform(4)];
    };
    const int64_t few = 1 + uniform(std::max<int64_t>(1, n / 40));
    switch (kind) {
      case 0:  // common: any code
        for (auto& c : calls) {
          const int64_t r = uniform(100);
          c = r < 2 ? code_missing : r < 35 ? code_hom_a2 : r < 75 ? code_het : code_hom_a1;
        }
        break;
      case 1: scatter(code_hom_a2, few); break;  // rare ALT: hom REF almost everywhere
      case 2: scatter(code_hom_a1, few); break;  // hom ALT almost everywhere
      case 3: scatter(code_missing, few); break;  // missing almost everywhere
      case 4:  // two categories, a few of the others
        for (auto& c : calls) c = uniform(2) ? code_het : code_hom_a2;
        for (int64_t k = 0; k < few; ++k) calls[size_t(uniform(n))] = uniform(2) ? code_missing : code_hom_a1;
        break;
      default:  // the variant before with a few changes; kind 6 with the homozygotes swapped
        calls = prev;
        for (int64_t k = 0; k < few; ++k) calls[size_t(uniform(n))] = static_cast<uint8_t>(uniform(4));
        if (kind == 6)
          for (auto& c : calls) c = c == code_hom_a1 ? code_hom_a2 : c == code_hom_a2 ? code_hom_a1 : c;
    }
    for (int64_t i = 0; i < n; ++i) g.set(i, j, calls[size_t(i)]);
    prev = calls;
  }
  std::vector<sample_record> samples;
  for (int64_t i = 0; i < n; ++i)
    samples.push_back({"f" + std::to_string(i % 7), "s" + std::to_string(i), "0", "0", int(i % 3), "-9"});
  std::vector<variant_record> variants;
  for (int64_t j = 0; j < m; ++j)
    variants.push_back({j < m / 2 ? "1" : "2", "v" + std::to_string(j), 0, 1000 + 7 * j, "G", "A"});
  write_plink_fileset(prefix, samples, variants, g.view(), plink_text_style::plink2);
}

}  // namespace pmx::test
