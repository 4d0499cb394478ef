// Genomic relationship matrices.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

enum class grm_method {
  /// PLINK --make-rel / GCTA: z = (x - 2p)/sqrt(2p(1-p)); G_ij = mean of z_i z_j over the
  /// variants called in both i and j (the diagonal likewise). Monomorphic variants add 0 to the
  /// numerator but count in the denominator, as in PLINK.
  standardized,
  /// VanRaden (2008) method 1: G = Z Zᵀ / (2 Σ p(1-p)), Z = x - 2p with missing calls
  /// mean-imputed (z = 0). Computed from the exact integer M·Mᵀ plus corrections.
  vanraden,
};

struct grm_options {
  grm_method method = grm_method::standardized;
  bool nonfounders = false;  ///< frequencies from all samples instead of founders only
  bool pair_counts = true;   ///< also return N (per-pair jointly called variants)
  chromosome_set chromosomes = chromosome_set::human();  ///< species (for frequency counting)
  /// Given A1 frequencies, one per kept variant in [0, 1], used as they are (no 0.5 rule) instead of
  /// the counted ones: e.g. base-population frequencies. Empty = counted as PLINK does.
  std::vector<double> frequencies;
  /// VanRaden only: Z Zᵀ itself, without the 2 Σ p(1-p) divisor (the Gram matrix of the centred,
  /// mean-imputed dosages, whose squared distances kernels need).
  bool unscaled = false;
  int64_t block_variants = 8192;
};

struct grm_result {
  int64_t n = 0;                 ///< samples
  int64_t n_variants = 0;        ///< variants used
  matrix_buffer<double> G;       ///< n×n, row-major, symmetric (rows [row_begin, row_end) of it over ranks)
  matrix_buffer<int32_t> N;      ///< n×n jointly-called counts (when asked for), symmetric; rows as G
  /// The rows G and N hold: every row alone; over the ranks of a run of several processes
  /// (exec.comm()), this rank's rows_of_rank, each row whole (every column).
  int64_t row_begin = 0, row_end = 0;
  std::vector<double> a1_freq;   ///< frequencies used (after PLINK's 0.5 rule for no calls)
  /// Wall seconds per stage of the computation, in first-use order (for logs and benchmarks).
  std::vector<std::pair<std::string, double>> stage_seconds;
  std::string residence;         ///< where the n×n sums were accumulated ("device" or "host")
  int64_t integer_route_variants = 0;  ///< variants whose weighted products ran on the GPU's int8 route
};

/// Frequency PLINK uses in the GRM for a variant: its A1 frequency, or 0.5 where no counted
/// sample has a call.
double grm_frequency(double a1_freq);

/// Computes the GRM over every kept variant of `data` (the caller drops X/Y/MT as PLINK does),
/// streaming variant blocks so only n×n accumulators are held in memory.
grm_result compute_grm(const executor& exec, const genotype_source& data, const grm_options& opt,
                       progress_sink* progress);

}  // namespace pmx
