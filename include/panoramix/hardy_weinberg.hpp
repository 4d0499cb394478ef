// The exact test of Hardy-Weinberg equilibrium for one biallelic variant (Wigginton, Cutler and
// Abecasis 2005), with the mid-p variant of Graffelman and Moreno (2013), as PLINK's --hardy and
// --hwe compute it.
#pragma once
#include <cstdint>

namespace pmx {

/// P-value of the genotype counts (two homozygous classes and the heterozygotes): the probability,
/// given the allele counts, of a heterozygote count at most as likely as the observed one. With
/// `midp`, half the probability of the outcomes exactly as likely as the observed one is left out
/// (PLINK's `midp`). No genotypes: 1 (0.5 with midp). Outcomes within a relative 1e-12 of the
/// observed probability count as equally likely (rounding of the recurrence).
double hwe_exact_p(int64_t hom1, int64_t het, int64_t hom2, bool midp);

}  // namespace pmx
