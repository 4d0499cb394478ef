// .fam, .bim, --keep and --extract readers.
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "core/checked_number.hpp"
#include "io/text_lines.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx {
namespace {

std::string str(std::string_view s) { return std::string(s); }

bool equal_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// An integer filling the whole field (positions, chromosome codes).
template <class T>
bool parse_number(std::string_view s, T& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

std::vector<sample_record> read_fam(const std::string& path) {
  io::text_lines in(path, ".fam");
  std::vector<sample_record> out;
  std::unordered_map<std::string, int64_t> seen;
  while (in.next()) {
    const auto& f = in.fields();
    if (f.empty()) in.fail("empty line (a .fam line has 6 columns: FID IID father mother sex phenotype)");
    if (f.size() != 6)
      in.fail("expected 6 columns (FID IID father mother sex phenotype), found " +
              std::to_string(f.size()));
    sample_record r{str(f[0]), str(f[1]), str(f[2]), str(f[3]), 0, str(f[5])};
    if (f[4] == "1") r.sex = 1;
    else if (f[4] == "2") r.sex = 2;
    else if (f[4] == "0" || f[4] == "-9" || f[4] == "NA") r.sex = 0;
    else in.fail("sex column must be 1, 2 or 0, found '" + str(f[4]) + "'");
    // The phenotype column may be a number, a missing code (-9, 0, NA, nan) or a category label;
    // an infinite or overflowing number (inf, 1e999) is none of these (plink2 refuses it too).
    if (double v = 0; !equal_nocase(f[5], "nan") &&
                      detail::parse_number_text(f[5], v) == detail::number_text_status::not_finite)
      in.fail("phenotype column (6) is not a finite number: '" + str(f[5]) + "'");
    auto [it, fresh] = seen.emplace(r.fid + '\t' + r.iid, in.line_number());
    if (!fresh)
      in.fail("duplicate sample ID '" + r.fid + " " + r.iid + "' (first seen on line " +
              std::to_string(it->second) + ")");
    out.push_back(std::move(r));
  }
  if (out.empty()) throw input_error(path + ": no samples");
  return out;
}

std::vector<variant_record> read_bim(const std::string& path) {
  io::text_lines in(path, ".bim");
  std::vector<variant_record> out;
  std::unordered_map<std::string, int64_t> seen;
  while (in.next()) {
    const auto& f = in.fields();
    if (f.size() != 6)
      in.fail("expected 6 columns (chrom ID cM position A1 A2), found " + std::to_string(f.size()));
    variant_record r;
    r.chrom = str(f[0]);
    r.id = str(f[1]);
    switch (detail::parse_number_text(f[2], r.cm)) {  // as plink2: a NaN or infinite position is refused
      case detail::number_text_status::ok: break;
      case detail::number_text_status::not_finite:
        in.fail("centimorgan column (3) is not a finite number: '" + str(f[2]) + "'");
      case detail::number_text_status::not_a_number:
        in.fail("centimorgan column is not a number: '" + str(f[2]) + "'");
    }
    if (!parse_number(f[3], r.pos)) in.fail("position column is not an integer: '" + str(f[3]) + "'");
    r.a1 = str(f[4]);
    r.a2 = str(f[5]);
    if (r.id != ".") {
      auto [it, fresh] = seen.emplace(r.id, in.line_number());
      if (!fresh)
        in.fail("duplicate variant ID '" + r.id + "' (first seen on line " +
                std::to_string(it->second) + ")");
    }
    out.push_back(std::move(r));
  }
  if (out.empty()) throw input_error(path + ": no variants");
  return out;
}

sample_list read_sample_list(const std::string& path) {
  io::text_lines in(path, "--keep");
  sample_list list;
  while (in.next()) {
    const auto& f = in.fields();
    if (f.empty()) continue;
    if (in.line_number() == 1 && f[0].size() > 0 && f[0][0] == '#') {
      list.iid_only = (f[0] == "#IID");  // PLINK 2 header: "#FID IID ..." or "#IID ..."
      continue;
    }
    if (list.iid_only) list.iids.insert(str(f[0]));
    else if (f.size() >= 2) list.pairs.insert(str(f[0]) + '\t' + str(f[1]));
    else in.fail("expected FID and IID columns (or a '#IID' header for one column)");
  }
  return list;
}

void plink_fileset::keep_samples(const std::string& path) {
  const sample_list list = read_sample_list(path);
  std::vector<int64_t> kept;
  for (int64_t i : sample_index_)
    if (list.contains(samples_[i].fid, samples_[i].iid)) kept.push_back(i);
  if (kept.empty()) throw input_error("--keep file '" + path + "': no listed sample is in the data");
  sample_index_ = std::move(kept);
}

void plink_fileset::extract_variants(const std::string& path) {
  io::text_lines in(path, "--extract");
  std::unordered_set<std::string> ids;
  while (in.next())
    if (!in.fields().empty()) ids.insert(str(in.fields()[0]));
  filter_variants([&](const variant_record& v) { return ids.count(v.id) > 0; });
  if (variant_index_.empty())
    throw input_error("--extract file '" + path + "': no listed variant is in the data");
}

chromosome_set chromosome_set::species(const std::string& name) {
  static const std::unordered_map<std::string, int> table = {
      {"human", 22}, {"cow", 29}, {"dog", 38}, {"horse", 31}, {"mouse", 19}, {"rice", 12},
      {"sheep", 26}};
  auto it = table.find(name);
  if (it == table.end()) throw input_error("unknown species '" + name + "'");
  return {it->second};
}

chromosome_set::kind chromosome_set::classify(const std::string& chrom_in) const {
  std::string_view c = chrom_in;
  if (c.size() > 3 && (c.substr(0, 3) == "chr" || c.substr(0, 3) == "Chr")) c.remove_prefix(3);
  if (c == "X" || c == "x") return kind::x;
  if (c == "Y" || c == "y") return kind::y;
  if (c == "XY" || c == "xy") return kind::xy;
  if (c == "MT" || c == "M" || c == "mt") return kind::mt;
  int code = 0;
  if (parse_number(c, code)) {
    if (code == 0) return kind::unplaced;
    if (code >= 1 && code <= n_autosomes) return kind::autosome;
    if (code == n_autosomes + 1) return kind::x;
    if (code == n_autosomes + 2) return kind::y;
    if (code == n_autosomes + 3) return kind::xy;
    if (code == n_autosomes + 4) return kind::mt;
  }
  return kind::other;
}

std::string chromosome_set::canonical(const std::string& chrom) const {
  switch (classify(chrom)) {
    case kind::x: return "X";
    case kind::y: return "Y";
    case kind::xy: return "XY";
    case kind::mt: return "MT";
    case kind::autosome:
    case kind::unplaced: {
      std::string_view c = chrom;
      if (c.size() > 3 && (c.substr(0, 3) == "chr" || c.substr(0, 3) == "Chr")) c.remove_prefix(3);
      int code = 0;
      parse_number(c, code);
      return std::to_string(code);
    }
    default: return chrom;
  }
}

bool chromosome_set::diploid(const std::string& chrom) const {
  auto k = classify(chrom);
  return k != kind::x && k != kind::y && k != kind::mt;
}

}  // namespace pmx
