// The exact tests of Hardy-Weinberg equilibrium for one biallelic variant, as PLINK 2's --hardy and
// --hwe compute them: on autosomes the test of Wigginton, Cutler and Abecasis (2005); on chromosome
// X the test of Graffelman and Weir (2016) on females' genotypes and males' alleles; both with the
// mid-p variant of Graffelman and Moreno (2013).
#pragma once
#include <cstdint>

namespace pmx {

/// P-value of the genotype counts (two homozygous classes and the heterozygotes): the probability,
/// given the allele counts, of a heterozygote count at most as likely as the observed one. With
/// `midp`, half the probability of the outcomes exactly as likely as the observed one is left out
/// (PLINK's `midp`). No genotypes: 1 (0.5 with midp). Outcomes within a relative 1e-12 of the
/// observed probability count as equally likely (rounding of the recurrence).
double hwe_exact_p(int64_t hom1, int64_t het, int64_t hom2, bool midp);

/// Outcomes within this relative distance of the observed probability count as equally likely.
inline constexpr double hwe_tie_tolerance = 1e-12;

/// P-value of the chromosome X counts: females' genotype classes and males' hemizygous allele
/// counts (male heterozygous calls are not counted). Every table with the same allele totals, the
/// same number of females and of males is weighed by its probability under HWE and equal allele
/// frequencies in both sexes, P ∝ 2^het / (female_hom1! het! female_hom2! male1! male2!); the
/// p-value is the mass of the tables at most as likely as the observed one (`midp`: less half the
/// ties). No males: the autosomal test of the females (as plink2).
double hwe_x_exact_p(int64_t female_hom1, int64_t female_het, int64_t female_hom2, int64_t male1, int64_t male2,
                     bool midp);

}  // namespace pmx
