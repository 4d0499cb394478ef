// Phenotype and covariate files in PLINK's format: FID IID then one column per trait or covariate,
// whitespace-separated, with an optional header line "FID IID name..." (or "#FID IID ...").
// Missing values are -9, NA, nan (any case) or "." (as PLINK 1.9 --pheno / --covar read them);
// any other value must be a finite number ("inf", "-inf" and overflowing numbers such as 1e999
// are refused with file:line, column and value).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pmx {

/// The numeric columns of one phenotype or covariate file, rows in file order.
struct phenotype_table {
  std::string path;
  bool has_header = false;
  std::vector<std::string> names;          ///< column names (header) or "1", "2", ... (no header)
  std::vector<std::string> fid, iid;       ///< one per row
  std::vector<int64_t> line;               ///< file line of each row (for messages)
  std::vector<std::vector<double>> values; ///< values[column][row]; NaN where missing

  int64_t rows() const { return static_cast<int64_t>(fid.size()); }
  /// Index of a column chosen by header name, or by 1-based number when `name_or_number` is all
  /// digits and there is no column of that name. Throws input_error naming the file and the
  /// columns present when there is no such column.
  int64_t column(const std::string& name_or_number, const std::string& what) const;
};

/// Reads a PLINK phenotype/covariate file. `what` names the option in messages ("--pheno").
/// Throws input_error "<path>:<line>: ..." for a short line, a value that is not a finite number
/// (naming the column and the value), a duplicate FID/IID or a file without data rows.
phenotype_table read_phenotype_table(const std::string& path, const std::string& what);

/// Values of column `col` of `t` for samples given by (fid, iid), in that order; NaN for samples
/// the file does not list. `matched` (when not null) receives the number of samples found.
/// Throws input_error when no sample of the file is among the given ones.
std::vector<double> match_column(const phenotype_table& t, int64_t col,
                                 const std::vector<std::string>& fid,
                                 const std::vector<std::string>& iid, int64_t* matched);

}  // namespace pmx
