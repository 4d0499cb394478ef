// Backend kernels of ldl_sweeps (signatures once; validated and dispatched by ldl_sweeps.cpp).
#pragma once
#include "panoramix/ops/ldl_sweeps.hpp"

namespace pmx::kernels {
#define PMX_LDL_SWEEPS_KERNELS void ldl_solve_permuted(const ldl_sweeps& s, int64_t t, double* W)
namespace reference { PMX_LDL_SWEEPS_KERNELS; }  // reference.cpp: plain loops
namespace cpu { PMX_LDL_SWEEPS_KERNELS; }        // cpu.cpp: each level's rows over OpenMP threads
namespace cuda { PMX_LDL_SWEEPS_KERNELS; }       // cuda.cu (one kernel per level), or cuda_stub.cpp
#undef PMX_LDL_SWEEPS_KERNELS

namespace cuda {
/// The device copy of the schedule made by the constructor on cuda (cuda.cu), and its release.
ldl_sweeps::device_copy* upload_ldl_sweeps(const executor& exec, const ldl_schedule& s);
void release_ldl_sweeps(ldl_sweeps::device_copy* d) noexcept;
}  // namespace cuda
}  // namespace pmx::kernels
