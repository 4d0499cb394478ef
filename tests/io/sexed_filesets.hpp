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

#include "test_support.hpp"

namespace pmx::test {

/// Writes PREFIX.fam from `fam` with each sample's sex replaced by sex_of(index, fields) and makes
/// PREFIX.bed/.bim links to `bfile`'s; returns PREFIX.
inline std::string with_sexes(const std::string& bfile, const std::string& prefix,
                              const std::function<int(size_t, const std::string& iid, int sex)>& sex_of) {
  std::ifstream fam(bfile + ".fam");
  std::ostringstream f;
  size_t i = 0;
  for (std::string line; std::getline(fam, line); ++i) {
    std::istringstream ss(line);
    std::string fid, iid, pa, ma, sex, ph;
    ss >> fid >> iid >> pa >> ma >> sex >> ph;
    f << fid << ' ' << iid << ' ' << pa << ' ' << ma << ' ' << sex_of(i, iid, std::stoi(sex)) << ' ' << ph << '\n';
  }
  std::ofstream(prefix + ".fam") << f.str();
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
  std::ifstream bim(base + ".bim");
  std::ostringstream b;
  int j = 0;
  for (std::string line; std::getline(bim, line); ++j) {
    std::istringstream ss(line);
    std::string c, id, cm, pos, a1, a2;
    ss >> c >> id >> cm >> pos >> a1 >> a2;
    if (j >= 2400) c = j < 2800 ? "X" : j < 2900 ? "Y" : j < 2950 ? "XY" : "MT";
    b << c << '\t' << id << '\t' << cm << '\t' << pos << '\t' << a1 << '\t' << a2 << '\n';
  }
  std::ofstream(sim + ".bim") << b.str();
  std::ifstream fam(base + ".fam");
  std::ostringstream f;
  int i = 0;
  std::string first_iid, second_iid;
  for (std::string line; std::getline(fam, line); ++i) {
    std::istringstream ss(line);
    std::string fid, iid, pa, ma, sex, ph;
    ss >> fid >> iid >> pa >> ma >> sex >> ph;
    if (i == 0) first_iid = iid;
    if (i == 1) second_iid = iid;
    if (i % 7 == 6) pa = first_iid, ma = second_iid;
    f << fid << ' ' << iid << ' ' << pa << ' ' << ma << ' ' << (i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 0) << ' ' << ph
      << '\n';
  }
  std::ofstream(sim + ".fam") << f.str();
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
