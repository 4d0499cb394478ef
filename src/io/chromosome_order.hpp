// The order rule of plink2's variant files, shared by the readers that take variants in file
// order (BGEN, .pvar): a chromosome's variants form one run (a chromosome that comes back after
// another is refused, as plink2 refuses it), and positions that go down within a run are counted
// (the file is not sorted; LD windows assume it is, so the log says so). And the natural order of
// chromosome names, for outputs laid out along the genome (Manhattan plots).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <unordered_set>

namespace pmx::io {

class chromosome_order {
 public:
  /// Records the next variant; false when `chrom` comes back after another chromosome.
  bool add(const std::string& chrom, int64_t pos) {
    if (chrom != current_) {
      if (finished_.count(chrom)) return false;
      if (!current_.empty()) finished_.insert(current_);
      current_ = chrom;
    } else if (pos < last_pos_) {
      ++unsorted_;
    }
    last_pos_ = pos;
    return true;
  }
  /// Variants at a lower position than the one before on their chromosome.
  int64_t unsorted() const { return unsorted_; }

 private:
  std::string current_;
  std::unordered_set<std::string> finished_;
  int64_t last_pos_ = 0, unsorted_ = 0;
};

/// The name without a "chr"/"Chr"/"CHR" prefix (plink2 drops it on import: "chr1" is "1").
inline std::string_view without_chr_prefix(std::string_view name) {
  if (name.size() > 3 && (name.substr(0, 3) == "chr" || name.substr(0, 3) == "Chr" || name.substr(0, 3) == "CHR"))
    name.remove_prefix(3);
  return name;
}

/// The natural order of chromosome names, whatever the species: numbers by value (0, 1, 2, ...,
/// 10, ..., 95), then X, Y, XY, MT (M too), then other names (contigs, scaffolds) with their
/// digit runs compared as numbers ("ctg2" before "ctg10"). A "chr" prefix is ignored; 23-26 stay
/// numbers (under another --chr-set than the human one they are autosomes).
inline bool chromosome_natural_less(std::string_view a, std::string_view b) {
  // (class, number) first; the text (digit runs by value) breaks ties between other names.
  const auto rank = [](std::string_view s) -> std::pair<int, uint64_t> {
    s = without_chr_prefix(s);
    if (!s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == s.npos)
      return {0, std::stoull(std::string(s))};
    if (s == "X" || s == "x") return {1, 0};
    if (s == "Y" || s == "y") return {2, 0};
    if (s == "XY" || s == "xy") return {3, 0};
    if (s == "MT" || s == "mt" || s == "M") return {4, 0};
    return {5, 0};
  };
  const auto ra = rank(a), rb = rank(b);
  if (ra != rb) return ra < rb;
  a = without_chr_prefix(a), b = without_chr_prefix(b);
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {  // compare the runs by value: length without leading zeros, then text
      size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      size_t iz = i, jz = j;
      while (iz + 1 < ie && a[iz] == '0') ++iz;
      while (jz + 1 < je && b[jz] == '0') ++jz;
      const auto x = a.substr(iz, ie - iz), y = b.substr(jz, je - jz);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal by value ("ctg01" and "ctg1"): the text decides, so the order is strict
}

}  // namespace pmx::io
