#include "io/oxford_sample_file.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "io/text_lines.hpp"
#include "panoramix/error.hpp"

namespace pmx::io {
namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// A phenotype as plink2 writes it to .fam: -9 for missing, else the number in %g form.
std::string phenotype_text(const text_lines& in, std::string_view v, char type) {
  if (v == "NA" || v == "-9") return "-9";
  if (type == 'B') {
    if (v == "0") return "1";
    if (v == "1") return "2";
    in.fail("binary phenotype '" + std::string(v) + "' (0, 1 or NA expected)");
  }
  const std::string s(v);
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') in.fail("phenotype '" + s + "' is not a number");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

std::vector<sample_record> read_oxford_samples(const std::string& path) {
  text_lines in(path, ".sample");
  auto next_nonblank = [&] {
    while (in.next())
      if (!in.fields().empty()) return true;
    return false;
  };
  if (!next_nonblank()) throw input_error(".sample file '" + path + "' is empty");
  const std::vector<std::string> names(in.fields().begin(), in.fields().end());
  if (names.size() < 3) in.fail("a .sample header has at least ID_1 ID_2 missing");
  if (!next_nonblank()) in.fail("no column type line (0 0 0 ...) after the header");
  const std::vector<std::string> types(in.fields().begin(), in.fields().end());
  if (types.size() != names.size())
    in.fail(std::to_string(types.size()) + " column types for " + std::to_string(names.size()) + " columns");
  for (size_t c = 0; c < 3; ++c)
    if (types[c] != "0") in.fail("column " + std::to_string(c + 1) + " has type '" + types[c] + "', 0 expected");
  int sex_col = -1, pheno_col = -1;
  for (size_t c = 3; c < types.size(); ++c) {
    const std::string& t = types[c];
    if (t.size() != 1 || std::string("DCPB").find(t[0]) == std::string::npos)
      in.fail("column '" + names[c] + "' has type '" + t + "' (D, C, P or B expected)");
    if (sex_col < 0 && t == "D" && same_ignoring_case(names[c], "sex")) sex_col = static_cast<int>(c);
    if (pheno_col < 0 && t != "D") pheno_col = static_cast<int>(c);
  }
  std::vector<sample_record> out;
  std::set<std::pair<std::string, std::string>> seen;
  while (next_nonblank()) {
    const auto& f = in.fields();
    if (f.size() != names.size())
      in.fail(std::to_string(f.size()) + " fields, the header names " + std::to_string(names.size()));
    sample_record s;
    s.fid = f[0], s.iid = f[1], s.father = "0", s.mother = "0", s.phenotype = "-9";
    if (sex_col >= 0) {
      const std::string_view v = f[static_cast<size_t>(sex_col)];
      if (v == "1" || v == "2") s.sex = v[0] - '0';
      else if (v != "0" && v != "NA") in.fail("sex code '" + std::string(v) + "' (0, 1, 2 or NA expected)");
    }
    if (pheno_col >= 0)
      s.phenotype = phenotype_text(in, f[static_cast<size_t>(pheno_col)], types[static_cast<size_t>(pheno_col)][0]);
    if (!seen.insert({s.fid, s.iid}).second) in.fail("sample '" + s.fid + " " + s.iid + "' appears twice");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace pmx::io
