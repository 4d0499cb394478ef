// INT8 tensor-core route of the CUDA genotype × dense products, for operands made with
// gemm_accuracy::normwise (PCG's matrix–vector products): cuda_int8.cu.
//
// Z = M∘(X − 2p1ᵀ)S splits into integer matrices times double vectors:
//   Z·Λ  = X·(SΛ) − 1·(1ᵀD) + Miss·D,                 D = diag(2p)SΛ
//   Zᵀ·Λ̃ = S(XᵀΛ̃ − diag(2p)(1·1ᵀΛ̃ − MissᵀΛ̃))
// with X the A1 counts (0 for a missing call) and Miss the missing-call indicator, both exact small
// integers decoded from the 2-bit codes. Each column of SΛ, D or Λ̃ is cut into 8 signed base-128
// digits under one power of two per column (Ozaki's splitting), so X·digits and Miss·digits are
// exact int32 products on the INT8 tensor cores (mma m16n8k32, one 8-column n-tile per column of
// Λ: its 8 digits). The integer sums are combined in double at the end; the centring cancels in
// integers, before any rounding.
//
// Why: the FP64 routes are bound by producing one 8-byte A element per genotype (a shared-memory
// lookup or arithmetic, ≥ 5.6 ms per product at 500,000 × 45,000 on an H200); an INT8 A element
// is a byte made from the 2-bit code with a few bit operations per 16 genotypes, and the 8 digits
// ride in the n dimension that the FP64 MMA wasted for l < 8.
//
// Accuracy: each value is represented to 2^-55·Mc, Mc the largest |value| of its column, so
//   |error(Z·Λ)_ic| ≤ 2^-55·Mc·Σ_j (X_ij + Miss_ij) + c·u·|(Z·Λ)_ic| + c·u·2^-5·Mc·Σ_j (X_ij + Miss_ij)
// (Mc over SΛ and D), and likewise for Zᵀ·Λ̃ with the s_j and 2p_j factors outside (normwise per
// row, not componentwise: a tiny Λ_jc next to a large one loses its low bits).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace pmx::kernels::cuda_detail::int8_route {

constexpr int max_columns = 4;  // columns per pass: one 8-column n-tile of digits each

struct product {
  bool transposed;
  const uint8_t* geno;  // resident rows, pitch bytes apart (multiple of 64)
  int64_t pitch;
  int64_t n, k;         // samples, variants
  const double* p;      // device, k
  const double* scale;  // device, k, or null (s = 1)
  int64_t l;
  const double* in;  // device, k × l (Z·Λ) or n × l (Zᵀ·Λ̃), leading dimension ld_in
  int64_t ld_in;
  double beta;
  double* out;  // device, n × l or k × l
  int64_t ld_out;
};

/// Whether the route can run this product: the int32 sums cannot overflow (reduction length
/// below 16 million) and the device passed the one-time m16n8k32 layout self-test (sm_80+).
bool applies(cudaStream_t s, bool transposed, int64_t n, int64_t k);
/// Device scratch for run() on these shapes.
int64_t scratch_bytes(bool transposed, int64_t n, int64_t k);
/// Enqueues the product on stream s (no synchronisation).
void run(cudaStream_t s, int sms, const product& pr, void* scratch);

}  // namespace pmx::kernels::cuda_detail::int8_route
