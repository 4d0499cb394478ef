// Outputs of the pedigree analysis (pedigree_analysis.hpp), as `panoramix pedigree` writes them,
// animals by their renumbered (parents-first, 1-based) index, numbers in the shortest form that
// reads back exactly (std::to_chars):
//   PREFIX.ids         #index id sire dam (header; 0 = unknown parent), tab-separated
//   PREFIX.inbreeding  #index id F (header), tab-separated
//   PREFIX.ainv        A⁻¹ as triplets 'row col value', lower triangle (row >= col), no header
// Layer: formats (src/formats), above stats: writes statistics' results; cli and capi call it.
#pragma once
#include <string>
#include <vector>

#include "panoramix/output_file.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/pedigree_analysis.hpp"

namespace pmx {

void write_pedigree_ids(output_group& out, const std::string& prefix, const pedigree& ped);
void write_inbreeding(output_group& out, const std::string& prefix, const pedigree& ped,
                      const std::vector<double>& F);
void write_a_inverse(output_group& out, const std::string& prefix, const sparse_symmetric& a_inverse);

/// PREFIX.ids, PREFIX.inbreeding and (when computed) PREFIX.ainv.
void write_pedigree_analysis(output_group& out, const std::string& prefix, const pedigree_analysis& r);

}  // namespace pmx
