// Op: products of a genotype matrix decoded through per-variant code tables.
//
// Each variant l maps its four 2-bit codes to four doubles T[l][code] (indexed by the .bed code:
// 0 hom A1, 1 missing, 2 het, 3 hom A2). That single device expresses centring, scaling and the
// treatment of missing calls: e.g. the variance-standardised z = (x - 2p)/sqrt(2p(1-p)) with 0 for
// missing, or VanRaden's mean-imputed x - 2p. Z[i][l] = T[l][code(i,l)].
#pragma once
#include <array>
#include <cstdint>
#include <span>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx {

using code_table = std::array<double, 4>;

/// C[i][j] += Σ_l Z[i][l] Z[j][l] for i >= j (lower triangle of row-major C, leading dim ld).
void table_crossprod(const executor& exec, const variant_major_view& g,
                     std::span<const code_table> tables, double* C, int64_t ld);

/// y[i] += Σ_l Z[i][l]  (row sums of the decoded matrix; y has n entries).
void table_rowsums(const executor& exec, const variant_major_view& g,
                   std::span<const code_table> tables, std::span<double> y);

/// Terms that involve missing calls only (sparse in practice: work ∝ n × number of missing calls):
///   Y[j][i] += Σ_{l : j missing at l} Z[i][l]          (all i, j; row-major, leading dim ld)
///   R[i][j] += Σ_{l : i and j missing at l} r[l]       (lower triangle i >= j)
void missing_crossprod(const executor& exec, const variant_major_view& g,
                       std::span<const code_table> tables, std::span<const double> r, double* Y,
                       double* R, int64_t ld);

}  // namespace pmx
