// Reader of PLINK allele-frequency files (.frq, .afreq), matched to a fileset's variants.
#include "panoramix/frequency_file.hpp"

#include <fstream>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "core/checked_number.hpp"
#include "panoramix/error.hpp"

namespace pmx {

std::vector<double> read_frequency_file(const std::string& path, const genotype_source& data) {
  std::ifstream in(path);
  if (!in) throw io_error("frequency file '" + path + "' cannot be opened");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> h;
  {
    std::istringstream ss(line);
    for (std::string x; ss >> x;) h.push_back(x);
  }
  auto col = [&](std::initializer_list<const char*> names) -> int {
    for (size_t i = 0; i < h.size(); ++i)
      for (const char* n : names)
        if (h[i] == n) return static_cast<int>(i);
    return -1;
  };
  const int id = col({"SNP", "ID"}), counted = col({"A1", "ALT"}), other = col({"A2", "REF"}),
            freq = col({"MAF", "ALT_FREQS"});
  if (id < 0 || counted < 0 || other < 0 || freq < 0)
    throw input_error(path + ":1: expected a PLINK .frq (SNP A1 A2 MAF) or .afreq (ID REF ALT ALT_FREQS) header");
  std::unordered_map<std::string, std::tuple<std::string, std::string, double, int64_t>> by_id;
  int64_t ln = 1;
  while (std::getline(in, line)) {
    ++ln;
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string x; ss >> x;) f.push_back(x);
    if (f.empty()) continue;
    if (static_cast<int>(f.size()) < static_cast<int>(h.size()))
      throw input_error(path + ":" + std::to_string(ln) + ": short line");
    double v = 0;
    const std::string where = path + ":" + std::to_string(ln) + ": frequency '" + f[freq] + "'";
    const std::string column = " (column " + std::to_string(freq + 1) + ", " + h[freq] + ")";
    switch (detail::parse_number_text(f[freq], v)) {  // "0.5abc" is not a number either
      case detail::number_text_status::not_a_number: throw input_error(where + " is not a number" + column);
      case detail::number_text_status::not_finite: throw input_error(where + " is not a finite number" + column);
      case detail::number_text_status::ok: break;
    }
    if (!(v >= 0 && v <= 1))
      throw input_error(path + ":" + std::to_string(ln) + ": frequency out of [0, 1]: '" + f[freq] + "'" + column);
    by_id[f[id]] = {f[counted], f[other], v, ln};
  }
  std::vector<double> p(data.n_variants());
  for (int64_t j = 0; j < data.n_variants(); ++j) {
    const auto& var = data.variant(j);
    auto it = by_id.find(var.id);
    if (it == by_id.end()) throw input_error(path + ": variant '" + var.id + "' of the .bim is not listed");
    const auto& [a, b, v, l] = it->second;
    if (a == var.a1) p[j] = v;
    else if (a == var.a2) p[j] = 1 - v;
    else
      throw input_error(path + ":" + std::to_string(l) + ": alleles of '" + var.id + "' (" + a + "/" + b +
                        ") do not match the .bim (" + var.a1 + "/" + var.a2 + ")");
  }
  return p;
}


}  // namespace pmx
