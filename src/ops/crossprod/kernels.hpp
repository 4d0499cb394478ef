#pragma once
#include "panoramix/ops/crossprod.hpp"

namespace pmx::kernels {
#define PMX_CROSSPROD_KERNEL \
  void crossprod_samples(const executor& exec, const sample_major_view& g, const crossprod_outputs& out)
namespace reference { PMX_CROSSPROD_KERNEL; }
namespace cpu { PMX_CROSSPROD_KERNEL; }
#undef PMX_CROSSPROD_KERNEL
}  // namespace pmx::kernels
