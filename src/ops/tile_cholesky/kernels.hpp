// Backend kernels of tile_cholesky (signatures once; validated and dispatched by tile_cholesky.cpp).
// Every backend computes the same algorithm's numbers (tile_cholesky.hpp) in its own arithmetic
// order. The host backends keep the factor as an n × n column-major FP32 array (its lower
// triangle); cuda keeps it on the device.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "panoramix/ops/tile_cholesky.hpp"

namespace pmx {

class tile_cholesky::factor {
 public:
  virtual ~factor() = default;
  virtual void solve(double* B, int64_t ldb, int64_t m) const = 0;
  virtual void residual(const double* W, const double* Y, double* R, int64_t m) const = 0;
  virtual double norm_inf() const = 0;
  std::vector<std::pair<std::string, double>> stages;  ///< filled by the factorisation
};

namespace detail {

/// dst (rows × cols, column-major, ld_dst) = src rounded to p after a power-of-two scaling that
/// brings `amax` (by default the tile's largest |entry|) near the top of p's range (then unscaled:
/// exact). In place when dst == src with equal leading dimensions.
void round_tile(const float* src, int64_t ld_src, int64_t rows, int64_t cols, tile_precision p, float* dst,
                int64_t ld_dst, float amax = -1);
/// Largest |entry| of a rows × cols block (column-major, ld).
float block_amax(const float* src, int64_t ld, int64_t rows, int64_t cols);
/// Whether the trailing-update operands of precision p share one scale per panel (FP16, BF16: a
/// column's tiles then go through one GEMM; their ranges dwarf a panel's) or have one per tile
/// (FP8 E4M3, whose 15 binades do not).
inline bool scaled_per_panel(tile_precision p) { return p == tile_precision::fp16 || p == tile_precision::bf16; }
/// The power of two that scale_tile and round_tile use for a tile whose largest |entry| is amax.
int precision_scale_shift(float amax, tile_precision p);
/// Top of the scaled range of p and its format (for device kernels that round the same way).
double precision_scale_top(tile_precision p);

/// Rows of tile t: [t * tile, min(n, (t + 1) * tile)).
inline int64_t tile_rows(int64_t n, int64_t tile, int64_t t) {
  const int64_t first = t * tile;
  return (first + tile <= n ? tile : n - first);
}

/// Squared Frobenius norms of the lower tiles of A + shift·I (host memory): tiles × tiles, row-major.
/// With ranks > 1, A holds rank `rank`'s columns in the tile-cyclic layout and only the tiles of
/// those columns are filled (the others 0: a sum over the ranks gives every tile).
std::vector<double> tile_norms2_host(const double* A, int64_t lda, int64_t n, int64_t tile, double shift, int threads,
                                     int rank = 0, int ranks = 1);

/// The precision rule on tile norms (choose_tile_precisions' second half).
tile_precision_map precisions_from_norms(int64_t n, int64_t tile, const std::vector<double>& norm2, double epsilon,
                                         tile_precision lowest);

[[noreturn]] void throw_not_positive_definite(int64_t row, int64_t tile, int64_t n);

}  // namespace detail

namespace kernels {
// Host backends: factorise / solve on an FP32 array loaded by tile_cholesky.cpp (A + shift·I,
// off-diagonal tiles rounded).
#define PMX_TILE_CHOLESKY_HOST_KERNELS                                                             \
  void tile_cholesky_factor(const executor& exec, const tile_precision_map& map, float* L);        \
  void tile_cholesky_solve(const executor& exec, int64_t n, const float* L, double* B, int64_t ldb, \
                           int64_t m)
namespace reference { PMX_TILE_CHOLESKY_HOST_KERNELS; }  // plain loops
namespace cpu { PMX_TILE_CHOLESKY_HOST_KERNELS; }        // BLAS/LAPACK in FP32, rounding emulated
#undef PMX_TILE_CHOLESKY_HOST_KERNELS
namespace cuda {  // cuda.cu, or cuda_stub.cpp
/// The factor; `over_ranks`: A is this rank's columns in the tile-cyclic layout over exec.comm().
std::unique_ptr<tile_cholesky::factor> tile_cholesky_factor(const executor& exec, int64_t n, const double* A,
                                                            int64_t lda, double shift, const tile_precision_map& map,
                                                            bool over_ranks);
/// tile_norms2_host's numbers for A in host or device memory.
std::vector<double> tile_norms2(const executor& exec, const double* A, int64_t lda, int64_t n, int64_t tile,
                                double shift, int rank = 0, int ranks = 1);
}  // namespace cuda
}  // namespace kernels
}  // namespace pmx
