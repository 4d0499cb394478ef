// Op: tile Cholesky factorisation with a precision per tile (the KRR paper's tile-centric adaptive
// precision; Cao et al. / Abdulah et al.), for solves that iterative refinement in FP64 finishes.
//
// The n × n symmetric positive definite A is cut into NT × NT tiles of `tile` rows (the last one
// smaller). Diagonal tiles are factorised and the panels solved in FP32 (on Hopper FP32 potrf is
// no faster than FP64; the speed is in the trailing updates). Each off-diagonal tile (i, j) has a
// precision P(i, j) ∈ {FP32, FP16, BF16, FP8 E4M3}:
//   - its entries of A are rounded to P(i, j) once, at the start;
//   - every trailing update A_ij −= L_ik L_jkᵀ runs with L_ik and L_jk rounded to P(i, j) and the
//     products accumulated in FP32 (what a tensor-core GEMM with FP32 accumulation does);
//   - the tile itself is kept in FP32 between updates.
// Low-precision operands are scaled by a power of two (max |entry| near the format's top) before
// rounding, so that nothing underflows; a power of two keeps the unscaling exact. FP8 operands
// (15 binades) are scaled per tile; FP16 and BF16 operands share one scale per panel (the panel
// below the diagonal tile), so that a block of tiles of one precision goes through one GEMM — their
// ranges (40 and 260 binades) dwarf a panel's. FP8 saturates at ±448 (as cuBLASLt's E4M3 does).
//
// Backends: reference (plain loops), cpu (BLAS sgemm/strsm/ssyrk, LAPACK spotrf; the rounding is
// emulated, so the cpu gives the numbers of the mixed-precision algorithm, not its speed), cuda
// (the factor stays on the device): cuSOLVER spotrf; the diagonal tile inverted once (cuBLAS strsm
// on the identity) for the panel and for the solves; FP32 products (panels, diagonal and FP32
// tiles) as split-FP32 products on FP16 tensor cores (x·2^s = hi + lo in FP16, the three passes
// hi·hi + hi·lo + lo·hi in one GEMM: about 2^-21 relative to the panel's scale instead of FP32's
// 2^-24, at five to seven times cuBLAS SGEMM's rate on Hopper); FP16/BF16 through cublasGemmEx, one GEMM per block of tiles of a
// precision; FP8 E4M3 through cuBLASLt per tile. Solves: the FP32 factor by tiles (inverse of the
// diagonal tile, then the panel's GEMM), reading the factor at memory speed where a left-side
// cublasStrsm with a few right-hand sides runs at a tenth of it.
//
// Over the ranks of a run (the `over_ranks` forms; cuda, one GPU per rank): the tile-cyclic
// layout — tile column j (and, A being symmetric, tile row j) on rank j mod P, so that every rank
// keeps work to the last steps of the right-looking factorisation. Per step k the owner of column k
// factorises the diagonal tile and solves the panel, NCCL broadcasts the FP32 panel, and every rank
// makes the low-precision operands from it and updates its own columns (one GEMM per column and
// precision block). Solves: forward by tiles with an NCCL sum of the ranks' partial products to the
// owner of each block, backward with a broadcast of each solved block; residuals by rows, gathered.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx {

/// Storage/arithmetic precisions of a tile, from the most to the least precise.
enum class tile_precision : uint8_t { fp32, fp16, bf16, fp8 };

/// Tag of the forms that work on a matrix spread over the ranks of the executor's communicator.
struct over_ranks_t {
  explicit over_ranks_t() = default;
};
inline constexpr over_ranks_t over_ranks{};

/// Columns of an n × n matrix that rank `rank` of `ranks` holds in the tile-cyclic layout (tiles of
/// `tile` columns, tile j on rank j mod ranks): the sum of its tiles' widths. Its part of the
/// matrix is those columns in order, column-major (n rows, leading dimension >= n) — the same array
/// as those rows, row-major, for a symmetric matrix.
int64_t tile_cyclic_width(int64_t n, int64_t tile, int rank, int ranks);

/// Unit roundoff u of a precision: 2^-24, 2^-11, 2^-8, 2^-4 (E4M3 has 3 mantissa bits).
double unit_roundoff(tile_precision p);
/// "fp32", "fp16", "bf16", "fp8".
const char* precision_name(tile_precision p);
/// x rounded to nearest (ties to even) in precision p; fp8 saturates at ±448, fp16 overflows to ±inf.
float round_to_precision(float x, tile_precision p);

