// Reading pedigree text files (animal, sire, dam; whitespace or comma separated, header optional)
// into records; the pedigree (stats) checks and renumbers them.
#include <algorithm>
#include <array>
#include <cctype>

#include "io/text_lines.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pedigree_records.hpp"

namespace pmx {

namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

// 1 for a sire-like column name, 2 for a dam-like one, 3 for a neutral parent name, 0 otherwise.
int parent_column_kind(std::string_view field) {
  const std::string f = lower(field);
  static const std::array<const char*, 6> sire{"sire", "father", "dad", "sire_id", "sireid", "pa"};
  static const std::array<const char*, 7> dam{"dam", "mother", "mum", "mom", "dam_id", "damid", "ma"};
  static const std::array<const char*, 4> neutral{"par1", "par2", "parent1", "parent2"};
  for (const char* s : sire)
    if (f == s) return 1;
  for (const char* s : dam)
    if (f == s) return 2;
  for (const char* s : neutral)
    if (f == s) return 3;
  return 0;
}

}  // namespace

bool is_unknown_parent(std::string_view f) {
  return f.empty() || f == "0" || f == "NA" || f == "." || f == "*";
}

std::vector<pedigree_record> read_pedigree_records(const std::string& path, pedigree_columns columns) {
  io::text_lines in(path, "pedigree");
  std::vector<pedigree_record> records;
  std::vector<std::string_view> f;
  bool first = true, dam_first = columns == pedigree_columns::dam_sire;
  while (in.next()) {
    const std::string& line = in.line();
    const size_t c = line.find_first_not_of(" \t\r");
    if (c == std::string::npos || line[c] == '#') continue;
    io::split_fields(line, f);
    io::refuse_stray_quote(in, f);
    if (first) {
      first = false;
      const int k2 = f.size() >= 3 ? parent_column_kind(f[1]) : 0;
      const int k3 = f.size() >= 3 ? parent_column_kind(f[2]) : 0;
      if (k2 != 0 || k3 != 0) {
        if (columns == pedigree_columns::automatic) dam_first = k2 == 2 || k3 == 1;
        continue;  // header
      }
    }
    if (f.size() < 3)
      in.fail("expected animal, sire and dam (3 fields), found " + std::to_string(f.size()));
    pedigree_record r;
    r.id = std::string(f[0]);
    r.sire = std::string(dam_first ? f[2] : f[1]);
    r.dam = std::string(dam_first ? f[1] : f[2]);
    if (is_unknown_parent(r.sire)) r.sire.clear();
    if (is_unknown_parent(r.dam)) r.dam.clear();
    r.line = in.line_number();
    records.push_back(std::move(r));
  }
  if (records.empty()) throw input_error("pedigree file '" + path + "' has no records");
  return records;
}

}  // namespace pmx
