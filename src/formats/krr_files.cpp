#include "panoramix/krr_files.hpp"

#include "core/number_text.hpp"
#include "formats/ridge_outputs.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 17, "NA"); }

}  // namespace

std::string write_krr(output_group& out, const std::string& prefix, const krr_analysis& r) {
  const auto& s = r.solution;
  PMX_EXPECTS(static_cast<int64_t>(r.train_fid.size()) == s.n && static_cast<int64_t>(r.traits.size()) == s.traits,
              "KRR outputs: samples, traits and weights disagree on their sizes");
  std::string names = prefix + ".weights";
  detail::write_sample_columns(out.add(prefix + ".weights"), r.traits, r.train_fid, r.train_iid, s.W.data());
  if (!r.test_fid.empty()) {
    detail::write_sample_columns(out.add(prefix + ".pred"), r.traits, r.test_fid, r.test_iid, r.predictions.data());
    names += ", " + prefix + ".pred";
    detail::write_prediction_eval(out, prefix, r.traits, r.accuracy, names);
  }
  if (r.cv) {
    auto& f = out.add(prefix + ".cv");
    f.write("trait\tgamma\talpha\tn\tmspe\tpearson_r\tchosen\n");
    for (size_t c = 0; c < r.traits.size(); ++c)
      for (size_t p = 0; p < r.cv->grid.size(); ++p) {
        const krr_cv_point& g = r.cv->grid[p];
        f.printf("%s\t%s\t%s\t%lld\t%s\t%s\t%d\n", r.traits[c].c_str(), num(g.gamma).c_str(), num(g.alpha).c_str(),
                 static_cast<long long>(g.accuracy[c].n), num(g.accuracy[c].mspe).c_str(),
                 num(g.accuracy[c].pearson).c_str(), static_cast<int>(r.cv->best[c] == static_cast<int64_t>(p)));
      }
    names += ", " + prefix + ".cv";
  }
  detail::write_precision_map(out, prefix, s, names);
  return names;
}

}  // namespace pmx
