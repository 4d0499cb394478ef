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

}  // namespace pmx
