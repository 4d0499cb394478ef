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

// The mixed-model results: 10 significant digits (GEMMA prints 7).
std::string g10(double v) {
  if (std::isnan(v)) return "NA";
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

std::string write_lmm(output_group& out, const std::string& prefix, const association_analysis& r) {
  std::string names;
  for (const trait_association& t : r.traits) {
    const std::string path = prefix + "." + t.name + ".lmm";
    auto& f = out.add(path);
    names += (names.empty() ? "" : ", ") + path;
    f.write("#CHROM\tPOS\tID\tREF\tALT\tA1\tA1_FREQ\tMISS_CT\tOBS_CT\tBETA\tSE\tLOGL_H1\tLAMBDA\tP\tERRCODE\n");
    const lmm_association& a = t.lmm;
    std::string line;
    for (size_t j = 0; j < r.variants.size(); ++j) {
      const variant_record& v = r.variants[j];
      line = v.chrom + "\t" + std::to_string(v.pos) + "\t" + v.id + "\t" + v.a2 + "\t" + v.a1 + "\t" + v.a1 + "\t" +
             g10(a.alt_freq[j]) + "\t" + std::to_string(a.miss_ct[j]) + "\t" + std::to_string(a.samples) + "\t" +
             g10(a.beta[j]) + "\t" + g10(a.se[j]) + "\t" + g10(a.logl[j]) + "\t" + g10(a.lambda[j]) + "\t" +
             g10(a.p[j]) + "\t" + lmm_error_name(a.error[j]) + "\n";
      f.write(line);
    }
  }
  return names;
}

}  // namespace

std::string write_association(output_group& out, const std::string& prefix, const association_analysis& r,
                              bool hide_covar) {
  if (r.lmm) return write_lmm(out, prefix, r);
  std::string names;
  for (const trait_association& t : r.traits) {
    const std::string path = prefix + "." + t.name + (t.binary ? ".glm.logistic.hybrid" : ".glm.linear");
    auto& f = out.add(path);
    names += (names.empty() ? "" : ", ") + path;
    f.write(t.binary ? "#CHROM\tPOS\tID\tREF\tALT\tA1\tFIRTH?\tTEST\tOBS_CT\tOR\tLOG(OR)_SE\tZ_STAT\tP\tERRCODE\n"
                     : "#CHROM\tPOS\tID\tREF\tALT\tA1\tTEST\tOBS_CT\tBETA\tSE\tT_STAT\tP\tERRCODE\n");
    std::string line;
    for (size_t j = 0; j < r.variants.size(); ++j) {
      const bool x = !r.on_x.empty() && r.on_x[j];  // chromosome X: its own regressions
      const size_t row = r.part_row.empty() ? j : static_cast<size_t>(r.part_row[j]);
      const linear_association& lin = x ? t.linear_x : t.linear;
      const logistic_association& lg = x ? t.logistic_x : t.logistic;
      const auto& tests = t.binary ? lg.tests : lin.tests;
      const size_t T = tests.size(), shown = hide_covar ? 1 : T;
      const variant_record& v = r.variants[j];
      const bool ref = t.binary ? lg.a1_is_ref[row] : lin.a1_is_ref[row];
      std::string head = v.chrom + "\t" + std::to_string(v.pos) + "\t" + v.id + "\t" + v.a2 + "\t" + v.a1 + "\t" +
                         (ref ? v.a2 : v.a1) + "\t";
      if (t.binary) head += std::string(lg.firth[row] ? "Y" : "N") + "\t";
      const int64_t obs = t.binary ? lg.obs_ct[row] : lin.obs_ct[row];
      const glm_error e = t.binary ? lg.error[row] : lin.error[row];
      for (size_t k = 0; k < shown; ++k) {
        const size_t o = row * T + k;
        const double a = t.binary ? std::exp(lg.log_or[o]) : lin.beta[o];
        const double b = t.binary ? lg.se[o] : lin.se[o];
        const double c = t.binary ? lg.z[o] : lin.t[o];
        const double p = t.binary ? lg.p[o] : lin.p[o];
        line = head + tests[k] + "\t" + std::to_string(obs) + "\t" + g6(a) + "\t" + g6(b) + "\t" + g6(c) + "\t" +
               g6(p) + "\t" + glm_error_name(e) + "\n";
        f.write(line);
      }
    }
  }
  return names;
}

}  // namespace pmx
