// Backend kernels of tile_cholesky (signatures once; validated and dispatched by tile_cholesky.cpp).
// The factor is an n × n column-major FP32 array on the host (its lower triangle); every backend
// writes the same algorithm's numbers (tile_cholesky.hpp), each with its own arithmetic order.
#pragma once
#include <cstdint>

#include "panoramix/ops/tile_cholesky.hpp"

namespace pmx::detail {

/// dst (rows × cols, column-major, ld_dst) = src rounded to p after a power-of-two scaling that
/// brings the tile's largest |entry| near the top of p's range (then unscaled: exact). In place
/// when dst == src with equal leading dimensions.
void round_tile(const float* src, int64_t ld_src, int64_t rows, int64_t cols, tile_precision p, float* dst,
                int64_t ld_dst);

/// Rows of tile t: [t * tile, min(n, (t + 1) * tile)).
inline int64_t tile_rows(int64_t n, int64_t tile, int64_t t) {
  const int64_t first = t * tile;
  return (first + tile <= n ? tile : n - first);
}

/// L's lower triangle from A's (float), off-diagonal tiles rounded to their precision.
void load_rounded(const double* A, int64_t lda, const tile_precision_map& map, float* L, int threads);

/// Thrown text when the pivot of row `row` (0-based, global) is not positive.
[[noreturn]] void throw_not_positive_definite(int64_t row, int64_t tile, int64_t n);

}  // namespace pmx::detail

namespace pmx::kernels {
#define PMX_TILE_CHOLESKY_KERNELS                                                                  \
  void tile_cholesky_factor(const executor& exec, const tile_precision_map& map, float* L);        \
  void tile_cholesky_solve(const executor& exec, int64_t n, const float* L, double* B, int64_t ldb, \
                           int64_t m)
namespace reference { PMX_TILE_CHOLESKY_KERNELS; }  // plain loops
namespace cpu { PMX_TILE_CHOLESKY_KERNELS; }        // BLAS/LAPACK in FP32, rounding emulated
#undef PMX_TILE_CHOLESKY_KERNELS
}  // namespace pmx::kernels
