// Device entry of the CUDA table products. cuda.cu is compiled as C++17 (the project's CUDA
// standard), where std::span does not exist, so it takes the tables as a plain pointer; the
// kernels of namespace cuda (C++20 signatures) live in cuda_kernels.cpp and forward here.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx::kernels::cuda_detail {

/// table_crossprod on the GPU: `tables` holds 4 doubles per variant (T[l][code]).
/// Defined in cuda.cu, or by cuda_stub.cpp (throws unsupported_error) without CUDA.
void table_crossprod(const executor& exec, const variant_major_view& g, const double* tables, double* C,
                     int64_t ld);

}  // namespace pmx::kernels::cuda_detail
