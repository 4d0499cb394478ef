// The upper triangle of a symmetric row-major matrix from its lower triangle, by 64 × 64 tiles:
// the row-by-row loop read each lower value from a different cache line (a column walk) and took
// 0.3 s for 22,016² doubles on 16 cores; inside a tile the 64 rows it reads stay in L1.
#pragma once
#include <algorithm>
#include <cstdint>

namespace pmx::detail {

template <class T>
void mirror_lower(T* a, int64_t n, int threads) {
  constexpr int64_t b = 64;
  const int64_t tiles = (n + b - 1) / b;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t I = 0; I < tiles; ++I)  // tile row I of the upper triangle: tiles (I, J >= I)
    for (int64_t J = I; J < tiles; ++J)
      for (int64_t i = I * b; i < std::min(n, (I + 1) * b); ++i)
        for (int64_t j = std::max(J * b, i + 1); j < std::min(n, (J + 1) * b); ++j) a[i * n + j] = a[j * n + i];
}

}  // namespace pmx::detail
