// Baseline x86-64 (SSE2) build of the table kernels: the fallback for any x86-64 CPU. Its results
// are the same bits as the vector builds (same operations in the same order).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/genotype_gemm/cpu_isa.hpp"
#include "ops/genotype_gemm/cpu_isa_impl.hpp"

namespace pmx::kernels::cpu::gemm_isa {
table_kernels table_kernels_scalar() { return {"scalar", zl_block, zlt_block, zts_block}; }
}  // namespace pmx::kernels::cpu::gemm_isa
