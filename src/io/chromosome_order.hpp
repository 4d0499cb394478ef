// The order rule of plink2's variant files, shared by the readers that take variants in file
// order (BGEN, .pvar): a chromosome's variants form one run (a chromosome that comes back after
// another is refused, as plink2 refuses it), and positions that go down within a run are counted
// (the file is not sorted; LD windows assume it is, so the log says so).
#pragma once
#include <cstdint>
#include <string>
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

}  // namespace pmx::io
