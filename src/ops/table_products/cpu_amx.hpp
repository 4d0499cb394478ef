// The integer route of table_crossprod on CPUs with AMX-INT8 (cpu backend, picked at run time).
//
// When every code table is affine in a dosage with 0 for a missing call, z_il = c_il (α_l + β_l y_il)
// with y ∈ {0,1,2} (the count of whichever allele makes |α| the smaller, so y is mostly 0 and the
// integer term below is not much larger than the result) and c = 1 where called. Then
//   Σ_l z_il z_jl = P_ij + h_i + h_j − Σ_{l∈miss(j)} v_l y_il − Σ_{l∈miss(i)} v_l y_jl
//                   + Σ_{l∈miss(i)∩miss(j)} α_l²
// with P_ij = Σ_l w_l y_il y_jl, w = β², v = αβ, h_i = Σ_l v_l y_il − Σ_{l∈miss(i)} α_l² + ½ Σ_l α_l².
// P is the O(n²k) part: it runs on AMX tiles as int8 products with exact int32 sums (TDPBUSD,
// u8 × s8): w_l is rounded to M_l · 2^σ with an integer M_l < 2^(7S) split into S base-128 digits
// d_s ∈ [0, 127], so y·d fits the unsigned operand; each digit is one exact integer product
// Σ_l (y_il d_sl) y_jl, scaled by 2^(σ+7s) and summed in double. The missing-call sums are sparse
// (work ∝ n × missing calls) and run in double with AVX-512, fused into the same pass over C.
//
// Error bound (why S is what it is). Variants are grouped by the binary exponent e_l of w_l, each
// group sharing σ = e_hi + 1 − 7S where e_hi is the group's largest exponent; then |M_l 2^σ − w_l|
// ≤ 2^σ ≤ 2^(e_hi − e_l + 1 − 7S) w_l. S is chosen per group as the least with 7S ≥ 48 + (e_hi −
// e_lo), so every weight is kept to a relative 2^-47, and by Cauchy–Schwarz
//   |P̂_ij − P_ij| ≤ 2^-47 Σ_l w_l y_il y_jl ≤ 2^-47 sqrt(D_i D_j),   D_i = Σ_l w_l y_il²,
// plus the double rounding of at most 8 scaled integer sums per entry. For standardised genotypes
// D_i ≈ (1 to 3) × (called variants), so the bound is ≈ 2e-14 of G's scale: 50× below the 1e-12 bar
// that the GRM tests set against a long-double oracle. Groups of a single exponent pair get S = 7;
// small groups of rare variants are merged with their neighbours at S = 8 (span up to 8).
//
// int32 cannot overflow: one entry of one digit product is at most 2·254 per variant, and a
// product spans at most 2048 variants (one panel), 2^20 ≪ 2^31.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/ops/table_products.hpp"

namespace pmx::kernels::cpu {

/// The decomposition of a block's tables (see the file comment). Positions order the variants of
/// nonzero weight by group, each group padded with empty positions to a multiple of 64.
struct affine_plan {
  static constexpr int max_slices = 8;
  static constexpr int weight_bits = 47;  ///< relative accuracy of each rounded weight
  std::vector<double> alpha, beta;        ///< per variant, in the y coding
  std::vector<uint8_t> flip;              ///< per variant: y counts A2 (else A1)
  double alpha2_sum = 0;                  ///< Σ_l α_l²
  struct group {
    int64_t begin, end;  ///< positions [begin, end), multiples of 64
    int slices;          ///< S
    int scale_exp;       ///< σ: w ≈ 2^σ Σ_s d_s 128^s
  };
  std::vector<group> groups;
  std::vector<int64_t> variant_at;  ///< position -> variant, -1 for padding
  std::vector<uint8_t> digits;      ///< [s * positions + p]: d_s of the variant at p (0 for padding)
  int64_t positions() const { return static_cast<int64_t>(variant_at.size()); }
};

/// Builds the plan when every table is affine (T[het] = (T[hom A1] + T[hom A2]) / 2 to 2^-48 of the
/// largest entry) with T[missing] = 0 and all entries finite; returns false otherwise.
bool make_affine_plan(std::span<const code_table> tables, affine_plan& plan);

/// Per-variant sorted lists of the samples whose call is missing (a word-wise scan of the codes).
std::vector<std::vector<int64_t>> missing_samples(const variant_major_view& g, int threads);

/// C[i][j] += Σ_l z_il z_jl for i >= j through the plan: the AMX product, the rank-one terms and
/// the missing-call terms. Needs amx_int8_usable().
void amx_table_crossprod(const executor& exec, const variant_major_view& g, const affine_plan& plan,
                         const std::vector<std::vector<int64_t>>& miss_by_variant, double* C, int64_t ld);

/// out[j] −= Σ_{l ∈ variants} v_l y_jl for j < count (v = αβ): the row part of the missing-call
/// terms, .bed rows decoded on the fly (AVX-512, present wherever amx_int8_usable() holds).
void subtract_missing_rows(const variant_major_view& g, const affine_plan& plan, const std::vector<int64_t>& variants,
                           int64_t count, double* out);

}  // namespace pmx::kernels::cpu
