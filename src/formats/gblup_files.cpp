#include "panoramix/gblup_files.hpp"

#include <cmath>
#include <cstdio>

#include "core/number_text.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pca_files.hpp"

namespace pmx {
namespace {

// %.17g, or NA for a NaN (an SE that does not exist).
std::string num(double v) { return detail::number_text(v, 17, "NA"); }

}  // namespace

void write_gblup(output_group& out, const std::string& prefix, const gblup_analysis& r) {
  const auto n = static_cast<int64_t>(r.fid.size());
  PMX_EXPECTS(r.iid.size() == r.fid.size() && static_cast<int64_t>(r.fit.gebv.size()) == n &&
                  (!r.pev || static_cast<int64_t>(r.fit.pev.size()) == n),
              "gBLUP outputs: IDs, GEBVs and PEVs disagree on their sizes");
  auto& fg = out.add(prefix + ".gebv");
  fg.write("FID\tIID\tGEBV\tPEV\n");
  for (int64_t i = 0; i < n; ++i)
    fg.printf("%s\t%s\t%s\t%s\n", r.fid[i].c_str(), r.iid[i].c_str(), num(r.fit.gebv[i]).c_str(),
              r.pev ? num(r.fit.pev[i]).c_str() : "NA");
  auto& ff = out.add(prefix + ".fixef");
  for (size_t j = 0; j < r.fit.beta.size(); ++j)
    ff.printf("%s\t%s\t%s\n", r.fit.fixed_names[j].c_str(), num(r.fit.beta[j]).c_str(),
              num(r.fit.se_beta[j]).c_str());
  const auto& vc = r.fit.vc;
  auto& fv = out.add(prefix + ".vc");
  fv.printf("sigma2_g\t%s\t%s\n", num(vc.sigma2_g).c_str(), num(vc.se_sigma2_g).c_str());
  fv.printf("sigma2_e\t%s\t%s\n", num(vc.sigma2_e).c_str(), num(vc.se_sigma2_e).c_str());
  fv.printf("h2\t%s\t%s\n", num(vc.h2).c_str(), num(vc.se_h2).c_str());
  fv.printf("logL\t%s\tNA\n", num(vc.logl).c_str());
  if (r.pcs.pcs > 0) write_pca(out, prefix, r.fid, r.iid, r.pcs.values, r.pcs.vectors);
}

}  // namespace pmx
