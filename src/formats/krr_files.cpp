#include "panoramix/krr_files.hpp"

#include "core/number_text.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 17, "NA"); }

void write_columns(output_file& f, const krr_analysis& r, const std::vector<std::string>& fid,
                   const std::vector<std::string>& iid, const double* values) {
  f.write("FID\tIID");
  for (const auto& t : r.traits) f.write("\t" + t);
  f.write("\n");
  const auto n = static_cast<int64_t>(fid.size());
  for (int64_t i = 0; i < n; ++i) {
    f.write(fid[i] + "\t" + iid[i]);
    for (size_t c = 0; c < r.traits.size(); ++c) f.write("\t" + num(values[static_cast<int64_t>(c) * n + i]));
    f.write("\n");
  }
}

}  // namespace

std::string write_krr(output_group& out, const std::string& prefix, const krr_analysis& r) {
  const auto& s = r.solution;
  PMX_EXPECTS(static_cast<int64_t>(r.train_fid.size()) == s.n && static_cast<int64_t>(r.traits.size()) == s.traits,
              "KRR outputs: samples, traits and weights disagree on their sizes");
  std::string names = prefix + ".weights";
  write_columns(out.add(prefix + ".weights"), r, r.train_fid, r.train_iid, s.W.data());
  if (!r.test_fid.empty()) {
    write_columns(out.add(prefix + ".pred"), r, r.test_fid, r.test_iid, r.predictions.data());
    names += ", " + prefix + ".pred";
    bool any = false;
    for (const auto& a : r.accuracy) any = any || a.n > 0;
    if (any) {
      auto& f = out.add(prefix + ".eval");
      f.write("trait\tn\tmspe\tpearson_r\n");
      for (size_t c = 0; c < r.accuracy.size(); ++c)
        f.printf("%s\t%lld\t%s\t%s\n", r.traits[c].c_str(), static_cast<long long>(r.accuracy[c].n),
                 num(r.accuracy[c].mspe).c_str(), num(r.accuracy[c].pearson).c_str());
      names += ", " + prefix + ".eval";
    }
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
  if (s.used != solve_precision::fp64 && s.map.tiles > 0) {
    auto& f = out.add(prefix + ".precision");
    f.printf("# %lld x %lld tiles of %lld rows (n = %lld); row i: precisions of tiles (i, 0..i)\n",
             static_cast<long long>(s.map.tiles), static_cast<long long>(s.map.tiles),
             static_cast<long long>(s.map.tile), static_cast<long long>(s.map.n));
    for (int64_t i = 0; i < s.map.tiles; ++i) {
      for (int64_t j = 0; j <= i; ++j) f.printf(j ? " %s" : "%s", precision_name(s.map.at(i, j)));
      f.write("\n");
    }
    names += ", " + prefix + ".precision";
  }
  return names;
}

}  // namespace pmx
