// Op: exact integer crossproducts of 2-bit genotype rows (M·Mᵀ over samples for GRMs, Mᵀ·M over
// variants for LD) with the companion sums that calls missing at random require.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx {

/// Which sums to accumulate (+=) for row a of A and row b of B, over the columns c; null pointers
/// are skipped. x = A1 dosage (0 where missing), called = 1 where the call is not missing.
///   S[a][b] = Σ_c x_ac x_bc
///   N[a][b] = Σ_c called_ac called_bc        (columns called in both rows)
///   U[a][b] = Σ_c x_ac called_bc             (sum of row a over the columns row b has called)
///   V[a][b] = Σ_c x_ac² called_bc
///   Ut[a][b] = Σ_c called_ac x_bc            (U of the pair seen from b: what LD needs for B)
///   Vt[a][b] = Σ_c called_ac x_bc²
/// Row-major outputs with leading dimension ld. int32 holds them for up to 2^29 columns per call;
/// callers stream longer inputs in blocks and accumulate.
struct crossprod_outputs {
  int32_t* S = nullptr;
  int32_t* N = nullptr;
  int32_t* U = nullptr;
  int32_t* V = nullptr;
  int32_t* Ut = nullptr;
  int32_t* Vt = nullptr;
  int64_t ld = 0;
};

/// Rows of A against rows of B (A.n_cols == B.n_cols): out[a * ld + b].
void crossprod(const executor& exec, const packed_rows_view& A, const packed_rows_view& B,
               const crossprod_outputs& out);

/// Rows of A against themselves. S and N are symmetric: only their lower triangle (a >= b) is
/// updated. U and V are not symmetric and are updated in full (Ut and Vt, their transposes,
/// must be null).
void crossprod_symmetric(const executor& exec, const packed_rows_view& A, const crossprod_outputs& out);

/// Sparse companion sums: for pairs of rows with missing calls, N, U, V and their transposes
/// differ from row constants only at the columns one row misses, so they follow from sums over
/// those columns of the other rows. The rows are kept as a sample-major byte table (one byte per
/// call, missing_table_code[.bed code]: bit 0 = x >= 1, bit 1 = x == 2, bit 2 = missing).
constexpr uint8_t missing_table_code[4] = {3, 4, 1, 0};
/// For t in [0, len): sx[t] = Σ_k x(table[idx[k] * ld + t]), sxx[t] = Σ_k x², sm[t] = Σ_k missing
/// (set, not accumulated; sm may be null). Any count; sums are exact in int32 for count < 2^29.
using missing_sums_fn = void (*)(const uint8_t* table, int64_t ld, const int32_t* idx, int64_t count,
                                 int64_t len, int32_t* sx, int32_t* sxx, int32_t* sm);
/// The kernel of `exec` (the cpu backend's instruction-set build), looked up once for a loop of
/// many small calls. The table is host memory: a cuda executor's kernel is its host one.
missing_sums_fn missing_sums_kernel(const executor& exec);

}  // namespace pmx
