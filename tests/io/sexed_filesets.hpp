// Filesets with chromosome X and sexes, for the tests of the X-chromosome HWE test and of the
// filters against plink2: a simulated one (missing calls, monomorphic variants, X/Y/XY/MT, males,
// females, unknown sex, non-founders) and the real mice of ../shared/data with their recorded sexes,
// each also with a .fam variant of other sexes.
#pragma once
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace pmx::test {

/// Copies the whitespace-separated table `from` to `to`, each row's fields passed through
/// edit(row index, fields) and joined by `sep`.
inline void rewrite_table(const std::string& from, const std::string& to, char sep,
                          const std::function<void(size_t, std::vector<std::string>&)>& edit) {
  std::ifstream in(from);
  std::ostringstream out;
  size_t i = 0;
  for (std::string line; std::getline(in, line); ++i) {
    std::istringstream ss(line);
    std::vector<std::string> fields;
    for (std::string f; ss >> f;) fields.push_back(f);
    edit(i, fields);
    for (size_t k = 0; k < fields.size(); ++k) out << (k ? std::string(1, sep) : "") << fields[k];
    out << '\n';
  }
  std::ofstream(to) << out.str();
}

/// Writes PREFIX.fam from `bfile`'s with each sample's sex replaced by sex_of(index, IID, sex) and
/// makes PREFIX.bed/.bim links to `bfile`'s; returns PREFIX.
inline std::string with_sexes(const std::string& bfile, const std::string& prefix,
                              const std::function<int(size_t, const std::string& iid, int sex)>& sex_of) {
  rewrite_table(bfile + ".fam", prefix + ".fam", ' ', [&](size_t i, std::vector<std::string>& f) {
    f[4] = std::to_string(sex_of(i, f[1], std::stoi(f[4])));
  });
  for (const char* ext : {".bed", ".bim"}) {
    std::filesystem::remove(prefix + ext);
    std::filesystem::create_symlink(std::filesystem::absolute(bfile + ext), prefix + ext);
  }
  return prefix;
}

/// 400 simulated samples × 3000 variants (4% missing calls, 3% monomorphic): the last 600 variants
/// on X (400), Y, XY and MT; sexes 1, 2, 0 in turn; every 7th sample the child of the first two.
/// Made once under work(); returns its prefix.
inline std::string simulated_with_x() {
  const std::string sim = work().path("sim_x");
  if (std::filesystem::exists(sim + ".bed")) return sim;
  const std::string base = work().path("sim_x_base");
  if (panoramix("simulate --samples 400 --variants 3000 --missing 0.04 --monomorphic 0.03 --seed 21 --out " +
                    shq(base),
                base + ".txt") != 0)
    return "";
  std::filesystem::copy_file(base + ".bed", sim + ".bed");
  rewrite_table(base + ".bim", sim + ".bim", '\t', [](size_t j, std::vector<std::string>& f) {
    if (j >= 2400) f[0] = j < 2800 ? "X" : j < 2900 ? "Y" : j < 2950 ? "XY" : "MT";
  });
  std::string first_iid, second_iid;
  rewrite_table(base + ".fam", sim + ".fam", ' ', [&](size_t i, std::vector<std::string>& f) {
    if (i == 0) first_iid = f[1];
    if (i == 1) second_iid = f[1];
    if (i % 7 == 6) f[2] = first_iid, f[3] = second_iid;
    f[4] = i % 3 == 0 ? "1" : i % 3 == 1 ? "2" : "0";
  });
  return sim;
}

/// The mice of ../shared/data (1,814 samples, 272 variants on X) with the sexes of mice_pheno.csv's
/// GENDER column (F/M); "" when the data are absent. Made once under work().
inline std::string mice_with_recorded_sexes() {
  const std::string mice = shared_data("bglr_mice/mice"), pheno = data_file("bglr_mice/mice_pheno.csv");
  if (mice.empty() || pheno.empty()) return "";
  const std::string prefix = work().path("mice_sexed");
  if (std::filesystem::exists(prefix + ".fam")) return prefix;
  std::ifstream in(pheno);
  std::string line;
  std::getline(in, line);  // "SUBJECT.NAME",...,"GENDER",...
  size_t column = 0;
  {
    std::istringstream ss(line);
    for (std::string field; std::getline(ss, field, ','); ++column)
      if (field == "\"GENDER\"") break;
  }
  std::map<std::string, int> sex_of;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string field, id;
    for (size_t k = 0; std::getline(ss, field, ','); ++k) {
      if (k == 0) id = field.substr(1, field.size() - 2);
      if (k == column) sex_of[id] = field == "\"F\"" ? 2 : field == "\"M\"" ? 1 : 0;
    }
  }
  return with_sexes(mice, prefix, [&](size_t, const std::string& iid, int) {
    const auto it = sex_of.find(iid);
    return it == sex_of.end() ? 0 : it->second;
  });
}

}  // namespace pmx::test
