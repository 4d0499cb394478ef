// The pedigree analysis as `panoramix pedigree` runs it: a pedigree file read, checked and
// renumbered parents-first (read_pedigree_file), the inbreeding coefficients and, when asked for,
// the sparse A⁻¹ (pedigree.hpp). Writing the results is formats' job (pedigree_files.hpp).
#pragma once
#include <string>
#include <vector>

#include "panoramix/analysis_context.hpp"
#include "panoramix/pedigree.hpp"

namespace pmx {

struct pedigree_analysis_options {
  std::string ped;  ///< pedigree file (animal sire dam)
  pedigree_columns columns = pedigree_columns::automatic;
  bool a_inverse = false;  ///< also A⁻¹
  int threads = 0;         ///< inbreeding's threads (0: all)
};

struct pedigree_analysis {
  pedigree ped;           ///< renumbered parents-first
  pedigree_notes notes;   ///< what reading it changed (merged duplicates, added founders, ...)
  std::vector<double> F;  ///< inbreeding coefficients, renumbered order
  bool has_a_inverse = false;
  sparse_symmetric a_inverse;  ///< lower triangle (when asked for)
};

/// Runs the analysis, logging each step (stages "read and check pedigree", "inbreeding",
/// "A-inverse"; the notes, counts, the depth in generations, inbreeding summary). A pedigree
/// deeper than 1,000 generations gets a warning before the inbreeding stage starts (its cost
/// grows with the depth, see inbreeding()), and that stage reports progress to the log. Throws
/// what read_pedigree_file throws.
pedigree_analysis run_pedigree_analysis(const pedigree_analysis_options& opt, analysis_log* log = nullptr);

}  // namespace pmx
