// tile_cholesky in plain loops, the oracle of the other backends: the same tile algorithm and the
// same rounding of operands, with textbook Cholesky, substitution and products in FP32.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/tile_cholesky/kernels.hpp"

namespace pmx::kernels::reference {

void tile_cholesky_factor(const executor&, const tile_precision_map& map, float* L) {
  const int64_t n = map.n, tile = map.tile, nt = map.tiles;
  auto l = [&](int64_t r, int64_t c) -> float& { return L[c * n + r]; };
  std::vector<float> a, b;
  for (int64_t k = 0; k < nt; ++k) {
    const int64_t k0 = k * tile, kb = pmx::detail::tile_rows(n, tile, k);
    for (int64_t c = k0; c < k0 + kb; ++c) {  // Cholesky–Crout inside the diagonal tile
      float d = l(c, c);
      for (int64_t t = k0; t < c; ++t) d -= l(c, t) * l(c, t);
      if (!(d > 0)) pmx::detail::throw_not_positive_definite(c, tile, n);
      l(c, c) = std::sqrt(d);
      for (int64_t r = c + 1; r < k0 + kb; ++r) {
        float v = l(r, c);
        for (int64_t t = k0; t < c; ++t) v -= l(r, t) * l(c, t);
        l(r, c) = v / l(c, c);
      }
    }
    for (int64_t r = k0 + kb; r < n; ++r)  // panel: forward substitution of each row against L_kk
      for (int64_t c = k0; c < k0 + kb; ++c) {
        float v = l(r, c);
        for (int64_t t = k0; t < c; ++t) v -= l(r, t) * l(c, t);
        l(r, c) = v / l(c, c);
      }
    // FP16/BF16 operands share the scale of the whole panel below the diagonal tile.
    float panel_amax = 0;
    for (int64_t c = k0; c < k0 + kb; ++c)
      for (int64_t r = k0 + kb; r < n; ++r) panel_amax = std::max(panel_amax, std::fabs(l(r, c)));
    for (int64_t j = k + 1; j < nt; ++j)
      for (int64_t i = j; i < nt; ++i) {
        const int64_t ib = pmx::detail::tile_rows(n, tile, i), jb = pmx::detail::tile_rows(n, tile, j);
        const tile_precision q = i == j ? tile_precision::fp32 : map.at(i, j);
        const float amax = pmx::detail::scaled_per_panel(q) ? panel_amax : -1;
        a.resize(static_cast<size_t>(ib * kb)), b.resize(static_cast<size_t>(jb * kb));
        pmx::detail::round_tile(&l(i * tile, k0), n, ib, kb, q, a.data(), ib, amax);
        pmx::detail::round_tile(&l(j * tile, k0), n, jb, kb, q, b.data(), jb, amax);
        for (int64_t c = 0; c < jb; ++c)
          for (int64_t r = i == j ? c : 0; r < ib; ++r) {
            float s = 0;
            for (int64_t t = 0; t < kb; ++t) s += a[t * ib + r] * b[t * jb + c];
            l(i * tile + r, j * tile + c) -= s;
          }
      }
  }
}

void tile_cholesky_solve(const executor&, int64_t n, const float* L, double* B, int64_t ldb, int64_t m) {
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t c = 0; c < m; ++c) {
    for (int64_t r = 0; r < n; ++r) x[r] = static_cast<float>(B[c * ldb + r]);
    for (int64_t r = 0; r < n; ++r) {  // L y = b
      float v = x[r];
      for (int64_t t = 0; t < r; ++t) v -= L[t * n + r] * x[t];
      x[r] = v / L[r * n + r];
    }
    for (int64_t r = n - 1; r >= 0; --r) {  // Lᵀ x = y
      float v = x[r];
      for (int64_t t = r + 1; t < n; ++t) v -= L[r * n + t] * x[t];
      x[r] = v / L[r * n + r];
    }
    for (int64_t r = 0; r < n; ++r) B[c * ldb + r] = x[r];
  }
}

}  // namespace pmx::kernels::reference
