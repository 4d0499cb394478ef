#include "io/pvar_file.hpp"

#include <algorithm>
#include <charconv>

#include "core/checked_number.hpp"
#include "io/chromosome_order.hpp"
#include "io/text_lines.hpp"
#include "io/text_stream.hpp"
#include "panoramix/error.hpp"

namespace pmx::io {
namespace {

// Where each field of a body line is (-1: no such column).
struct pvar_columns {
  int chrom = -1, pos = -1, id = -1, ref = -1, alt = -1, cm = -1;
  size_t count = 0;  // fields a body line has at least
};

[[noreturn]] void fail(const text_stream& in, const std::string& what) {
  throw input_error(in.path() + ":" + std::to_string(in.line_number()) + ": " + what);
}

// The #CHROM line: VCF-style names in any order after CHROM (plink2 requires CHROM first).
pvar_columns columns_of_header(const text_stream& in, const std::vector<std::string_view>& f) {
  pvar_columns c;
  for (size_t k = 0; k < f.size(); ++k) {
    const std::string_view name = k == 0 ? f[0].substr(1) : f[k];  // "#CHROM" -> "CHROM"
    int* slot = name == "CHROM" ? &c.chrom
                : name == "POS" ? &c.pos
                : name == "ID"  ? &c.id
                : name == "REF" ? &c.ref
                : name == "ALT" ? &c.alt
                : name == "CM"  ? &c.cm
                                : nullptr;
    if (name == "FORMAT") break;  // a VCF's sample columns are not the .pvar's business
    if (!slot && name != "QUAL" && name != "FILTER" && name != "INFO")
      fail(in, "unrecognized .pvar column '" + std::string(name) +
                   "' (CHROM POS ID REF ALT QUAL FILTER INFO CM are defined)");
    if (slot && *slot >= 0) fail(in, "column " + std::string(name) + " appears twice");
    if (slot) *slot = static_cast<int>(k);
    c.count = k + 1;
  }
  const char* required[] = {"POS", "ID", "REF", "ALT"};
  const int found[] = {c.pos, c.id, c.ref, c.alt};
  for (int k = 0; k < 4; ++k)
    if (found[k] < 0) fail(in, "the #CHROM header line has no " + std::string(required[k]) + " column");
  return c;
}

// No header: the .bim layout, with or without the cM column.
pvar_columns bim_columns(size_t fields) {
  pvar_columns c;
  c.chrom = 0, c.id = 1;
  if (fields >= 6) c.cm = 2, c.pos = 3, c.alt = 4, c.ref = 5, c.count = 6;
  else c.pos = 2, c.alt = 3, c.ref = 4, c.count = 5;
  return c;
}

}  // namespace

pvar_contents read_pvar(const std::string& path, const chromosome_set& chromosomes, size_t expected) {
  text_stream in(path, ".pvar");
  pvar_contents out;
  out.variants.reserve(std::min<size_t>(expected, size_t(1) << 26));  // a corrupt header cannot ask for more
  out.compressed = in.compressed();
  pvar_columns cols;
  bool have_columns = false, in_header = true;
  chromosome_order order;
  std::vector<std::string_view> f;
  std::string_view line;
  while (in.next(line)) {
    if (in_header && !line.empty() && line[0] == '#') {
      if (line.substr(0, 6) == "#CHROM") {
        split_whitespace(line, f);
        cols = columns_of_header(in, f);
        have_columns = true;
      } else if (have_columns) {
        fail(in, "a header line after the #CHROM line");
      }
      continue;  // '##' meta lines (INFO/FILTER definitions, contigs) do not change the calls
    }
    if (!line.empty() && line[0] == '#') fail(in, "a '#' line among the variants");
    split_whitespace(line, f);
    if (f.empty()) continue;
    if (in_header) {
      in_header = false;
      if (!have_columns) {
        if (f.size() < 5) fail(in, "a .pvar line without header has at least 5 columns (CHROM ID POS ALT REF)");
        cols = bim_columns(f.size());
      }
    }
    if (f.size() < cols.count)
      fail(in, std::to_string(f.size()) + " fields, the header names " + std::to_string(cols.count) + " columns");
    variant_record v;
    v.chrom = chromosomes.canonical(std::string(f[size_t(cols.chrom)]));
    v.id = f[size_t(cols.id)];
    const std::string_view pos = f[size_t(cols.pos)];
    const auto r = std::from_chars(pos.data(), pos.data() + pos.size(), v.pos);
    if (r.ec != std::errc() || r.ptr != pos.data() + pos.size() || v.pos < 0 || v.pos > INT32_MAX)
      fail(in, "position '" + std::string(pos) + "' is not an integer in [0, 2^31)");
    if (cols.cm >= 0 && detail::parse_number_text(f[size_t(cols.cm)], v.cm) != detail::number_text_status::ok)
      fail(in, "centimorgan position '" + std::string(f[size_t(cols.cm)]) + "' is not a finite number");
    v.a1 = f[size_t(cols.alt)];
    v.a2 = f[size_t(cols.ref)];
    if (v.a1.find(',') != std::string::npos)
      throw unsupported_error(path + ":" + std::to_string(in.line_number()) + ": variant '" + v.id +
                              "' is multiallelic (ALT " + v.a1 + "): only biallelic variants are read; "
                              "`plink2 --pfile PREFIX --max-alleles 2 --make-pgen --out NEW` drops them");
    if (!order.add(v.chrom, v.pos))
      fail(in, "chromosome " + v.chrom + " comes back after other chromosomes; variants must be grouped by "
               "chromosome (`plink2 --pfile PREFIX --sort-vars --make-pgen --out NEW` sorts them)");
    out.variants.push_back(std::move(v));
  }
  out.unsorted = order.unsorted();
  return out;
}

}  // namespace pmx::io
