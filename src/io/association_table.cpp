// Association tables by header name (association_table.hpp). Read through text_stream: a million
// lines without iostreams' per-line cost, and plink2's zstd-compressed output (--glm zs) as is.
#include "panoramix/association_table.hpp"

#include <charconv>
#include <cctype>
#include <unordered_map>

#include "core/checked_number.hpp"
#include "io/chromosome_order.hpp"
#include "io/text_lines.hpp"
#include "io/text_stream.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// The first header field (in `names`' order of preference) matching one of `names`; -1 if none.
int find_column(const std::vector<std::string_view>& header, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    for (size_t k = 0; k < header.size(); ++k)
      if (same_name(header[k], n)) return static_cast<int>(k);
  return -1;
}

struct columns {
  int chrom = -1, pos = -1, p = -1, test = -1;
  size_t count = 0;
};

[[noreturn]] void fail(const io::text_stream& in, const std::string& message) {
  throw input_error(in.path() + ":" + std::to_string(in.line_number()) + ": " + message);
}

columns columns_of_header(const io::text_stream& in, std::vector<std::string_view> header,
                          const association_table_options& o) {
  std::string names;  // as written, for the messages
  for (auto h : header) names += (names.empty() ? "" : " ") + std::string(h);
  if (!header.empty() && header[0].size() > 1 && header[0][0] == '#') header[0].remove_prefix(1);  // plink2's #CHROM
  columns c;
  c.count = header.size();
  c.chrom = find_column(header, {"CHROM", "CHR"});
  c.pos = find_column(header, {"POS", "BP", "ps"});
  c.test = find_column(header, {"TEST"});
  c.p = o.p_column.empty() ? find_column(header, {"P", "p_wald", "p_lrt", "p_score"}) : find_column(header, {o.p_column});
  if (c.chrom < 0) fail(in, "no chromosome column (#CHROM, CHROM, CHR or chr) in the header: " + names);
  if (c.pos < 0) fail(in, "no position column (POS, BP or ps) in the header: " + names);
  if (c.p < 0)
    fail(in, o.p_column.empty()
                 ? "no P value column (P, p_wald, p_lrt or p_score; --p-column names another) in the header: " + names
                 : "no column '" + o.p_column + "' (--p-column) in the header: " + names);
  return c;
}

bool missing_p(std::string_view v) {
  return same_name(v, "NA") || same_name(v, "nan") || same_name(v, "-nan") || v == ".";
}

}  // namespace

association_table read_association_table(const std::string& path, const association_table_options& o) {
  io::text_stream in(path, "association");
  association_table t;
  columns c;
  bool have_header = false;
  std::unordered_map<std::string, int32_t> chrom_index;
  std::string last_chrom;  // most rows repeat the chromosome before: no hash lookup for them
  int32_t last_index = -1;
  std::vector<std::string_view> f;
  std::string_view line;
  while (in.next(line)) {
    io::split_whitespace(line, f);
    if (f.empty() || (f[0].size() > 1 && f[0].substr(0, 2) == "##")) continue;  // blank or meta lines
    if (!have_header) {
      c = columns_of_header(in, f, o);
      t.p_column = f[size_t(c.p)];
      have_header = true;
      continue;
    }
    ++t.rows;
    if (f.size() != c.count)
      fail(in, std::to_string(f.size()) + " fields, the header names " + std::to_string(c.count) + " columns");
    if (c.test >= 0 && f[size_t(c.test)] != "ADD") {
      ++t.other_tests;
      continue;
    }
    const std::string_view p_text = f[size_t(c.p)];
    if (missing_p(p_text)) {
      ++t.missing_p;
      continue;
    }
    double p = 0;
    if (detail::parse_number_text(p_text, p) != detail::number_text_status::ok || !(p >= 0 && p <= 1))
      fail(in, "P value (column " + std::to_string(c.p + 1) + ", '" + t.p_column + "') is not a number in [0, 1]: '" +
                   std::string(p_text) + "'");
    const std::string_view pos_text = f[size_t(c.pos)];
    int64_t pos = 0;
    const auto r = std::from_chars(pos_text.data(), pos_text.data() + pos_text.size(), pos);
    if (r.ec != std::errc() || r.ptr != pos_text.data() + pos_text.size() || pos < 0)
      fail(in, "position (column " + std::to_string(c.pos + 1) + ") is not a non-negative integer: '" +
                   std::string(pos_text) + "'");
    const std::string_view chrom = io::without_chr_prefix(f[size_t(c.chrom)]);
    if (chrom != last_chrom) {
      last_chrom = chrom;
      const auto [it, fresh] = chrom_index.emplace(last_chrom, static_cast<int32_t>(t.chromosomes.size()));
      if (fresh) t.chromosomes.push_back(last_chrom);
      last_index = it->second;
    }
    t.chrom.push_back(last_index);
    t.pos.push_back(pos);
    t.p.push_back(p);
  }
  if (!have_header) throw input_error(path + ": empty (an association table starts with a header line)");
  if (t.p.empty()) {
    if (c.test >= 0 && t.other_tests == t.rows && t.rows > 0)
      throw input_error(path + ": no ADD rows in the TEST column (only ADD tests are plotted)");
    throw input_error(path + ": no P values (" + std::to_string(t.rows) + " data rows, " +
                      std::to_string(t.missing_p) + " with P missing)");
  }
  return t;
}

}  // namespace pmx
