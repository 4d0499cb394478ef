#include "simulate/pedigree_sim_traits.hpp"

#include <sstream>
#include <stdexcept>

#include "panoramix/error.hpp"

namespace pmx::sim {

std::vector<double> parse_trait_list(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      out.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw input_error("simulate-pedigree: " + what + ": '" + item + "' is not a number");
    }
  }
  return out;
}

void set_trait_lists(pedigree_params& p, const std::string& h2, const std::string& vg) {
  p.h2 = parse_trait_list(h2, "--h2");
  p.genetic_variance = parse_trait_list(vg, "--vg");
  if (p.genetic_variance.size() == 1 && p.h2.size() > 1) p.genetic_variance.assign(p.h2.size(), p.genetic_variance[0]);
}

}  // namespace pmx::sim
