// AVX-512 build of the table kernels: an 8-column entry is one zmm load; the transpose uses byte
// shuffles on 256 samples at a time.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/genotype_gemm/cpu_isa.hpp"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,bmi2")
#define PMX_GEMM_AVX512 1
#include "ops/genotype_gemm/cpu_isa_impl.hpp"
#pragma GCC pop_options

namespace pmx::kernels::cpu::gemm_isa {
table_kernels table_kernels_avx512() { return {"avx512", zl_block, zlt_block, zts_block}; }
}  // namespace pmx::kernels::cpu::gemm_isa
