// Sparse companion sums for pairs of rows with missing calls (LD's N, U, V and their transposes).
//
// The exact sums over the columns called in both rows of a pair differ from the row sums only at
// the columns one of the two rows misses, so they follow from the missing calls (a few per cent of
// the calls) instead of dense popcount streams:
//   N(a,b)  = n − miss_a − miss_b + Σ_{c ∈ M_a} missing_bc
//   Ut(a,b) = Σx_b − Σ_{c ∈ M_a} x_bc          Vt(a,b) = Σx_b² − Σ_{c ∈ M_a} x_bc²
// and U, V the same with a and b exchanged. One kernel serves them all: it sums rows of a
// sample-major byte table selected by a list of sample indices.
//
// Table bytes (missing_code below): bit 0 = x >= 1, bit 1 = x == 2, bit 2 = missing, so that
// x = b0 + b1 and x² = b0 + 3·b1. One implementation per instruction set, chosen at run time like
// the popcount tiles (PMX_CPU_ISA forces one).
#pragma once
#include <cstdint>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/ops/crossprod.hpp"

namespace pmx::kernels::cpu {

/// Table byte of a .bed code {0 hom A1 (x = 2), 1 missing, 2 het (x = 1), 3 hom A2 (x = 0)}.
constexpr const uint8_t* missing_code = missing_table_code;

using pmx::missing_sums_fn;  // the op's kernel type (panoramix/ops/crossprod.hpp)

struct missing_sums_kernels {
  const char* isa;
  missing_sums_fn sums;
};

std::vector<missing_sums_kernels> supported_missing_sums();
/// The one ops of `exec` use: the best supported, or the one its tuning().cpu_isa names.
const missing_sums_kernels& active_missing_sums(const executor& exec);

missing_sums_kernels missing_sums_scalar();
missing_sums_kernels missing_sums_avx2();
missing_sums_kernels missing_sums_avx512();

// Packed accumulation shared by the implementations: each table byte f becomes the 32-bit word
// (f·0x40201) & 0x100401 = b0 | b1 << 10 | b2 << 20, so up to 1023 rows add without carries
// between the three 10-bit fields.
constexpr uint32_t missing_spread = 0x40201u, missing_fields = 0x100401u;
constexpr int64_t missing_rows_per_pass = 1023;

}  // namespace pmx::kernels::cpu
