// The ../shared/data filesets that the format readers' tests export with plink2 and read back, each
// with the chromosome set its species needs (for plink2 and for our chromosome names).
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace pmx::test {

struct data_set {
  const char* prefix;     // under ../shared/data
  const char* chr_flags;  // plink2's chromosome-set flag, "" for the human set
  int autosomes;
};

inline constexpr data_set shared_data_sets[] = {
    {"bglr_mice/mice", "--chr-set 19", 19},
    {"bglr_wheat/wheat_dart", "", 22},
    {"gapit_maize282/mdp_maize282", "", 22},
    {"hapmap3_1kg_flashpca/1kg.ref.phase1_release_v3.20101123_thinned_autosomal_overlap", "", 22},
    {"hapmap3_1kg_flashpca/HM3_thinned_autosomal_overlap", "", 22},
    {"rice44k/UNL", "", 22},
    {"synbreed_cattle/cattle", "--cow", 29},
};

/// Calls visit(d, bfile, name) for each data set present under ../shared/data (bfile: its prefix
/// there, name: the prefix's file name), stopping after a fatal failure; returns how many were
/// present (a test skips, saying so, when none is).
template <class Visit>
int for_each_shared_data_set(Visit&& visit) {
  int seen = 0;
  for (const data_set& d : shared_data_sets) {
    const std::string bfile = shared_data(d.prefix);
    if (bfile.empty()) continue;
    ++seen;
    visit(d, bfile, std::filesystem::path(d.prefix).filename().string());
    if (::testing::Test::HasFatalFailure()) break;
  }
  return seen;
}

}  // namespace pmx::test
