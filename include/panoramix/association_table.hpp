// Association results read back for plotting, from the tables panoramix and other tools write:
// assoc's and plink2 --glm's .glm.linear and .glm.logistic.hybrid (plink2's .zst too), assoc's
// .lmm, PLINK 1.9 (.assoc, .qassoc, .assoc.linear), GEMMA (.assoc.txt) and any
// whitespace-separated table whose header names a chromosome (#CHROM, CHROM, CHR, chr), a
// position (POS, BP, ps) and a P value column (P, p_wald, p_lrt, p_score, or one named by the
// caller). Names are matched without regard to case.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pmx {

struct association_table_options {
  std::string p_column;  ///< the P value column's name; empty: the first of P, p_wald, p_lrt, p_score
};

/// One P value per variant, in file order. Rows of a TEST column other than ADD (plink's covariate
/// rows, written without --hide-covar) are skipped, as are P values of NA/nan (counted).
struct association_table {
  std::string p_column;                  ///< the column P was read from, as the header spells it
  std::vector<std::string> chromosomes;  ///< names in order of first appearance, "chr" prefix dropped
  std::vector<int32_t> chrom;            ///< per variant: index into `chromosomes`
  std::vector<int64_t> pos;              ///< base-pair position
  std::vector<double> p;                 ///< in [0, 1]
  int64_t rows = 0;         ///< data lines read
  int64_t missing_p = 0;    ///< rows (of the counted test) whose P is NA or nan
  int64_t other_tests = 0;  ///< rows whose TEST is not ADD
};

/// Reads `path`; throws input_error "<path>:<line>: ..." for a malformed line (too few fields, a
/// position that is not an integer, a P value that is not a number in [0, 1]) and "<path>: ..."
/// when the header lacks a column or no P value is left.
association_table read_association_table(const std::string& path, const association_table_options& o = {});

}  // namespace pmx
