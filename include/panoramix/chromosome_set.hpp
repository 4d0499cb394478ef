// Chromosome names of a species (PLINK --chr-set / --cow, --dog, ...): which are autosomes, sex
// chromosomes or mitochondrial, and the names PLINK prints.
#pragma once
#include <string>

namespace pmx {

/// Species chromosome set (PLINK --chr-set): autosomes 1..n_autosomes, then X, Y, XY, MT.
struct chromosome_set {
  int n_autosomes = 22;
  static chromosome_set human() { return {22}; }
  /// Returns the set for a PLINK species flag (cow, dog, horse, mouse, rice, sheep) or throws.
  static chromosome_set species(const std::string& name);
  /// Kind of a .bim chromosome name under this set.
  enum class kind { autosome, unplaced, x, y, xy, mt, other };
  kind classify(const std::string& chrom) const;
  /// Variants PLINK's --make-rel uses: everything but X, Y and MT (haploid or mitochondrial).
  bool diploid(const std::string& chrom) const;
  /// The name PLINK 2 prints: "chr" prefix dropped, numeric codes past the autosomes as X, Y, XY,
  /// MT; other names unchanged.
  std::string canonical(const std::string& chrom) const;
};

}  // namespace pmx
