// Op: the per-pair and per-sample sums over variants that relationship matrices are made of,
// accumulated block by block from variant-major genotypes (the .bed rows as read), with the totals
// delivered to host memory once, by flush().
//
// With x = A1 dosage (0 where missing), called = 1 where the call is not missing, and per-variant
// code tables T_l (table_products.hpp):
//   S[i][j] += Σ_l x_il x_jl                    (exact int32)
//   N[i][j] += Σ_l called_il called_jl          (exact int32)
//   C[i][j] += Σ_l T_l[code_il] T_l[code_jl]    (double; the weighted, e.g. standardised, product)
//   a[i]    += Σ_l R_l[code_il]                 (double; row sums through a second set of tables)
// over every variant l passed to add(). S, N and C are symmetric: only their lower triangle
// (i >= j) is written. Null outputs are not computed.
//
// Why an accumulator and not one more op call per block: the CUDA backend keeps the n×n sums on
// the device across add() calls (when they fit the executor's device budget) and sends each across
// PCIe once, at flush(); per-block calls would download n² numbers per block. The other backends
// (and cuda when the sums do not fit) add into the host outputs as each block arrives. The results
// are the same either way: the integer sums bit for bit, C and a to rounding.
//
// C on cuda: a block without missing calls whose tables are affine (centred and scaled dosages,
// 0 for missing: the standardised GRM's) is multiplied exactly in integers on the int8 tensor
// cores, every weight kept to 2^-44 (src/ops/sample_sums/integer_weights.hpp), and C stays on the
// device until flush(); other blocks, or PMX_TABLE_CROSSPROD=blas, take the FP64 table_crossprod.
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/ops/table_products.hpp"

namespace pmx {

struct sample_sums_outputs {
  int32_t* S = nullptr;
  int32_t* N = nullptr;
  double* C = nullptr;
  int64_t ld = 0;  ///< leading dimension of S, N and C (row-major, >= n)
  double* a = nullptr;  ///< n entries
  /// S wanted but never downloaded (S stays null): the sums must stay on the device (cuda only;
  /// the constructor throws unsupported_error when they do not fit its budget), and only
  /// finish_gaussian_kernel() reads them.
  bool S_on_device_only = false;
  /// S, N and C (n rows of ld entries each) hold garbage: sample_sums zeroes them itself before it
  /// first writes them. Where the sums are kept on the device (cuda), on host threads in the
  /// background while the device multiplies (zeroing a 22,016² GRM's G and N took 0.3 s).
  bool uninitialised = false;
  /// Over the ranks of the executor's communicator (a run of several processes): each rank adds
  /// its own variants, and flush() adds the sums over the ranks in rank order and delivers to each
  /// rank only its rows, rows_of_rank(n, rank, ranks) (communicator.hpp), of S, N and C with both
  /// triangles (a row's other half is another rank's), at [(i − first) * ld + j] for every column
  /// j: the outputs hold those rows only. a: every sample's, summed, on every rank. Until flush the
  /// whole n × n sums are kept where the backend keeps them (on the device when they fit, where
  /// they are also mirrored and summed through NCCL). flush() is then collective. A rank that owns
  /// no rows still adds its variants for the others: it passes non-null outputs (one entry will do)
  /// for the sums wanted, as every rank must name the same ones. Alone: ignored.
  bool rows_over_ranks = false;
};

class sample_sums {
 public:
  /// Accumulates into `out` (+=) for n samples. The outputs must stay valid until flush() (or
  /// destruction); they may be written at any time before flush() returns.
  sample_sums(const executor& exec, int64_t n_samples, const sample_sums_outputs& out);
  ~sample_sums();
  sample_sums(const sample_sums&) = delete;
  sample_sums& operator=(const sample_sums&) = delete;

  /// Adds the variants of `block` (g.n_samples == n). `c_tables` (for C) and `a_tables` (for a)
  /// hold one table per variant of the block when those outputs are requested. `has_missing` =
  /// false promises the block has no missing call (N then grows by the block's variant count
  /// without a product).
  void add(const variant_major_view& block, std::span<const code_table> c_tables,
           std::span<const code_table> a_tables, bool has_missing = true);

  /// Makes every sum added so far present in the host outputs. Further add() calls start from
  /// zero again (a second flush adds only what came after the first).
  void flush();

  /// Instead of flush() for S: the Gaussian kernel of the dosages,
  ///   K_ij = exp(−γ (S_ii + S_jj − 2 S_ij + ‖c_i − c_j‖²))   (S_ii + S_jj − 2 S_ij = ‖x_i − x_j‖²),
  /// into K (n × n, leading dimension ldk, both triangles) in the executor's memory (device memory
  /// on cuda: executor_array), from the S added so far, which it then zeroes. Exact distances need
  /// every call present: throws input_error when a block had missing calls. `covariates`: n × nc,
  /// row-major, host memory (null when nc = 0). Where S is resident (cuda), nothing n × n crosses
  /// to the host.
  void finish_gaussian_kernel(double gamma, const double* covariates, int64_t nc, double* K, int64_t ldk);
  /// Where the sums are being kept ("device" or "host"), for logs and tests.
  const char* residence() const;
  /// Variants added so far whose C products ran on the device's int8 route (for logs and tests).
  int64_t integer_route_variants() const;

  struct state;  ///< backend state (defined by the implementation)

 private:
  std::unique_ptr<state> s_;
};

}  // namespace pmx
