#include "capi/frequencies.hpp"

#include "panoramix/allele_frequencies.hpp"

namespace pmx::capi {

std::vector<double> plink_frequencies(const executor& exec, const variant_major_view& g,
                                      const frequency_inputs& in, bool nonfounders) {
  const frequency_counter counter(in.kinds, in.founder, in.male, nonfounders);
  allele_frequencies out;
  out.resize(g.n_variants);
  counter.add_block(exec, 0, g, out);
  return std::move(out.a1);
}

}  // namespace pmx::capi
