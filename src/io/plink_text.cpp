// .fam, .bim, --keep and --extract readers.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <omp.h>

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

namespace {

// The first repeated variant ID (other than "."), in file order: {its first record, the repeat}.
// Found by sorting 64-bit hashes of the IDs: a node-based hash set of a million IDs spent 0.7 of
// the 1.0 s a 1 M-variant .bim took to read, in cache misses.
std::optional<std::pair<size_t, size_t>> first_repeated_id(const std::vector<variant_record>& v) {
  std::vector<std::pair<uint64_t, size_t>> h;
  h.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].id != ".") h.emplace_back(std::hash<std::string>{}(v[i].id), i);
  std::sort(h.begin(), h.end());
  std::optional<std::pair<size_t, size_t>> first;
  for (size_t a = 0; a < h.size();) {
    size_t b = a + 1;
    while (b < h.size() && h[b].first == h[a].first) ++b;
    for (size_t x = a + 1; x < b; ++x)  // indices ascend within a run of equal hashes
      for (size_t y = a; y < x; ++y)
        if (v[h[y].second].id == v[h[x].second].id) {
          if (!first || h[x].second < first->second) first = std::make_pair(h[y].second, h[x].second);
          break;
        }
    a = b;
  }
  return first;
}

// One .bim line into r, or the message of what is wrong with it.
std::optional<std::string> parse_bim_line(std::string_view line, std::vector<std::string_view>& f, variant_record& r) {
  io::split_whitespace(line, f);
  if (f.size() != 6) return "expected 6 columns (chrom ID cM position A1 A2), found " + std::to_string(f.size());
  r.chrom = str(f[0]);
  r.id = str(f[1]);
  switch (detail::parse_number_text(f[2], r.cm)) {  // as plink2: a NaN or infinite position is refused
    case detail::number_text_status::ok: break;
    case detail::number_text_status::not_finite:
      return "centimorgan column (3) is not a finite number: '" + str(f[2]) + "'";
    case detail::number_text_status::not_a_number: return "centimorgan column is not a number: '" + str(f[2]) + "'";
  }
  if (!parse_number(f[3], r.pos)) return "position column is not an integer: '" + str(f[3]) + "'";
  r.a1 = str(f[4]);
  r.a2 = str(f[5]);
  return std::nullopt;
}

}  // namespace

// The file is read whole and parsed in pieces of lines on all threads (1 M lines: 0.4 -> 0.1 s);
// lines are what std::getline gives (a last line without '\n' counts, an empty last one does not).
std::vector<variant_record> read_bim(const std::string& path) {
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(".bim file '" + path + "' cannot be opened");
    in.seekg(0, std::ios::end);
    text.resize(static_cast<size_t>(std::max<std::streamoff>(0, in.tellg())));
    in.seekg(0);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (!in) throw io_error("read error in '" + path + "'");
  }
  // Pieces end just after a '\n' (or at the end of the text). A thread per 256 KiB at most: a
  // small file is parsed on this thread alone (waking a team costs more than the parse, and idle
  // OpenMP threads spin).
  const int threads = static_cast<int>(
      std::clamp<size_t>(text.size() >> 18, 1, static_cast<size_t>(std::max(1, omp_get_max_threads()))));
  const size_t pieces = static_cast<size_t>(4 * threads);
  std::vector<size_t> cut{0};
  for (size_t p = 1; p < pieces; ++p) {
    size_t at = std::max(cut.back(), text.size() * p / pieces);
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos) break;
    if (nl + 1 > cut.back()) cut.push_back(nl + 1);
  }
  if (cut.back() < text.size()) cut.push_back(text.size());
  const size_t np = cut.size() - 1;
  std::vector<std::vector<variant_record>> parts(np);
  std::vector<int64_t> lines(np, 0), bad_line(np, -1);
  std::vector<std::string> bad_message(np);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
  for (size_t p = 0; p < np; ++p) {
    std::vector<std::string_view> f;
    for (size_t at = cut[p]; at < cut[p + 1];) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos || end > cut[p + 1]) end = cut[p + 1];
      variant_record r;
      if (auto wrong = parse_bim_line(std::string_view(text).substr(at, end - at), f, r)) {
        bad_line[p] = lines[p];
        bad_message[p] = std::move(*wrong);
        break;
      }
      parts[p].push_back(std::move(r));
      ++lines[p];
      at = end + 1;
    }
  }
  std::vector<variant_record> out;
  int64_t before = 0;  // lines of the earlier pieces
  for (size_t p = 0; p < np; ++p) {
    if (bad_line[p] >= 0)
      throw input_error(path + ":" + std::to_string(before + bad_line[p] + 1) + ": " + bad_message[p]);
    before += lines[p];
  }
  out.reserve(static_cast<size_t>(before));
  for (auto& part : parts) std::move(part.begin(), part.end(), std::back_inserter(out));
  if (out.empty()) throw input_error(path + ": no variants");
  // Every line is a record, so record i is on line i + 1.
  if (const auto rep = first_repeated_id(out))
    throw input_error(path + ":" + std::to_string(rep->second + 1) + ": duplicate variant ID '" + out[rep->second].id +
                      "' (first seen on line " + std::to_string(rep->first + 1) + ")");
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
