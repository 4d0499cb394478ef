// What a genotype source knows of each sample and variant: the .fam and .bim columns (other
// formats fill the same fields).
#pragma once
#include <cstdint>
#include <string>

namespace pmx {

struct sample_record {
  std::string fid, iid, father, mother;
  int sex = 0;  ///< 1 male, 2 female, 0 unknown
  std::string phenotype;
  bool founder() const { return father == "0" && mother == "0"; }
};

struct variant_record {
  std::string chrom, id;
  double cm = 0;
  int64_t pos = 0;
  std::string a1, a2;  ///< a1 = column 5 (counted allele), a2 = column 6
};

}  // namespace pmx
