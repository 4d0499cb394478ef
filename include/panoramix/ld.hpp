// Linkage disequilibrium between variants, as PLINK 1.9 --r / --r2 computes it.
//
// For variants a and b, over the samples called at both (N of them), with x the A1 dosage:
//   cov = N·Σx_a x_b − Σx_a·Σx_b,   var_a = N·Σx_a² − (Σx_a)²,   var_b likewise,
//   r   = cov / sqrt(var_a·var_b),   r² = cov² / (var_a·var_b).
// Every sum is an exact integer from the crossprod op (bit-plane popcounts, no float per
// genotype); the three numerators are exact integers (int64), then the same double operations as
// PLINK 1.9 follow (one rounding for var_a·var_b, then sqrt and division), so the values are
// bit-identical to PLINK's. A pair with var_a·var_b = 0 (monomorphic over the joint calls, or no
// joint call) is NaN.
//
// Samples and coding, as PLINK 1.9 (measured against 1.90b6.26 with --keep-allele-order):
//  * founders only (parents "0 0" in .fam), whatever --nonfounders says (PLINK 1.9's
//    --nonfounders changes only the frequencies of --with-freqs); `ld_nonfounders` (panoramix's
//    --ld-nonfounders) uses every kept sample instead;
//  * X: males (sex 1) are haploid: a heterozygous call is missing, hom A1 counts 1, hom A2 0;
//    females and unknown sex are diploid;
//  * Y: male heterozygous calls and every non-male call are missing;
//  * XY, MT, chromosome 0 and autosomes: as coded.
// The male-X coding is not symmetric in the alleles, so X results depend on which allele is A1:
// panoramix counts .bim column 5, i.e. PLINK 1.9 with --keep-allele-order.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

enum class ld_statistic {
  r2,  ///< squared correlation (PLINK --r2)
  r,   ///< signed correlation of A1 counts (PLINK --r with --keep-allele-order)
};

/// Which crossproducts ld_matrix asks the op for.
enum class ld_path {
  automatic,   ///< S only when neither block has a missing call, else the general path
  general,     ///< S, N, U, V, Ut, Vt: sums over the jointly called samples of each pair
  no_missing,  ///< S only; N, U, V are row constants. Throws logic_error if a call is missing.
  all_sums,    ///< the general path with all six sums from the op, never the sparse companion
               ///< sums (their oracle in tests)
};

/// r or r² from the exact sums of one pair (see the header comment): n jointly called samples,
/// sa = Σx_a, sb = Σx_b, saa = Σx_a², sbb = Σx_b², sab = Σx_a x_b over them.
double ld_value(int64_t n, int64_t sa, int64_t sb, int64_t saa, int64_t sbb, int64_t sab,
                ld_statistic stat);

/// out[i * ld + j] = r or r² of row i of A against row j of B (variant-major genotypes with the
/// same samples). Used by the file-level drivers below and directly by tests.
void ld_matrix(const executor& exec, const variant_major_view& A, const variant_major_view& B,
               ld_statistic stat, ld_path path, double* out, int64_t ld);

struct ld_options {
  ld_statistic stat = ld_statistic::r2;
  bool nonfounders =
      false;  ///< --with-freqs frequencies over all kept samples (PLINK --nonfounders)
  bool ld_nonfounders =
      false;  ///< LD (and frequencies) over all kept samples; PLINK: founders only
  chromosome_set chromosomes = chromosome_set::human();
  int64_t memory_mb = 2048;  ///< working-memory bound (--memory); sets the row-block size
  int64_t block_rows = 0;    ///< rows (variants) per block; 0 = from memory_mb (tests force it)
  int64_t block_cols =
      0;  ///< columns per op call; 0 = from memory_mb (square: > 0 forces full rows)

  /// The rows computed, [first_row, end_row) (end_row -1: to the last) — over MPI ranks the
  /// table's rows_of_rank share (the square over ranks: compute_ld_square_blocks). Square matrix:
  /// every row against every column (the symmetric scheme's half of the work needs every row
  /// block); table: the pairs (a, b) with a in range.
  int64_t first_row = 0, end_row = -1;

