// Plain loops in long double: the oracle of the cpu backend. Z[i][j] = s_j (x_ij − 2 p_j) for a
// called genotype and exactly 0 for a missing call (p_j is not even read then).
#include <vector>

#include "ops/genotype_gemm/kernels.hpp"

namespace pmx::kernels::reference {
namespace {

long double z_of(const variant_major_view& g, const gemm_centring& c, int64_t i, int64_t j,
                 bool& called) {
  const int x = dosage_of_code(g.code(i, j));
  called = x >= 0;
  if (!called) return 0;
  const long double s = c.scale.empty() ? 1.0L : static_cast<long double>(c.scale[j]);
  return s * (static_cast<long double>(x) - 2.0L * static_cast<long double>(c.p[j]));
}

void store(std::vector<long double>& acc, int64_t rows, int64_t l, double beta, double* out,
           int64_t ld) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < l; ++c) {
      long double v = acc[r * l + c];
      if (beta != 0) v += static_cast<long double>(beta) * out[r * ld + c];
      out[r * ld + c] = static_cast<double>(v);
    }
}

}  // namespace

void gemm(const executor&, const variant_major_view& g, const gemm_centring& c, int64_t l,
          const double* lambda, int64_t ld_lambda, double beta, double* Y, int64_t ld_y) {
  std::vector<long double> acc(static_cast<size_t>(g.n_samples * l), 0.0L);
  for (int64_t i = 0; i < g.n_samples; ++i)
    for (int64_t j = 0; j < g.n_variants; ++j) {
      bool called;
      const long double z = z_of(g, c, i, j, called);
      if (!called) continue;
      for (int64_t col = 0; col < l; ++col) acc[i * l + col] += z * lambda[j * ld_lambda + col];
    }
  store(acc, g.n_samples, l, beta, Y, ld_y);
}

void gemm_transposed(const executor&, const variant_major_view& g, const gemm_centring& c,
                     int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* W,
                     int64_t ld_w) {
  std::vector<long double> acc(static_cast<size_t>(g.n_variants * l), 0.0L);
  for (int64_t j = 0; j < g.n_variants; ++j)
    for (int64_t i = 0; i < g.n_samples; ++i) {
      bool called;
      const long double z = z_of(g, c, i, j, called);
      if (!called) continue;
      for (int64_t col = 0; col < l; ++col) acc[j * l + col] += z * lambda[i * ld_lambda + col];
    }
  store(acc, g.n_variants, l, beta, W, ld_w);
}

}  // namespace pmx::kernels::reference
