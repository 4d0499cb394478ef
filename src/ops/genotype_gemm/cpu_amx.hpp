// AMX-INT8 route of the cpu genotype products for normwise operands (gemm_accuracy::normwise):
// the same splitting as the CUDA INT8 route (cuda_int8.hpp: Z = M∘(X − 2p1ᵀ)S into exact integer
// dosages X and missing-call indicators, Λ into 8 base-128 digits per column), with the int8
// products on the AMX tiles (TDPBSUD / TDPBUSD, 16 × 16 × 64 per instruction) and the 2-bit codes
// turned into tile bytes by AVX-512 VBMI byte permutes and multishifts. Same error bound as the
// CUDA route (genotype_gemm.hpp). Missing calls: per chunk either a second tile product or, below
// ~2 % of the calls, sparse sums of each missing call's digits, read as int16 pairs of digits
// (exact; cpu_amx.cpp).
//
// Measured (bench_gemm, 10,000 × 50,000, 1 % missing, 2 threads; RESULTS.md): the tile products
// run at about the rate of the loop with its operands as used (bench_amx_tiles: ~16 ns per
// 16×16×64 product on the device host against ~12 ns with everything in L2) and take about half
// of the time at l = 32; the rest is the decode of the 2-bit codes, the missing-call terms and the
// digits. Both products beat the table kernels at every width (Zᵀ·Λ̃ 1.5–3×, Z·Λ 1.1–1.7×), so
// genotype_gemm.cpp sends every product of a normwise operand here when the CPU can run it.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/ops/genotype_gemm.hpp"

namespace pmx::kernels::cpu {

/// Thread-seconds in each stage of the AMX products, summed over threads and calls (bench_gemm's
/// time per stage; off by default).
struct amx_stage_times {
  double digits = 0;    ///< Λ into digit tiles (on all threads: wall time × threads)
  double decode = 0;    ///< 2-bit codes into dosage tiles and missing-call masks
  double products = 0;  ///< the tile products
  double missing = 0;   ///< the missing-call terms (sparse adds, or the tiles and their products)
  double finish = 0;    ///< clearing the accumulators; digit sums back to doubles, centring, β
};
void set_amx_profiling(bool on);
amx_stage_times amx_profile();
void reset_amx_profile();

/// The CPU has AMX-INT8 (and the OS grants it) and AVX-512 VBMI, and the reduction is short enough
/// for int32 sums (below 16 million).
bool gemm_amx_applies(int64_t reduction_length);

/// Y ← Z Λ + β Y and W ← Zᵀ Λ̃ + β W (host memory), as genotype_gemm.hpp with normwise accuracy.
void gemm_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring, int64_t l,
              const double* lambda, int64_t ld_lambda, double beta, double* Y, int64_t ld_y);
void gemm_transposed_amx(const executor& exec, const variant_major_view& g, const gemm_centring& centring,
                         int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w);

}  // namespace pmx::kernels::cpu
