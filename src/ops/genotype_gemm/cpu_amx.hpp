// AMX-INT8 route of the cpu genotype products for normwise operands (gemm_accuracy::normwise):
// the same splitting as the CUDA INT8 route (cuda_int8.hpp: Z = M∘(X − 2p1ᵀ)S into exact integer
// dosages X and missing-call indicators, Λ into 8 base-128 digits per column), with the int8
// products on the AMX tiles (TDPBSUD / TDPBUSD, 16 × 16 × 64 per instruction) and the 2-bit codes
// turned into tile bytes by AVX-512 VBMI byte permutes and multishifts. Same error bound as the
// CUDA route (genotype_gemm.hpp). Missing calls: per chunk either a second tile product or, below
// ~2 % of the calls, one 16-digit add per digit tile and missing call.
//
// Measured (bench_gemm, 10,000 × 50,000, 1 % missing, 2 threads of the dev VM; RESULTS.md): the
// tile products run at the L2 rate of the tiles (~30 ns per 16×16×64 product with 2 × 2
// accumulators, against ~17 ns with register operands), and Zᵀ·Λ̃ beats the table kernels
// 1.6–1.9× at l = 10 and 32, while Z·Λ (its dosage tiles need a transpose and it carries two digit
// sets) only matches them. genotype_gemm.cpp therefore routes Zᵀ·Λ̃ with l ≥ 4 here by default.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/ops/genotype_gemm.hpp"

namespace pmx::kernels::cpu {

/// The CPU has AMX-INT8 (and the OS grants it) and AVX-512 VBMI, and the reduction is short enough
/// for int32 sums (below 16 million).
bool gemm_amx_applies(int64_t reduction_length);

/// Y ← Z Λ + β Y and W ← Zᵀ Λ̃ + β W (host memory), as genotype_gemm.hpp with normwise accuracy.
void gemm_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring, int64_t l,
              const double* lambda, int64_t ld_lambda, double beta, double* Y, int64_t ld_y);
void gemm_transposed_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring,
                         int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w);

}  // namespace pmx::kernels::cpu
