// The ../shared/data filesets that the format readers' tests export with plink2 and read back, each
// with the chromosome set its species needs (for plink2 and for our chromosome names).
#pragma once

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

}  // namespace pmx::test
