// Records and variance-component files of pedigree / single-step evaluations.
#include "panoramix/breeding_records.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "core/checked_number.hpp"
#include "core/small_cholesky.hpp"
#include "io/text_lines.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

bool is_missing(std::string_view f) { return f.empty() || f == "NA" || f == "."; }

bool blank_or_comment(const std::string& line) {
  const size_t c = line.find_first_not_of(" \t\r");
  return c == std::string::npos || line[c] == '#';
}

// A finite number filling the whole field (the shared rule of checked_number.hpp), else
// in.fail naming the field and the value: "inf", "nan" and 1e999 are not finite numbers.
double parse_number(const io::text_lines& in, std::string_view f, const std::string& what) {
  double v = 0;
  switch (detail::parse_number_text(f, v)) {
    case detail::number_text_status::ok: return v;
    case detail::number_text_status::not_finite:
      in.fail(what + "'" + std::string(f) + "' is not a finite number (infinite, NaN or beyond +-1.8e308)");
    case detail::number_text_status::not_a_number: break;
  }
  in.fail(what + "'" + std::string(f) + "' is not a number");
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

breeding_records read_breeding_records(const std::string& path,
                                       const std::vector<std::string>& traits,
                                       const std::vector<std::string>& classes,
                                       const std::vector<std::string>& covariates) {
  if (traits.empty()) throw input_error("records file '" + path + "': no trait named");
  io::text_lines in(path, "records");
  breeding_records r;
  r.path = path;
  r.traits = traits;
  r.classes = classes;
  r.covariates = covariates;
  std::vector<std::string_view> f;
  // ---- header
  std::vector<std::string> header;
  while (in.next()) {
    if (in.line().find_first_not_of(" \t\r") == std::string::npos) continue;
    io::split_fields(in.line(), f);
    io::refuse_stray_quote(in, f);
    for (auto x : f) header.emplace_back(x);
    break;
  }
  if (header.empty()) throw input_error("records file '" + path + "' is empty (a header line is expected)");
  const int64_t header_line = in.line_number();
  std::vector<std::string> asked;
  auto find = [&](const std::string& name, const char* kind) {
    for (const auto& a : asked)
      if (a == name) in.fail(std::string(kind) + " column '" + name + "' is asked for twice");
    asked.push_back(name);
    for (size_t c = 1; c < header.size(); ++c)
      if (header[c] == name) return static_cast<int64_t>(c);
    throw input_error(path + ":" + std::to_string(header_line) + ": no " + kind + " column '" + name +
                      "' in the header (columns: " + join(header) + ")");
  };
  std::vector<int64_t> tc, cc, vc;
  for (const auto& n : traits) tc.push_back(find(n, "trait"));
  for (const auto& n : classes) cc.push_back(find(n, "class"));
  for (const auto& n : covariates) vc.push_back(find(n, "covariate"));
  r.level.resize(classes.size());
  r.covariate.resize(covariates.size());
  const int t = static_cast<int>(traits.size());
  std::vector<double> yrow(t), vrow(covariates.size());
  // ---- records
  while (in.next()) {
    if (blank_or_comment(in.line())) continue;
    io::split_fields(in.line(), f);
    io::refuse_stray_quote(in, f);
    if (f.size() < header.size())
      in.fail("expected " + std::to_string(header.size()) + " fields as in the header, found " +
              std::to_string(f.size()));
    if (f[0].empty()) in.fail("empty animal ID");
    bool skip = false;
    int observed = 0;
    for (int k = 0; k < t; ++k) {
      const auto v = f[tc[k]];
      if (is_missing(v)) {
        yrow[k] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      yrow[k] = parse_number(in, v, "trait '" + traits[k] + "' (column " + std::to_string(tc[k] + 1) + "): ");
      ++observed;
    }
    for (size_t c = 0; c < cc.size(); ++c) skip = skip || is_missing(f[cc[c]]);
    for (size_t c = 0; c < vc.size(); ++c) {
      const auto v = f[vc[c]];
      if (is_missing(v)) {
        skip = true;
        continue;
      }
      vrow[c] = parse_number(in, v, "covariate '" + covariates[c] + "' (column " + std::to_string(vc[c] + 1) + "): ");
    }
    if (skip) {
      ++r.skipped_missing_effect;
      continue;
    }
    if (observed == 0) {
      ++r.skipped_no_trait;
      continue;
    }
    r.id.emplace_back(f[0]);
    r.line.push_back(in.line_number());
    r.y.insert(r.y.end(), yrow.begin(), yrow.end());
    for (size_t c = 0; c < cc.size(); ++c) r.level[c].emplace_back(f[cc[c]]);
    for (size_t c = 0; c < vc.size(); ++c) r.covariate[c].push_back(vrow[c]);
  }
  if (r.id.empty())
    throw input_error("records file '" + path + "' has no usable record (" +
                      std::to_string(r.skipped_no_trait) + " without any trait, " +
                      std::to_string(r.skipped_missing_effect) +
                      " with a missing class or covariate)");
  return r;
}

void check_covariance_matrix(const std::vector<double>& m, int t, const std::string& what) {
  if (static_cast<int64_t>(m.size()) != int64_t{t} * t)
    throw input_error(what + ": expected a " + std::to_string(t) + " x " + std::to_string(t) + " matrix");
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < i; ++j) {
      const double a = m[i * t + j], b = m[j * t + i];
      if (std::abs(a - b) > 1e-10 * std::max(std::abs(a), std::abs(b)))
        throw input_error(what + ": not symmetric (element " + std::to_string(i + 1) + "," +
                          std::to_string(j + 1) + " differs from " + std::to_string(j + 1) + "," +
                          std::to_string(i + 1) + ")");
    }
  // Cholesky of the lower triangle; a non-positive pivot names the leading minor.
  std::vector<double> L(m.size());
  if (const int minor = detail::small_cholesky(m.data(), t, L.data(), 1e-14))
    throw input_error(what + ": not positive definite (leading minor of order " + std::to_string(minor) +
                      " is not positive)");
}

variance_components read_variance_components(const std::string& path, int t) {
  io::text_lines in(path, "variance-component");
  variance_components vc;
  vc.t = t;
  std::vector<std::string_view> f;
  std::vector<double>* current = nullptr;
  int64_t rows = 0, start_line[2] = {0, 0};
  bool seen[2] = {false, false};
  auto finish = [&](std::vector<double>* m, const char* name) {
    if (m && rows != t)
      in.fail(std::string("the ") + name + " matrix has " + std::to_string(rows) +
              " rows; --traits names " + std::to_string(t) + " trait(s), so " + std::to_string(t) +
              " rows are expected");
  };
  while (in.next()) {
    if (blank_or_comment(in.line())) continue;
    io::split_fields(in.line(), f);
    io::refuse_stray_quote(in, f);
    if (f.size() == 1 && (f[0] == "genetic" || f[0] == "residual")) {
      const int which = f[0] == "genetic" ? 0 : 1;
      if (seen[which]) in.fail("second '" + std::string(f[0]) + "' section");
      finish(current, current == &vc.genetic ? "genetic" : "residual");
      seen[which] = true;
      start_line[which] = in.line_number();
      current = which == 0 ? &vc.genetic : &vc.residual;
      rows = 0;
      continue;
    }
    if (!current) in.fail("expected the line 'genetic' or 'residual' before the matrix rows");
    if (rows == t)
      in.fail(std::string("the ") + (current == &vc.genetic ? "genetic" : "residual") +
              " matrix has more than " + std::to_string(t) + " rows; --traits names " +
              std::to_string(t) + " trait(s)");
    if (static_cast<int>(f.size()) != t)
      in.fail("expected " + std::to_string(t) + " numbers (one per trait), found " +
              std::to_string(f.size()));
    for (size_t c = 0; c < f.size(); ++c)
      current->push_back(parse_number(in, f[c], "column " + std::to_string(c + 1) + ": "));
    ++rows;
  }
  finish(current, current == &vc.genetic ? "genetic" : "residual");
  if (!seen[0] || !seen[1])
    throw input_error(path + ": needs a 'genetic' and a 'residual' section");
  check_covariance_matrix(vc.genetic, t, path + ":" + std::to_string(start_line[0]) + ": genetic matrix");
  check_covariance_matrix(vc.residual, t, path + ":" + std::to_string(start_line[1]) + ": residual matrix");
  return vc;
}

}  // namespace pmx
