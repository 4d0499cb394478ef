// Plain loops over decoded dosages: the oracle.
#include <vector>

#include "ops/crossprod/kernels.hpp"

namespace pmx::kernels::reference {
namespace {

std::vector<int> decode(const packed_rows_view& g) {
  std::vector<int> x(static_cast<size_t>(g.n_rows * g.n_cols));
  for (int64_t r = 0; r < g.n_rows; ++r)
    for (int64_t c = 0; c < g.n_cols; ++c) x[r * g.n_cols + c] = dosage_of_code(g.code(r, c));
  return x;
}

void pair(const int* a, const int* b, int64_t cols, const crossprod_outputs& out, int64_t i, int64_t j,
          bool symmetric_part) {
  int64_t s = 0, n = 0, u = 0, v = 0, ut = 0, vt = 0;
  for (int64_t c = 0; c < cols; ++c) {
    if (a[c] < 0 || b[c] < 0) continue;
    s += a[c] * b[c], ++n;
    u += a[c], v += a[c] * a[c];
    ut += b[c], vt += b[c] * b[c];
  }
  const int64_t at = i * out.ld + j;
  if (symmetric_part) {
    if (out.S) out.S[at] += static_cast<int32_t>(s);
    if (out.N) out.N[at] += static_cast<int32_t>(n);
  }
  if (out.U) out.U[at] += static_cast<int32_t>(u);
  if (out.V) out.V[at] += static_cast<int32_t>(v);
  if (out.Ut) out.Ut[at] += static_cast<int32_t>(ut);
  if (out.Vt) out.Vt[at] += static_cast<int32_t>(vt);
}

}  // namespace

void crossprod(const executor&, const packed_rows_view& A, const packed_rows_view& B,
               const crossprod_outputs& out) {
  const auto xa = decode(A), xb = decode(B);
  for (int64_t i = 0; i < A.n_rows; ++i)
    for (int64_t j = 0; j < B.n_rows; ++j)
      pair(&xa[i * A.n_cols], &xb[j * B.n_cols], A.n_cols, out, i, j, true);
}

void crossprod_symmetric(const executor&, const packed_rows_view& A, const crossprod_outputs& out) {
  const auto x = decode(A);
  for (int64_t i = 0; i < A.n_rows; ++i)
    for (int64_t j = 0; j < A.n_rows; ++j)
      pair(&x[i * A.n_cols], &x[j * A.n_cols], A.n_cols, out, i, j, j <= i);
}

namespace {
// Plain loops over the table bytes: x = bit 0 + bit 1, x² = bit 0 + 3·bit 1, missing = bit 2.
void missing_sums(const uint8_t* table, int64_t ld, const int32_t* idx, int64_t count, int64_t len, int32_t* sx,
                  int32_t* sxx, int32_t* sm) {
  for (int64_t t = 0; t < len; ++t) {
    int64_t x = 0, xx = 0, m = 0;
    for (int64_t k = 0; k < count; ++k) {
      const uint8_t b = table[idx[k] * ld + t];
      x += (b & 1) + (b >> 1 & 1);
      xx += (b & 1) + 3 * (b >> 1 & 1);
      m += b >> 2 & 1;
    }
    sx[t] = static_cast<int32_t>(x);
    sxx[t] = static_cast<int32_t>(xx);
    if (sm) sm[t] = static_cast<int32_t>(m);
  }
}
}  // namespace

missing_sums_fn missing_sums_kernel(const executor&) { return missing_sums; }

}  // namespace pmx::kernels::reference
