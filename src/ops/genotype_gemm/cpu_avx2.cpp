// AVX2 build of the table kernels: 8-column entries are two ymm loads; the transpose uses byte
// shuffles (no PDEP, which is slow on AMD Zen 1/2).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/genotype_gemm/cpu_isa.hpp"

#pragma GCC push_options
#pragma GCC target("avx2")
#define PMX_GEMM_AVX2 1
#include "ops/genotype_gemm/cpu_isa_impl.hpp"
#pragma GCC pop_options

namespace pmx::kernels::cpu::gemm_isa {
table_kernels table_kernels_avx2() { return {"avx2", zl_block, zlt_block, zts_block}; }
}  // namespace pmx::kernels::cpu::gemm_isa
