#include "io/psam_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <unordered_map>

#include "core/checked_number.hpp"
#include "io/text_lines.hpp"
#include "io/text_stream.hpp"
#include "panoramix/error.hpp"

namespace pmx::io {
namespace {

struct psam_columns {
  int fid = -1, iid = -1, sid = -1, pat = -1, mat = -1, sex = -1;
  std::vector<int> phenotypes;  // in file order
  std::vector<std::string> phenotype_names;
  size_t count = 0;
};

[[noreturn]] void fail(const std::string& path, int64_t line, const std::string& what) {
  throw input_error(path + ":" + std::to_string(line) + ": " + what);
}

psam_columns columns_of_header(const std::string& path, int64_t line, const std::vector<std::string_view>& f) {
  psam_columns c;
  c.count = f.size();
  std::unordered_map<std::string, size_t> seen;
  for (size_t k = 0; k < f.size(); ++k) {
    const std::string name(k == 0 ? f[0].substr(1) : f[k]);  // "#FID" -> "FID"
    if (!seen.emplace(name, k).second) fail(path, line, "column " + name + " appears twice in the header");
    int* slot = name == "FID"   ? &c.fid
                : name == "IID" ? &c.iid
                : name == "SID" ? &c.sid
                : name == "PAT" ? &c.pat
                : name == "MAT" ? &c.mat
                : name == "SEX" ? &c.sex
                                : nullptr;
    if (slot) *slot = static_cast<int>(k);
    else c.phenotypes.push_back(static_cast<int>(k)), c.phenotype_names.push_back(name);
  }
  if (c.iid < 0) fail(path, line, "the header line has no IID column (it starts #FID IID or #IID)");
  if (c.iid > 1 || (c.iid == 1 && c.fid != 0)) fail(path, line, "IID must be the first column or follow FID");
  if ((c.pat < 0) != (c.mat < 0)) fail(path, line, "PAT and MAT columns come together (one is missing)");
  return c;
}

// No header: .fam's columns, the sixth the phenotype (plink2 refuses fewer than six, though the
// specification allows five).
psam_columns fam_columns(const std::string& path, int64_t line, size_t fields) {
  if (fields < 6)
    fail(path, line, std::to_string(fields) + " fields: a .psam without a #FID/#IID header line has .fam's 6 "
                     "columns (FID IID PAT MAT SEX PHENO1), as plink2 requires");
  psam_columns c;
  c.fid = 0, c.iid = 1, c.pat = 2, c.mat = 3, c.sex = 4, c.count = 6;
  c.phenotypes = {5}, c.phenotype_names = {"PHENO1"};
  return c;
}

bool is_missing_token(std::string_view v) {
  auto lower = [](std::string_view s) {
    std::string t(s);
    for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return t;
  };
  const std::string t = lower(v);
  return t == "na" || t == "nan";
}

// A value a categorical column may hold: not a number's start (digit, or [+-][.]digit), not NA.
bool looks_categorical(std::string_view v) {
  size_t k = 0;
  if (k < v.size() && (v[k] == '+' || v[k] == '-')) ++k;
  if (k < v.size() && v[k] == '.') ++k;
  return !(k < v.size() && std::isdigit(static_cast<unsigned char>(v[k])));
}

// The .fam phenotype of each sample from the first column that is not categorical (plink2's
// first phenotype), or "-9" for all.
std::vector<std::string> fam_phenotypes(const std::string& path, const psam_columns& c,
                                        const std::vector<std::vector<std::string>>& values,
                                        const std::vector<int64_t>& lines) {
  const size_t n = lines.size();
  for (size_t p = 0; p < c.phenotypes.size(); ++p) {
    const std::vector<std::string>& col = values[p];
    int64_t categorical_line = -1, numeric_line = -1;
    for (size_t i = 0; i < n; ++i) {
      if (is_missing_token(col[i])) continue;
      (looks_categorical(col[i]) ? categorical_line : numeric_line) = lines[i];
    }
    if (categorical_line >= 0 && numeric_line >= 0)
      fail(path, std::max(categorical_line, numeric_line),
           "phenotype column " + c.phenotype_names[p] + " mixes category names (line " +
               std::to_string(categorical_line) + ") and numbers (line " + std::to_string(numeric_line) + ")");
    if (categorical_line >= 0) continue;
    std::vector<double> x(n, -9);
    std::vector<bool> missing(n, false);
    bool binary = true;
    for (size_t i = 0; i < n; ++i) {
      if (is_missing_token(col[i])) {
        missing[i] = true;
        continue;
      }
      if (detail::parse_number_text(col[i], x[i]) != detail::number_text_status::ok)
        fail(path, lines[i], "phenotype " + c.phenotype_names[p] + " '" + col[i] + "' is not a finite number");
      binary = binary && (x[i] == -9 || x[i] == 0 || x[i] == 1 || x[i] == 2);
    }
    std::vector<std::string> out(n, "-9");
    for (size_t i = 0; i < n; ++i) {
      if (missing[i] || x[i] == -9) continue;
      if (binary) {
        if (x[i] != 0) out[i] = x[i] == 1 ? "1" : "2";  // 0 is missing in a binary column
        continue;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", x[i]);
      out[i] = buf;
    }
    return out;
  }
  return std::vector<std::string>(n, "-9");
}

}  // namespace

std::vector<sample_record> read_psam(const std::string& path) {
  text_stream in(path, ".psam");
  psam_columns cols;
  bool have_columns = false, in_header = true;
  std::vector<sample_record> out;
  std::vector<std::vector<std::string>> phenotype_values;
  std::vector<int64_t> lines;
  std::unordered_map<std::string, int64_t> seen;
  std::vector<std::string_view> f;
  std::string_view line;
  while (in.next(line)) {
    const int64_t at = in.line_number();
    if (in_header && !line.empty() && line[0] == '#') {
      split_whitespace(line, f);
      if (!f.empty() && (f[0] == "#FID" || f[0] == "#IID")) {
        if (have_columns) fail(path, at, "a second #FID/#IID header line");
        cols = columns_of_header(path, at, f);
        have_columns = true;
      } else if (have_columns) {
        fail(path, at, "a header line after the #FID/#IID line");
      }
      continue;
    }
    split_whitespace(line, f);
    if (f.empty()) continue;
    if (in_header) {
      in_header = false;
      if (!have_columns) cols = fam_columns(path, at, f.size());
      phenotype_values.resize(cols.phenotypes.size());
    }
    if (f.size() < cols.count)
      fail(path, at, std::to_string(f.size()) + " fields, the header names " + std::to_string(cols.count) +
                         " columns");
    sample_record s;
    s.fid = cols.fid >= 0 ? std::string(f[size_t(cols.fid)]) : "0";
    s.iid = f[size_t(cols.iid)];
    if (s.iid == "0") fail(path, at, "IID '0' (0 means a missing parent; plink2 refuses it as an ID)");
    s.father = cols.pat >= 0 ? std::string(f[size_t(cols.pat)]) : "0";
    s.mother = cols.mat >= 0 ? std::string(f[size_t(cols.mat)]) : "0";
    if (cols.sex >= 0) {
      const std::string_view x = f[size_t(cols.sex)];
      s.sex = x == "1" || x == "M" || x == "m" ? 1 : x == "2" || x == "F" || x == "f" ? 2 : 0;
    }
    const std::string sid = cols.sid >= 0 ? std::string(f[size_t(cols.sid)]) : "0";
    auto [it, fresh] = seen.emplace(s.fid + '\t' + s.iid + '\t' + sid, at);
    if (!fresh)
      fail(path, at, "sample '" + s.fid + " " + s.iid + "' listed twice (first on line " + std::to_string(it->second) +
                         ")");
    for (size_t p = 0; p < cols.phenotypes.size(); ++p) phenotype_values[p].emplace_back(f[size_t(cols.phenotypes[p])]);
    lines.push_back(at);
    out.push_back(std::move(s));
  }
  if (out.empty()) throw input_error(path + ": no samples");
  const std::vector<std::string> pheno = fam_phenotypes(path, cols, phenotype_values, lines);
  for (size_t i = 0; i < out.size(); ++i) out[i].phenotype = pheno[i];
  return out;
}

}  // namespace pmx::io
