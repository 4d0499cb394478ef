// The int8 decomposition of a chunk's weighted product for the cuda backend's resident C
// (sample_sums/cuda_integer_products.cu): PLINK's standardised GRM and any product of affine code
// tables (table_products/affine_table.hpp) as exact integer products on the int8 tensor cores.
//
// Without missing calls, z_il = α_l + β_l y_il with y ∈ {0, 1, 2}, so
//   Σ_l z_il z_jl = P_ij + h_i + h_j,   P_ij = Σ_l w_l y_il y_jl (w = β²),   h_i = Σ_l (α_l²/2 + α_l β_l y_il).
// P is the O(n²k) part. Each weight is rounded to an integer M_l times 2^(7 b_l) and M_l is written
// in balanced base-128 digits d ∈ [−64, 63], so that y·d ∈ [−128, 126] is a signed 8-bit operand:
//   w_l ≈ Σ_{t = b_l}^{top_l} d_lt 2^(7t),   P_ij ≈ Σ_t 2^(7t) Σ_l (y_il d_lt) y_jl,
// one exact int8 × int8 → int32 product per digit position t (cuBLASLt). The positions form one
// grid shared by every variant and chunk (scale 2^(7t)), so each position's int32 sums can be
// carried across chunks and turned into doubles once. b_l is the largest with
// 2^(7 b_l) ≤ 2^(1 − weight_bits) w_l, so |M_l 2^(7 b_l) − w_l| ≤ 2^(7 b_l − 1) ≤ 2^−weight_bits w_l:
// every weight is kept to a relative 2^-44, and by Cauchy–Schwarz
//   |P̂_ij − P_ij| ≤ 2^-44 Σ_l w_l y_il y_jl ≤ 2^-44 sqrt(D_i D_j),   D_i = Σ_l w_l y_il²,
// plus the double rounding of the few scaled sums per entry. For standardised genotypes D_i is at
// most 3 × (called variants), so the bound is 1.7e-13 of G's scale, 6× below the 1e-12 bar of the
// GRM tests. Why 44 bits and not the AMX route's 47: the grid of positions is shared, so a weight
// may start anywhere inside its top digit; with 44 bits a standardised weight of minor allele
// frequency above 1/64 (w < 32) takes 7 digits, with 47 bits most take 8 (a seventh more work).
//
// int32 cannot overflow: one variant adds at most 2 · 64 · 2 = 256 to an entry of one position's
// sums, so a position carries at most max_carried_variants before it must be turned into doubles.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "panoramix/ops/table_products.hpp"

namespace pmx::kernels {

struct integer_weight_plan {
  static constexpr int weight_bits = 44;
  static constexpr int64_t column_align = 16;  ///< int8 GEMM operands start on 16-byte boundaries
  static constexpr int64_t max_carried_variants = (int64_t{1} << 31) / 256 - 1;
  /// Columns of the int8 operands (variants of nonzero weight, grouped by b, each group padded
  /// with empty columns to a multiple of column_align).
  int64_t columns = 0;
  std::vector<int32_t> variant_at;  ///< column -> variant of the chunk, −1 for padding
  std::vector<uint8_t> counts_a2;   ///< per column: y counts A2 (else A1)
  int bottom = 0, top = -1;         ///< digit positions t ∈ [bottom, top] (scale 2^(7t)); none when top < bottom
  std::vector<int8_t> digits;       ///< [(t − bottom) * columns + column]: d_t of the column's variant (0 outside its digits)
  /// One int8 product: position t over columns [begin, end) (multiples of column_align; columns
  /// inside whose variant has no digit at t hold 0).
  struct product {
    int position;
    int64_t begin, end;
  };
  std::vector<product> products;  ///< by position, ascending
  std::vector<double> row_weight; ///< per column: α β (h_i's part that multiplies y_il)
  double row_constant = 0;        ///< Σ_l α_l² / 2 over every variant of the chunk (h_i's constant part)
  int positions() const { return top - bottom + 1; }
};

/// The plan of a chunk whose tables are all affine (affine_form_of); false (plan unspecified)
/// when one is not.
bool make_integer_weight_plan(std::span<const code_table> tables, integer_weight_plan& plan);

}  // namespace pmx::kernels
