#include "formats/ridge_outputs.hpp"

#include "core/number_text.hpp"

namespace pmx::detail {
namespace {

std::string num(double v) { return number_text(v, 17, "NA"); }

}  // namespace

void write_sample_columns(output_file& f, const std::vector<std::string>& traits, const std::vector<std::string>& fid,
                          const std::vector<std::string>& iid, const double* values) {
  f.write("FID\tIID");
  for (const auto& t : traits) f.write("\t" + t);
  f.write("\n");
  const auto n = static_cast<int64_t>(fid.size());
  for (int64_t i = 0; i < n; ++i) {
    f.write(fid[i] + "\t" + iid[i]);
    for (size_t c = 0; c < traits.size(); ++c) f.write("\t" + num(values[static_cast<int64_t>(c) * n + i]));
    f.write("\n");
  }
}

void write_prediction_eval(output_group& out, const std::string& prefix, const std::vector<std::string>& traits,
                           const std::vector<prediction_accuracy>& accuracy, std::string& names) {
  bool any = false;
  for (const auto& a : accuracy) any = any || a.n > 0;
  if (!any) return;
  auto& f = out.add(prefix + ".eval");
  f.write("trait\tn\tmspe\tpearson_r\n");
  for (size_t c = 0; c < accuracy.size(); ++c)
    f.printf("%s\t%lld\t%s\t%s\n", traits[c].c_str(), static_cast<long long>(accuracy[c].n),
             num(accuracy[c].mspe).c_str(), num(accuracy[c].pearson).c_str());
  names += ", " + prefix + ".eval";
}

void write_precision_map(output_group& out, const std::string& prefix, const kernel_ridge_solution& s,
                         std::string& names) {
  if (s.used == solve_precision::fp64 || s.map.tiles == 0) return;
  auto& f = out.add(prefix + ".precision");
  f.printf("# %lld x %lld tiles of %lld rows (n = %lld); row i: precisions of tiles (i, 0..i)\n",
           static_cast<long long>(s.map.tiles), static_cast<long long>(s.map.tiles), static_cast<long long>(s.map.tile),
           static_cast<long long>(s.map.n));
  for (int64_t i = 0; i < s.map.tiles; ++i) {
    for (int64_t j = 0; j <= i; ++j) f.printf(j ? " %s" : "%s", precision_name(s.map.at(i, j)));
    f.write("\n");
  }
  names += ", " + prefix + ".precision";
}

}  // namespace pmx::detail
