#include "panoramix/rr_files.hpp"

#include "core/number_text.hpp"
#include "formats/ridge_outputs.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 17, "NA"); }

}  // namespace

std::string write_rr(output_group& out, const std::string& prefix, const rr_analysis& r) {
  const auto& s = r.solution;
  const int64_t m = r.n_variants, c = r.n_covariates, t = static_cast<int64_t>(r.traits.size());
  PMX_EXPECTS(s.n == m + c && s.traits == t && static_cast<int64_t>(r.variant_ids.size()) == m &&
                  static_cast<int64_t>(r.covariate_names.size()) == c,
              "RR outputs: variants, covariates, traits and coefficients disagree on their sizes");
  std::string names = prefix + ".beta";
  {
    auto& f = out.add(prefix + ".beta");
    f.write("ID\tA1");
    for (const auto& name : r.traits) f.write("\t" + name);
    f.write("\n");
    for (int64_t k = 0; k < m + c; ++k) {
      f.write(k < m ? r.variant_ids[k] + "\t" + r.variant_a1[k] : r.covariate_names[k - m] + "\t.");
      for (int64_t j = 0; j < t; ++j) f.write("\t" + num(s.W[j * s.n + k]));
      f.write("\n");
    }
  }
  if (!r.test_fid.empty()) {
    detail::write_sample_columns(out.add(prefix + ".pred"), r.traits, r.test_fid, r.test_iid, r.predictions.data());
    names += ", " + prefix + ".pred";
    detail::write_prediction_eval(out, prefix, r.traits, r.accuracy, names);
  }
  detail::write_precision_map(out, prefix, s, names);
  return names;
}

}  // namespace pmx
