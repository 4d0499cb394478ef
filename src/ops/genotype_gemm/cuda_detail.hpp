// Device entry of the CUDA genotype × dense products. cuda.cu is compiled as C++17 (the project's
// CUDA standard), where std::span does not exist, so it takes plain pointers; the kernels of
// namespace cuda (C++20 signatures) live in cuda_kernels.cpp and forward here.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx::kernels::cuda_detail {

/// The genotypes of a gemm_operand held on the device (opaque outside cuda.cu).
struct resident_genotypes;

/// Defined in cuda.cu, or by cuda_stub.cpp (throws unsupported_error) without CUDA.
resident_genotypes* upload_genotypes(const executor& exec, const variant_major_view& g);
void release_genotypes(resident_genotypes* r) noexcept;

/// Y ← Z Λ + β Y (transposed = false) or W ← Zᵀ Λ̃ + β W (transposed = true), as in
/// genotype_gemm.hpp. p has n_variants entries; scale is null (s = 1) or has n_variants entries.
/// in/out may be host or device pointers. normwise: the operand allows the INT8 route
/// (gemm_accuracy::normwise), taken for resident genotypes when int8_route::applies.
void genotype_gemm(const executor& exec, const resident_genotypes* r, const variant_major_view& g,
                   bool transposed, const double* p, const double* scale, int64_t l, const double* in,
                   int64_t ld_in, double beta, double* out, int64_t ld_out, bool normwise);

}  // namespace pmx::kernels::cuda_detail
