// Per-trait parameters of the pedigree simulator given as text, as `simulate-pedigree --h2` and
// `--vg` take them: comma-separated numbers, one per trait ("0.3,0.4,0.2"); the count of
// heritabilities sets the number of traits, and a single genetic variance applies to every trait.
#pragma once
#include <string>
#include <vector>

#include "simulate/pedigree_sim.hpp"

namespace pmx::sim {

/// The numbers of a comma-separated list. Throws input_error
/// "simulate-pedigree: <what>: '<item>' is not a number" for an item that is not one whole number.
std::vector<double> parse_trait_list(const std::string& text, const std::string& what);

/// Sets p.h2 and p.genetic_variance from the lists `h2` (--h2) and `vg` (--vg); one genetic
/// variance with several heritabilities is repeated for every trait. Ranges are checked by
/// validate(p) (and simulate_pedigree).
void set_trait_lists(pedigree_params& p, const std::string& h2, const std::string& vg);

}  // namespace pmx::sim
