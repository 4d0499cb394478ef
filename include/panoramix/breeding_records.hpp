// Inputs of pedigree and single-step evaluations: the records file (one record per line: animal
// ID, traits, class and covariate columns) and the variance-component file (genetic and residual
// t × t matrices).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pmx {

/// Records of t traits, in file order, restricted to the columns asked for.
struct breeding_records {
  std::string path;
  std::vector<std::string> traits, classes, covariates;  ///< column names, as asked for
  std::vector<std::string> id;      ///< animal of each record (first column)
  std::vector<int64_t> line;        ///< file line of each record (for messages)
  std::vector<double> y;            ///< records × t, row-major; NaN = trait not recorded
  std::vector<std::vector<std::string>> level;  ///< level[c][record]: class c's level
  std::vector<std::vector<double>> covariate;   ///< covariate[v][record]
  /// Lines read but left out: a class or covariate missing, or every trait missing.
  int64_t skipped_missing_effect = 0, skipped_no_trait = 0;

  int64_t size() const { return static_cast<int64_t>(id.size()); }
  int traits_count() const { return static_cast<int>(traits.size()); }
};

/// Reads a records file. The first non-blank line is a header naming the columns; the first
/// column is the animal ID whatever its name. Fields are separated by commas (when the line has
/// one) or whitespace; surrounding double quotes are removed. Missing: `NA`, `.` or an empty field
/// (values of traits and covariates must otherwise be numbers; class levels are any text). Lines
/// starting with '#' after the header are skipped. A record with a missing class level or
/// covariate, or with every trait missing, is left out and counted. Throws input_error naming the
/// file (and line): a requested column that is not in the header (listing those present), a column
/// asked for twice, a short line, a value that is not a finite number (NaN, inf, 1e999: named with
/// its column), a field with an unbalanced double quote, a file without usable records.
breeding_records read_breeding_records(const std::string& path,
                                       const std::vector<std::string>& traits,
                                       const std::vector<std::string>& classes,
                                       const std::vector<std::string>& covariates);

/// Genetic (G0) and residual (R0) covariance matrices of t traits, row-major t × t.
struct variance_components {
  int t = 0;
  std::vector<double> genetic, residual;
};

/// Reads a variance-component file: a line `genetic`, t lines of t numbers, a line `residual`,
/// t lines of t numbers (whitespace or commas; blank lines and '#' lines ignored). Throws
/// input_error naming the file and line: a matrix of another size than t × t, a value that is
/// not a finite number,
/// a matrix that is not symmetric (relative difference > 1e-10) or not positive definite (the
/// message names the matrix and the leading minor that failed).
variance_components read_variance_components(const std::string& path, int t);

/// Checks that `m` (t × t row-major) is symmetric and positive definite; throws input_error
/// "<what>: ..." otherwise. Used by read_variance_components and by callers building matrices.
void check_covariance_matrix(const std::vector<double>& m, int t, const std::string& what);

}  // namespace pmx
