// Dense relationship matrices of small pedigrees: A by the tabular method and the single-step H.
#include "panoramix/single_step_h.hpp"


#include <algorithm>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/pedigree.hpp"

namespace pmx {

std::vector<double> relationship_matrix(const pedigree& ped, const std::vector<int64_t>& subset_in) {
  const int64_t n = ped.size();
  std::vector<int64_t> subset = subset_in;
  if (subset.empty()) {
    subset.resize(n);
    for (int64_t i = 0; i < n; ++i) subset[i] = i;
  }
  // The subset and its ancestors, in pedigree order (parents first).
  std::vector<char> need(n, 0);
  for (int64_t s : subset) {
    PMX_EXPECTS(s >= 0 && s < n, "subset index out of range");
    need[s] = 1;
  }
  for (int64_t i = n - 1; i >= 0; --i)
    if (need[i]) {
      if (ped.sire(i) != pedigree::unknown) need[ped.sire(i)] = 1;
      if (ped.dam(i) != pedigree::unknown) need[ped.dam(i)] = 1;
    }
  std::vector<int64_t> local(n, -1), members;
  for (int64_t i = 0; i < n; ++i)
    if (need[i]) {
      local[i] = static_cast<int64_t>(members.size());
      members.push_back(i);
    }
  const int64_t m = static_cast<int64_t>(members.size());

  // Tabular method: a_ij = (a_j,sire(i) + a_j,dam(i)) / 2 for j < i, a_ii = 1 + a_sire,dam / 2.
  std::vector<double> T(m * m, 0.0);
  for (int64_t u = 0; u < m; ++u) {
    const int64_t i = members[u];
    const int64_t s = ped.sire(i) == pedigree::unknown ? -1 : local[ped.sire(i)];
    const int64_t d = ped.dam(i) == pedigree::unknown ? -1 : local[ped.dam(i)];
    for (int64_t v = 0; v < u; ++v) {
      const double a = 0.5 * ((s >= 0 ? T[v * m + s] : 0.0) + (d >= 0 ? T[v * m + d] : 0.0));
      T[u * m + v] = T[v * m + u] = a;
    }
    T[u * m + u] = 1.0 + (s >= 0 && d >= 0 ? 0.5 * T[s * m + d] : 0.0);
  }
  const int64_t k = static_cast<int64_t>(subset.size());
  std::vector<double> A(k * k);
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b < k; ++b) A[a * k + b] = T[local[subset[a]] * m + local[subset[b]]];
  return A;
}

std::vector<double> single_step_h(const executor& exec, int64_t n, const std::vector<double>& A,
                                  const std::vector<int64_t>& genotyped,
                                  const std::vector<double>& G) {
  const int64_t k = static_cast<int64_t>(genotyped.size());
  PMX_EXPECTS(static_cast<int64_t>(A.size()) == n * n, "A must be n x n");
  PMX_EXPECTS(static_cast<int64_t>(G.size()) == k * k, "G must be k x k for k genotyped animals");
  {
    std::vector<char> seen(n, 0);
    for (int64_t g : genotyped) {
      PMX_EXPECTS(g >= 0 && g < n, "genotyped index out of range");
      PMX_EXPECTS(!seen[g], "genotyped index listed twice");
      seen[g] = 1;
    }
  }
  std::vector<double> H = A;
  if (k == 0) return H;
  // Column-major k × k A₂₂ and k × n B = A₂. (column c of B = A[genotyped, c]); A is symmetric,
  // so row g of A read along c is that column.
  std::vector<double> A22(k * k), X(k * n), Gm(k * k);
  for (int64_t c = 0; c < k; ++c)
    for (int64_t r = 0; r < k; ++r) {
      A22[c * k + r] = A[genotyped[r] * n + genotyped[c]];
      Gm[c * k + r] = G[r * k + c] - A22[c * k + r];  // G − A₂₂
    }
  for (int64_t c = 0; c < n; ++c)
    for (int64_t r = 0; r < k; ++r) X[c * k + r] = A[genotyped[r] * n + c];
  cholesky_solve(exec, k, A22.data(), k, n, X.data(), k);  // X = A₂₂⁻¹ A₂.
  // Y = (G − A₂₂) X (k × n), then H += Xᵀ Y (row-major n × n, symmetric).
  std::vector<double> Y(k * n);
  dense_gemm(exec.host(), false, false, k, n, k, 1.0, Gm.data(), k, X.data(), k,
              0.0, Y.data(), k);
  dense_gemm(exec.host(), true, false, n, n, k, 1.0, X.data(), k, Y.data(), k, 1.0,
              H.data(), n);
  // The genotyped block is G itself: set it exactly rather than through A₂₂ + (G − A₂₂).
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b < k; ++b) H[genotyped[a] * n + genotyped[b]] = G[a * k + b];
  return H;
}

}  // namespace pmx
