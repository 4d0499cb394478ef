// PLINK phenotype/covariate files (--pheno, --covar).
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include "core/checked_number.hpp"
#include "io/text_lines.hpp"
#include "panoramix/error.hpp"
#include "panoramix/phenotypes.hpp"

namespace pmx {
namespace {

bool equal_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// PLINK's missing codes: -9, ".", and NA / nan in any case. Any other NaN or infinity is refused.
bool missing_token(std::string_view s) {
  return s == "-9" || s == "-9.0" || s == "." || equal_nocase(s, "NA") || equal_nocase(s, "nan");
}

bool is_header(const std::vector<std::string_view>& f) {
  if (f.size() < 2) return false;
  std::string_view a = f[0];
  if (!a.empty() && a[0] == '#') a.remove_prefix(1);
  return equal_nocase(a, "FID") && equal_nocase(f[1], "IID");
}

}  // namespace

phenotype_table read_phenotype_table(const std::string& path, const std::string& what) {
  io::text_lines in(path, what);
  phenotype_table t;
  t.path = path;
  std::unordered_map<std::string, int64_t> seen;
  int64_t columns = -1;
  while (in.next()) {
    const auto& f = in.fields();
    if (f.empty()) continue;
    if (columns < 0) {
      if (f.size() < 3)
        in.fail("expected FID, IID and at least one value column, found " + std::to_string(f.size()) +
                " column(s)");
      columns = static_cast<int64_t>(f.size()) - 2;
      t.values.resize(columns);
      if (is_header(f)) {
        t.has_header = true;
        for (size_t c = 2; c < f.size(); ++c) t.names.emplace_back(f[c]);
        continue;
      }
      for (int64_t c = 0; c < columns; ++c) t.names.push_back(std::to_string(c + 1));
    }
    if (static_cast<int64_t>(f.size()) != columns + 2)
      in.fail("expected " + std::to_string(columns + 2) + " columns (FID IID and " +
              std::to_string(columns) + " value(s)) as on the first line, found " +
              std::to_string(f.size()));
    std::string key = std::string(f[0]) + '\t' + std::string(f[1]);
    auto [it, fresh] = seen.emplace(key, in.line_number());
    if (!fresh)
      in.fail("duplicate sample '" + std::string(f[0]) + " " + std::string(f[1]) +
              "' (first seen on line " + std::to_string(it->second) + ")");
    t.fid.emplace_back(f[0]);
    t.iid.emplace_back(f[1]);
    t.line.push_back(in.line_number());
    for (int64_t c = 0; c < columns; ++c) {
      const std::string_view s = f[c + 2];
      double v = std::numeric_limits<double>::quiet_NaN();
      if (!missing_token(s)) {
        const auto status = detail::parse_number_text(s, v);
        if (status != detail::number_text_status::ok)
          in.fail("column " + std::to_string(c + 3) + " ('" + t.names[c] + "'): value '" + std::string(s) + "' is " +
                  (status == detail::number_text_status::not_finite
                       ? "not a finite number (infinite or beyond +-1.8e308; missing values are -9, NA or nan)"
                       : "not a number (missing values are -9, NA or nan)"));
      }
      t.values[c].push_back(v);
    }
  }
  if (t.fid.empty()) throw input_error(what + " file '" + path + "': no data rows");
  return t;
}

int64_t phenotype_table::column(const std::string& key, const std::string& what) const {
  for (size_t c = 0; c < names.size(); ++c)
    if (names[c] == key) return static_cast<int64_t>(c);
  const bool digits = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos;
  if (digits) {
    const long c = std::strtol(key.c_str(), nullptr, 10);
    if (c >= 1 && c <= static_cast<long>(names.size())) return c - 1;
  }
  std::string present;
  for (size_t c = 0; c < names.size(); ++c) present += (c ? ", " : "") + names[c];
  throw input_error(what + " file '" + path + "': no column '" + key + "' (" +
                    (has_header ? "columns: " + present
                                : "no header line; columns are numbered 1.." +
                                      std::to_string(names.size())) +
                    ")");
}

std::vector<double> match_column(const phenotype_table& t, int64_t col,
                                 const std::vector<std::string>& fid,
                                 const std::vector<std::string>& iid, int64_t* matched) {
  std::unordered_map<std::string, int64_t> row;
  row.reserve(t.fid.size());
  for (int64_t r = 0; r < t.rows(); ++r) row.emplace(t.fid[r] + '\t' + t.iid[r], r);
  std::vector<double> out(fid.size(), std::numeric_limits<double>::quiet_NaN());
  int64_t found = 0;
  for (size_t i = 0; i < fid.size(); ++i) {
    auto it = row.find(fid[i] + '\t' + iid[i]);
    if (it == row.end()) continue;
    out[i] = t.values[col][it->second];
    ++found;
  }
  if (found == 0)
    throw input_error(t.path + ":" + std::to_string(t.line.front()) + ": sample '" + t.fid.front() +
                      " " + t.iid.front() +
                      "' and every other sample of this file are missing from the genotype data "
                      "(samples are matched by FID and IID)");
  if (matched) *matched = found;
  return out;
}

}  // namespace pmx