/// The precisions of the lower tiles of an n × n matrix cut in tiles of `tile` rows.
struct tile_precision_map {
  int64_t n = 0, tile = 0, tiles = 0;
  std::vector<tile_precision> p;  ///< tiles × tiles, row-major; only i >= j is meaningful

  tile_precision at(int64_t i, int64_t j) const { return p[static_cast<size_t>(i * tiles + j)]; }
  /// Count of the lower off-diagonal tiles at precision q.
  int64_t count(tile_precision q) const;
  /// A map with every tile at FP32.
  static tile_precision_map uniform(int64_t n, int64_t tile);
};

/// The paper's rule on A + shift·I: diagonal tiles FP32; off-diagonal tile (i, j) at the least
/// precise of FP8/BF16/FP16/FP32 (no lower than `lowest`) with ‖A_ij‖_F · NT / ‖A + shift·I‖_F <
/// epsilon / u, else FP32. A is column-major (leading dimension lda); a symmetric row-major matrix
/// is the same array; only the lower tiles are read. Host memory, or device memory on cuda.
tile_precision_map choose_tile_precisions(const executor& exec, const double* A, int64_t lda, int64_t n,
                                          double shift, int64_t tile, double epsilon,
                                          tile_precision lowest = tile_precision::fp8);

/// The same rule on a matrix in the tile-cyclic layout over the ranks of exec.comm(): A is this
/// rank's columns (n × tile_cyclic_width, leading dimension lda). Collective; the same map on every
/// rank.
tile_precision_map choose_tile_precisions(const executor& exec, over_ranks_t, const double* A, int64_t lda, int64_t n,
                                          double shift, int64_t tile, double epsilon,
                                          tile_precision lowest = tile_precision::fp8);

/// The factor L of A + shift·I (≈ L Lᵀ) at the precisions of a map, solves with it, and the FP64
/// products with A + shift·I that iterative refinement needs.
class tile_cholesky {
 public:
  /// Factorises A + shift·I (A n × n, column-major, leading dimension lda; host memory, or device
  /// memory on cuda; only the lower triangle is read by the factorisation). A is not changed and
  /// must stay alive and unchanged while this object is used (residual() reads it). Throws
  /// numeric_error naming the row where a pivot is not positive (not positive definite as rounded).
  tile_cholesky(const executor& exec, int64_t n, const double* A, int64_t lda, double shift,
                const tile_precision_map& map);
  /// The same over the ranks of exec.comm(): A is this rank's columns in the tile-cyclic layout of
  /// the map's tile (n × tile_cyclic_width, leading dimension lda), each rank keeps its columns of
  /// L, and solve(), residual() and norm_inf() are collective, with the same inputs and results on
  /// every rank. One rank: the form above. Several: cuda only (unsupported_error otherwise).
  tile_cholesky(const executor& exec, over_ranks_t, int64_t n, const double* A, int64_t lda, double shift,
                const tile_precision_map& map);
  ~tile_cholesky();
  tile_cholesky(const tile_cholesky&) = delete;
  tile_cholesky& operator=(const tile_cholesky&) = delete;

  /// B ← (L Lᵀ)⁻¹ B for B n × m, column-major (ldb), host memory: triangular solves in FP32
  /// (B rounded to FP32 on the way in).
  void solve(double* B, int64_t ldb, int64_t m) const;
  /// R = Y − (A + shift·I) W in FP64 (full A, both triangles read); W, Y, R n × m column-major with
  /// leading dimension n, host memory.
  void residual(const double* W, const double* Y, double* R, int64_t m) const;
  /// ‖A + shift·I‖∞ (the largest absolute row sum).
  double norm_inf() const;

  int64_t n() const;
  const tile_precision_map& map() const;
  /// Wall seconds of the factorisation's stages (cuda: loading and rounding, diagonal factors,
  /// panel solves, conversions, trailing updates; the host backends: one stage).
  const std::vector<std::pair<std::string, double>>& stage_seconds() const;

  /// Backend state (defined by each backend).
  class factor;

 private:
  std::unique_ptr<factor> f_;
  tile_precision_map map_;
};

}  // namespace pmx
