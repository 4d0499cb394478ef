// Centring and scaling of Z from allele frequencies (genotype_centring.hpp).
#include "panoramix/genotype_centring.hpp"

#include <cmath>

#include "panoramix/error.hpp"

namespace pmx {

genotype_centring make_genotype_centring(std::span<const double> p, genotype_scaling scaling,
                                         std::span<const double> user_scale) {
  PMX_EXPECTS(scaling != genotype_scaling::user || user_scale.size() == p.size(),
              "user scaling needs one scale per variant");
  const size_t k = p.size();
  genotype_centring c;
  c.p.assign(k, 0.0);
  bool any_undefined = false;
  for (size_t j = 0; j < k; ++j) {
    any_undefined = any_undefined || std::isnan(p[j]);
    c.p[j] = std::isnan(p[j]) ? 0.0 : p[j];
  }
  if (scaling == genotype_scaling::none && !any_undefined) return c;  // s = 1: the op's unscaled path
  c.scale.resize(k);
  for (size_t j = 0; j < k; ++j) {
    double s = 1.0;
    if (scaling == genotype_scaling::user) {
      s = user_scale[j];
    } else if (scaling == genotype_scaling::standardized) {
      const double v = 2.0 * p[j] * (1.0 - p[j]);
      s = v > 0 ? 1.0 / std::sqrt(v) : 0.0;  // monomorphic: the column is zero
    }
    // An undefined frequency leaves the variant out: Z_ij = 0·(x_ij − 0) = 0 exactly.
    c.scale[j] = std::isnan(p[j]) ? 0.0 : s;
  }
  return c;
}

}  // namespace pmx
