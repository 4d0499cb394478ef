#pragma once
#include "panoramix/ops/genotype_gemm.hpp"

namespace pmx::kernels {
#define PMX_GENOTYPE_GEMM_KERNELS                                                                \
  void gemm(const executor& exec, const variant_major_view& g, const gemm_centring& centring,   \
            int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* Y,         \
            int64_t ld_y);                                                                      \
  void gemm_transposed(const executor& exec, const variant_major_view& g,                       \
                       const gemm_centring& centring, int64_t l, const double* lambda,          \
                       int64_t ld_lambda, double beta, double* W, int64_t ld_w)
namespace reference { PMX_GENOTYPE_GEMM_KERNELS; }
namespace cpu {
PMX_GENOTYPE_GEMM_KERNELS;
/// On an operand: its normwise products take the AMX-INT8 route where it applies (cpu_amx.hpp),
/// the rest the table kernels above.
void gemm(const gemm_operand& g, const gemm_centring& centring, int64_t l, const double* lambda,
          int64_t ld_lambda, double beta, double* Y, int64_t ld_y);
void gemm_transposed(const gemm_operand& g, const gemm_centring& centring, int64_t l,
                     const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w);
}  // namespace cpu
#undef PMX_GENOTYPE_GEMM_KERNELS

// CUDA, on an operand held on the device: cuda.cu, or cuda_stub.cpp when CUDA is off.
namespace cuda {
gemm_operand::device_copy* upload(const executor& exec, const variant_major_view& g);
void release(gemm_operand::device_copy* d) noexcept;
void gemm(const gemm_operand& g, const gemm_centring& centring, int64_t l, const double* lambda,
          int64_t ld_lambda, double beta, double* Y, int64_t ld_y);
void gemm_transposed(const gemm_operand& g, const gemm_centring& centring, int64_t l,
                     const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w);
}  // namespace cuda
}  // namespace pmx::kernels
