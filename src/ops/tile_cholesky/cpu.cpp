// tile_cholesky on the host: right-looking tile Cholesky with FP32 BLAS/LAPACK; the trailing GEMM
// of an off-diagonal tile takes its operands rounded to that tile's precision (emulating the
// tensor-core GEMM, whose products of such operands are exact and accumulate in FP32).
#include <cblas.h>

#include <climits>
#include <string>
#include <vector>

#include "core/blas_threads.hpp"
#include "ops/tile_cholesky/kernels.hpp"
#include "panoramix/error.hpp"

extern "C" {
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
}

namespace pmx::kernels::cpu {

void tile_cholesky_factor(const executor& exec, const tile_precision_map& map, float* L) {
  const pmx::detail::blas_threads threads(exec.threads());
  const int64_t n = map.n, tile = map.tile, nt = map.tiles;
  if (n > INT_MAX) throw unsupported_error("matrix order exceeds LAPACK's 32-bit integers");
  const int ld = static_cast<int>(n);
  auto at = [&](int64_t i, int64_t j) { return L + (j * tile) * n + i * tile; };
  constexpr tile_precision low[] = {tile_precision::fp16, tile_precision::bf16, tile_precision::fp8};
  std::vector<float> rounded;  // the panel below the diagonal tile, once per low precision used
  for (int64_t k = 0; k < nt; ++k) {
    const int kb = static_cast<int>(pmx::detail::tile_rows(n, tile, k));
    int info = 0;
    spotrf_("L", &kb, at(k, k), &ld, &info);
    if (info > 0) pmx::detail::throw_not_positive_definite(k * tile + info - 1, tile, n);
    if (info < 0) throw logic_error("spotrf: argument " + std::to_string(-info) + " invalid");
    const int64_t below = n - (k + 1) * tile;
    if (below <= 0) break;
    // Panel: L_ik = A_ik L_kk⁻ᵀ for every tile below the diagonal at once.
    cblas_strsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, static_cast<int>(below), kb, 1.0f,
                at(k, k), ld, at(k + 1, k), ld);
    // Rounded copies of the panel (below × kb, leading dimension below) for the precisions in use.
    int64_t slot[4] = {-1, -1, -1, -1};
    int64_t used = 0;
    for (tile_precision q : low) {
      bool needed = false;
      for (int64_t i = k + 2; i < nt && !needed; ++i)
        for (int64_t j = k + 1; j < i && !needed; ++j) needed = map.at(i, j) == q;
      if (needed) slot[static_cast<int>(q)] = used++;
    }
    rounded.resize(static_cast<size_t>(used * below * kb));
    for (tile_precision q : low) {
      const int64_t s = slot[static_cast<int>(q)];
      if (s < 0) continue;
      float* panel = rounded.data() + s * below * kb;
      const float amax = pmx::detail::scaled_per_panel(q) ? pmx::detail::block_amax(at(k + 1, k), n, below, kb) : -1;
      for (int64_t i = k + 1; i < nt; ++i) {
        const int64_t rows = pmx::detail::tile_rows(n, tile, i);
        pmx::detail::round_tile(at(i, k), n, rows, kb, q, panel + (i - k - 1) * tile, below, amax);
      }
    }
    // Trailing update of the lower tiles (j <= i) right of the panel.
    for (int64_t j = k + 1; j < nt; ++j) {
      const int jb = static_cast<int>(pmx::detail::tile_rows(n, tile, j));
      cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, jb, kb, -1.0f, at(j, k), ld, 1.0f, at(j, j), ld);
      for (int64_t i = j + 1; i < nt; ++i) {
        const int ib = static_cast<int>(pmx::detail::tile_rows(n, tile, i));
        const tile_precision q = map.at(i, j);
        const float *a = at(i, k), *b = at(j, k);
        int lda = ld, ldb = ld;
        if (q != tile_precision::fp32) {
          const float* panel = rounded.data() + slot[static_cast<int>(q)] * below * kb;
          a = panel + (i - k - 1) * tile, b = panel + (j - k - 1) * tile;
          lda = ldb = static_cast<int>(below);
        }
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, ib, jb, kb, -1.0f, a, lda, b, ldb, 1.0f, at(i, j), ld);
      }
    }
  }
}

void tile_cholesky_solve(const executor& exec, int64_t n, const float* L, double* B, int64_t ldb, int64_t m) {
  const pmx::detail::blas_threads threads(exec.threads());
  std::vector<float> x(static_cast<size_t>(n * m));
  for (int64_t c = 0; c < m; ++c)
    for (int64_t r = 0; r < n; ++r) x[c * n + r] = static_cast<float>(B[c * ldb + r]);
  const int ni = static_cast<int>(n), mi = static_cast<int>(m);
  cblas_strsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, ni, mi, 1.0f, L, ni, x.data(), ni);
  cblas_strsm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, ni, mi, 1.0f, L, ni, x.data(), ni);
  for (int64_t c = 0; c < m; ++c)
    for (int64_t r = 0; r < n; ++r) B[c * ldb + r] = x[c * n + r];
}

}  // namespace pmx::kernels::cpu
