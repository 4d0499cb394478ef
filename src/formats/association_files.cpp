#include "panoramix/association_files.hpp"

#include <cmath>
#include <cstdio>

namespace pmx {
namespace {

// plink2's 6 significant digits (%g), NA for NaN.
std::string g6(double v) {
  if (std::isnan(v)) return "NA";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

std::string write_association(output_group& out, const std::string& prefix, const association_analysis& r,
                              bool hide_covar) {
  std::string names;
  for (size_t c = 0; c < r.traits.size(); ++c) {
    const linear_association& a = r.results[c];
    const std::string path = prefix + "." + r.traits[c] + ".glm.linear";
    auto& f = out.add(path);
    names += (names.empty() ? "" : ", ") + path;
    f.write("#CHROM\tPOS\tID\tREF\tALT\tA1\tTEST\tOBS_CT\tBETA\tSE\tT_STAT\tP\tERRCODE\n");
    const size_t T = a.tests.size(), shown = hide_covar ? 1 : T;
    std::string line;
    for (size_t j = 0; j < r.variants.size(); ++j) {
      const variant_record& v = r.variants[j];
      const std::string head = v.chrom + "\t" + std::to_string(v.pos) + "\t" + v.id + "\t" + v.a2 + "\t" + v.a1 + "\t" +
                               (a.a1_is_ref[j] ? v.a2 : v.a1) + "\t";
      for (size_t k = 0; k < shown; ++k) {
        const size_t o = j * T + k;
        line = head + a.tests[k] + "\t" + std::to_string(a.obs_ct[j]) + "\t" + g6(a.beta[o]) + "\t" + g6(a.se[o]) +
               "\t" + g6(a.t[o]) + "\t" + g6(a.p[o]) + "\t" + glm_error_name(a.error[j]) + "\n";
        f.write(line);
      }
    }
  }
  return names;
}

}  // namespace pmx