  // Windowed table only (ignored by the square matrix), PLINK 1.9 defaults.
  int64_t window_variants = 10;  ///< --ld-window: pairs (i, j) with j − i <= window − 1
  int64_t window_bp = 1000000;   ///< --ld-window-kb × 1000: pairs with pos_j <= pos_i + window_bp
  double window_r2 = 0.2;        ///< --ld-window-r2: report r² >= this (|r| >= sqrt(this) for --r)
  bool inter_chr = false;        ///< every later variant, any chromosome, no window
};

/// PLINK 1.9's conversion of --ld-window-kb to base pairs: floor(kb · 1000 · (1 + 2^-44)); throws
/// input_error for a negative (or NaN) kb.
int64_t ld_window_bp_from_kb(double kb);

/// Throws input_error for options out of range (--ld-window < 2, a negative window, --ld-window-r2
/// outside [0, 1], --memory < 1); the drivers below call it first.
void check_ld_options(const ld_options& opt);

/// The whole n_variants × n_variants matrix (or its rows [opt.first_row, opt.end_row)), handed to
/// `sink(first_row, n_rows, values)` a block
/// of rows at a time, in order, values row-major with n_variants columns (the sink runs on a
/// background thread while the next block is computed; calls never overlap). Nothing
/// n_variants² is held: when about n_variants²/4 doubles fit in memory_mb, only the upper
/// triangle is computed (r is symmetric to the bit) and the blocks below the diagonal are kept
/// until their rows are written; otherwise each row block is computed against every column,
/// re-reading the columns in chunks when they do not fit. Variants are the kept ones of `data`.
void compute_ld_square(const executor& exec, const genotype_source& data, const ld_options& opt,
                       const std::function<void(int64_t, int64_t, const double*)>& sink,
                       progress_sink* progress);

/// A block of the square: rows (variants) [r0, r1) against columns [c0, c1).
struct ld_square_block {
  int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
};

/// The blocks of the n_variants² square that rank `rank` of `ranks` computes when the square is
/// split over ranks: the variants cut into K = 4·ranks + 1 chunks, every unordered pair of chunks
/// {I, J} once (the pairs (I, I + d mod K), d = 0 .. (K − 1)/2: K odd makes each pair appear once),
/// dealt to the ranks as contiguous runs of equal count. Together the ranks' blocks and their
/// transposes cover the square exactly once (diagonal blocks are whole squares); a rank reads only
/// the chunks of its blocks (about 1/ranks + 1/2 of them). Empty blocks (more chunks than
/// variants) are left out.
std::vector<ld_square_block> ld_square_blocks_of_rank(int64_t n_variants, int rank, int ranks);

/// r (or r²) of each block, `sink(block, values)` with values row-major (r1 − r0) × (c1 − c0), in
/// the blocks' order; each variant range the blocks read is prepared once. The same bits as
/// compute_ld_square's at those places (exact integer sums, the same finishing operations).
void compute_ld_square_blocks(const executor& exec, const genotype_source& data, const ld_options& opt,
                              std::span<const ld_square_block> blocks,
                              const std::function<void(const ld_square_block&, const double*)>& sink,
                              progress_sink* progress);

/// One reported pair of the windowed table: indices into the kept variants (a < b) and r or r².
struct ld_pair {
  int64_t a = 0, b = 0;
  double value = 0;
};

/// The pairs PLINK 1.9 --r/--r2 reports, in its order (by a, then b): b after a on the same
/// chromosome within the window (or any later variant with inter_chr), value not NaN and
/// r² >= window_r2 (|r| >= sqrt(window_r2)). Only crossproducts of each block of rows against its
/// window are computed. Pairs are handed to `sink` in order, a batch at a time, on a background
/// thread while the next batch is computed (calls never overlap).
void compute_ld_table(const executor& exec, const genotype_source& data, const ld_options& opt,
                      const std::function<void(std::span<const ld_pair>)>& sink,
                      progress_sink* progress);

/// A1 frequencies as PLINK 1.9 prints them in --with-freqs (1 − A2 count / allele count over the
/// founders, or every kept sample with nonfounders or ld_nonfounders; X males and Y count one
/// allele, heterozygous haploid calls are skipped); NaN without a counted allele.
std::vector<double> ld_frequencies(const executor& exec, const genotype_source& data,
                                   const ld_options& opt);

/// Index (into the kept variants) one past the last partner of each variant in the table, given
/// the window options: pairs of variant i are (i, j) for i < j < end[i].
std::vector<int64_t> ld_window_ends(const genotype_source& data, const ld_options& opt);

}  // namespace pmx
