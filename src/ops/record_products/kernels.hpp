// Backend kernels of record_products (signatures once; validated and dispatched by record_products.cpp).
#pragma once
#include "panoramix/ops/record_products.hpp"

namespace pmx::kernels {
#define PMX_RECORD_PRODUCTS_KERNELS \
  void record_multiply(const record_operand& op, const double* beta, const double* a, double* y_beta, double* y_a)
namespace reference { PMX_RECORD_PRODUCTS_KERNELS; }  // reference.cpp: one pass in record order
namespace cpu { PMX_RECORD_PRODUCTS_KERNELS; }        // cpu.cpp: chunks on animal boundaries (OpenMP)
namespace cuda { PMX_RECORD_PRODUCTS_KERNELS; }       // cuda.cu, or cuda_stub.cpp
#undef PMX_RECORD_PRODUCTS_KERNELS

namespace cuda {
/// The device copy made by the operand's constructor on cuda (cuda.cu), and its release.
record_operand::device_copy* upload_records(const executor& exec, const record_design_view& v);
void release_records(record_operand::device_copy* d) noexcept;
}  // namespace cuda
}  // namespace pmx::kernels
