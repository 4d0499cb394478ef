// sample_sums on the host: each block through the ops that compute its parts (C by
// table_crossprod, S and N by crossprod_symmetric on the block transposed to sample-major rows, a
// by table_rowsums) on the executor given: the cpu one, or a cuda one whose blocks do not fit the
// device sums (cuda.cu).
#include <algorithm>
#include <cmath>

#include "ops/sample_sums/kernels.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx::kernels {

void add_uniform_pairs(const executor& exec, int64_t n, int32_t* N, int64_t ld, int32_t k) {
#pragma omp parallel for schedule(dynamic, 64) num_threads(std::max(1, exec.threads()))
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) N[i * ld + j] += k;
}

void gaussian_kernel_from_sums(const executor& exec, int64_t n, const int32_t* S, int64_t ld, double gamma,
                               const double* covariates, int64_t nc, double* K, int64_t ldk) {
#pragma omp parallel for schedule(dynamic, 64) num_threads(std::max(1, exec.threads()))
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t hi = std::max(i, j), lo = std::min(i, j);
      double d = double(S[i * ld + i]) + double(S[j * ld + j]) - 2.0 * double(S[hi * ld + lo]);
      for (int64_t k = 0; k < nc; ++k) {  // the same operations for (i, j) and (j, i): K symmetric
        const double e = covariates[hi * nc + k] - covariates[lo * nc + k];
        d += e * e;
      }
      K[i * ldk + j] = std::exp(-gamma * d);
    }
}

namespace cpu {

void sample_sums_add(const executor& exec, const variant_major_view& g, std::span<const code_table> c_tables,
                     std::span<const code_table> a_tables, const sample_sums_outputs& out) {
  if (out.C) pmx::table_crossprod(exec, g, c_tables, out.C, out.ld);
  if (out.S || out.N) {
    const packed_rows t = transpose_to_sample_major(g, exec.threads());
    pmx::crossprod_symmetric(exec, t.view(), {.S = out.S, .N = out.N, .ld = out.ld});
  }
  if (out.a) pmx::table_rowsums(exec, g, a_tables, std::span<double>(out.a, static_cast<size_t>(g.n_samples)));
}

}  // namespace cpu
}  // namespace pmx::kernels
