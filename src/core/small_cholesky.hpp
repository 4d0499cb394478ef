// Cholesky factor of a small dense SPD matrix (t × t trait (co)variances, per-animal blocks):
// plain loops, no BLAS call overhead for a 3 × 3.
#pragma once
#include <cmath>

namespace pmx::detail {

/// L (m × m, row-major, lower triangle written) with a = L Lᵀ, from a's lower triangle. Returns 0,
/// or the order of the first leading minor whose pivot is not > rel_tol · a_jj (and > 0): the
/// matrix is not (numerically) positive definite.
inline int small_cholesky(const double* a, int m, double* L, double rel_tol = 0) {
  for (int j = 0; j < m; ++j) {
    double d = a[j * m + j];
    for (int k = 0; k < j; ++k) d -= L[j * m + k] * L[j * m + k];
    if (!(d > rel_tol * std::abs(a[j * m + j])) || !(d > 0)) return j + 1;
    d = std::sqrt(d);
    L[j * m + j] = d;
    for (int i = j + 1; i < m; ++i) {
      double s = a[i * m + j];
      for (int k = 0; k < j; ++k) s -= L[i * m + k] * L[j * m + k];
      L[i * m + j] = s / d;
    }
  }
  return 0;
}

}  // namespace pmx::detail
