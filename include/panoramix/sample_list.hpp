// A PLINK --keep / --remove sample list.
#pragma once
#include <string>
#include <unordered_set>

namespace pmx {

/// The samples a PLINK --keep file lists: "FID IID" per line, or, after a "#IID" header, one IID
/// per line (PLINK 2's "#FID IID ..." header is skipped; further columns are ignored).
struct sample_list {
  bool iid_only = false;
  std::unordered_set<std::string> pairs;  ///< "FID\tIID"
  std::unordered_set<std::string> iids;   ///< with iid_only
  bool contains(const std::string& fid, const std::string& iid) const {
    return iid_only ? iids.count(iid) > 0 : pairs.count(fid + '\t' + iid) > 0;
  }
};
/// Reads a --keep file (errors name the file and line).
sample_list read_sample_list(const std::string& path);

}  // namespace pmx
