// Writers of LD results in PLINK 1.9's formats: PREFIX.ld.bin (square float64 matrix, written a
// block of rows at a time) and PREFIX.ld (the windowed pair table, same text layout as PLINK 1.9).
// Layer: formats (src/formats), above stats: writes statistics' results; cli and capi call it.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "panoramix/genotype_source.hpp"
#include "panoramix/ld.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx {

/// A number as PLINK 1.9 prints it in .ld tables (its dtoa_g): 6 significant digits, trailing
/// zeros dropped, exponent form below 1e-4 ("4.32182e-06") and from 1e6 up, "nan", "inf", "0";
/// a decimal tie within ~5e-9 relative rounds to the even digit.
std::string plink1_format_g(double x);

/// The chromosome code PLINK 1.9 prints: number for autosomes and 0 ("chr" prefix and leading
/// zeros dropped), X/Y/XY/MT as n_autosomes + 1..4 (23..26 for humans), other names as they are.
std::string plink1_chrom_code(const chromosome_set& chroms, const std::string& chrom);

/// PREFIX.ld.bin: n×n float64, row-major, rows appended in order (no header).
class ld_bin_writer {
 public:
  ld_bin_writer(output_group& out, const std::string& prefix, int64_t n_variants);
  /// Rows [first_row, first_row + n_rows) of the matrix; they must follow the previous ones.
  void write_rows(int64_t first_row, int64_t n_rows, const double* values);
  bool complete() const { return next_row_ == n_; }

 private:
  output_file& file_;
  int64_t n_, next_row_ = 0;
};

/// PREFIX.ld: header then one line per pair, fixed-width columns as PLINK 1.9 writes them:
///   CHR_A BP_A SNP_A [MAF_A] CHR_B BP_B SNP_B [MAF_B] R2|R
/// (chromosome width 6, position width 10, IDs right-aligned to PLINK's running width: 4, widened
/// to length + 2 by each kept ID longer than the width so far; frequencies width 10, value width
/// 12, each line ending in a space).
class ld_table_writer {
 public:
  /// `freqs` (A1 frequency per kept variant, see ld_frequencies) adds the MAF_A/MAF_B columns.
  ld_table_writer(output_group& out, const std::string& prefix, const genotype_source& data,
                  const chromosome_set& chroms, ld_statistic stat,
                  const std::vector<double>* freqs);
  /// The same lines handed to `write` (a rank's share of the table over MPI ranks); the header
  /// only with `header`.
  ld_table_writer(std::function<void(std::string_view)> write, const genotype_source& data,
                  const chromosome_set& chroms, ld_statistic stat, const std::vector<double>* freqs,
                  bool header);
  void write(std::span<const ld_pair> pairs);
  int64_t rows() const { return rows_; }

 private:
  std::function<void(std::string_view)> write_;
  const genotype_source& data_;
  const std::vector<double>* freqs_;
  std::vector<std::string> chrom_;  // PLINK code per kept variant
  int id_width_ = 4;
  int64_t rows_ = 0;
  std::string buf_;
};

}  // namespace pmx
