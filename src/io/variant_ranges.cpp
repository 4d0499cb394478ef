// --chr/--not-chr/--autosome/--from-bp/--to-bp and --snps, matched on PLINK 2's chromosome names so
// that "chr1", "1", "23" and "X" mean what plink2 makes of them under the chromosome set.
#include "panoramix/variant_ranges.hpp"

#include <charconv>
#include <unordered_map>

#include "panoramix/error.hpp"

namespace pmx {
namespace {

// Splits words at commas ("1-3,5" "X" -> "1-3", "5", "X"), dropping empty items.
std::vector<std::string> items_of(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const std::string& w : words) {
    size_t start = 0;
    while (start <= w.size()) {
      const size_t comma = std::min(w.find(',', start), w.size());
      if (comma > start) out.push_back(w.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

bool autosome_number(const std::string& s, const chromosome_set& chroms, int& code) {
  std::string_view c = s;
  if (c.size() > 3 && (c.substr(0, 3) == "chr" || c.substr(0, 3) == "Chr")) c.remove_prefix(3);
  const auto r = std::from_chars(c.data(), c.data() + c.size(), code);
  return r.ec == std::errc() && r.ptr == c.data() + c.size() && code >= 0 &&
         code <= chroms.n_autosomes + 4;
}

std::set<std::string> chromosome_names(const std::vector<std::string>& words, const char* flag,
                                       const chromosome_set& chroms) {
  std::set<std::string> out;
  for (const std::string& item : items_of(words)) {
    const size_t dash = item.find('-', 1);
    if (dash == std::string::npos) {
      out.insert(chroms.canonical(item));
      continue;
    }
    // A range runs over numeric codes (plink2 refuses "X-Y" and the like).
    int a = 0, b = 0;
    if (!autosome_number(item.substr(0, dash), chroms, a) || !autosome_number(item.substr(dash + 1), chroms, b) ||
        a > b)
      throw input_error(std::string(flag) + ": '" + item + "' is not a range of chromosome numbers");
    for (int k = a; k <= b; ++k) out.insert(chroms.canonical(std::to_string(k)));
  }
  return out;
}

}  // namespace

chromosome_ranges::chromosome_ranges(const std::vector<std::string>& chr, const std::vector<std::string>& not_chr,
                                     bool autosome, int64_t from_bp, int64_t to_bp, const chromosome_set& chroms)
    : chroms_(chroms), autosome_(autosome), from_(from_bp), to_(to_bp) {
  chr_ = chromosome_names(chr, "--chr", chroms);
  has_chr_ = !chr_.empty();
  not_chr_ = chromosome_names(not_chr, "--not-chr", chroms);
  if ((from_ >= 0 || to_ >= 0) && chr_.size() != 1)
    throw input_error("--from-bp/--to-bp must be used with --chr, and only one chromosome (as in plink2)");
  if (from_ >= 0 && to_ >= 0 && from_ > to_) throw input_error("--from-bp is past --to-bp");
}

bool chromosome_ranges::keeps(const variant_record& v) const {
  if (autosome_ && chroms_.classify(v.chrom) != chromosome_set::kind::autosome) return false;
  if (has_chr_ || !not_chr_.empty()) {
    const std::string c = chroms_.canonical(v.chrom);
    if (has_chr_ && !chr_.count(c)) return false;
    if (not_chr_.count(c)) return false;
  }
  if (from_ >= 0 && v.pos < from_) return false;
  if (to_ >= 0 && v.pos > to_) return false;
  return true;
}

void keep_snps(selected_genotypes& data, const std::vector<std::string>& items_in) {
  const genotype_source& all = data.all();
  std::unordered_map<std::string, int64_t> where;
  for (int64_t j = all.n_variants() - 1; j >= 0; --j) where[all.variant(j).id] = j;  // first occurrence
  auto index_of = [&](const std::string& id) {
    const auto it = where.find(id);
    if (it == where.end()) throw input_error("--snps: variant '" + id + "' is not in the data");
    return it->second;
  };
  std::vector<uint8_t> listed(static_cast<size_t>(all.n_variants()), 0);
  for (const std::string& item : items_of(items_in)) {
    // An ID may itself contain '-': the whole item as an ID first, then as a range.
    const size_t dash = item.find('-', 1);
    if (where.count(item) || dash == std::string::npos) {
      listed[index_of(item)] = 1;
      continue;
    }
    const int64_t a = index_of(item.substr(0, dash)), b = index_of(item.substr(dash + 1));
    if (a > b) throw input_error("--snps: range '" + item + "' runs backwards in the file");
    for (int64_t j = a; j <= b; ++j) listed[j] = 1;
  }
  std::vector<uint8_t> keep;
  for (int64_t j : data.variant_index()) keep.push_back(listed[j]);
  data.keep_variants_where(keep);
  if (data.n_variants() == 0) throw input_error("--snps: no listed variant remains");
}

}  // namespace pmx
