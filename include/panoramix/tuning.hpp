// Settings that force or tune the route an op takes: for comparisons, benchmarks and tests. The
// library never reads the environment: front ends (the command line, the C API, the benchmark
// drivers) call tuning::from_environment() once and give the result to their executor.
#pragma once
#include <cstdint>
#include <string>

namespace pmx {

struct tuning {
  /// PMX_CPU_ISA: run every CPU kernel family on this instruction-set build ("scalar", "avx2",
  /// "avx512"); "" = the best this CPU supports. Forcing one also keeps AMX routes off.
  std::string cpu_isa;
  /// PMX_CUDA_MEMORY_MB: device memory (MiB) the CUDA ops of an executor may hold; 0 = the free
  /// memory minus a margin (executor::set_device_memory_budget takes precedence).
  int64_t cuda_memory_mb = 0;

  enum class mma { automatic, sync, wgmma };
  /// PMX_CUDA_BINARY_MMA=sync|wgmma: the tensor-core instruction of the binary crossprods.
  mma binary_mma = mma::automatic;

  enum class int8 { automatic, off, require };
  /// PMX_GEMM_INT8: "0" keeps normwise genotype products off the INT8 routes; "require" sends
  /// every one to an INT8 route and makes it an error where none can run (tests, benchmarks).
  int8 gemm_int8 = int8::automatic;
  /// PMX_GEMM_MMA=m8: the sm_80 (m16n8k8) genotype-gemm kernels on sm_90 as well.
  bool gemm_m8 = false;
  /// PMX_GEMM_ZTL=mt4: the Zᵀ·Λ̃ kernel with 64 variants per warp (registers) on sm_90.
  bool gemm_ztl_mt4 = false;
  /// PMX_GEMM_NARROW=0: narrow products stay on the MMA kernels (for comparison).
  bool gemm_narrow = true;

  enum class route { automatic, amx, blas };
  /// PMX_TABLE_CROSSPROD=auto|amx|blas: the table crossprods of affine tables on an integer route
  /// (AMX tiles on CPUs; int8 tensor cores under sample_sums on cuda) or in FP64 (BLAS, cuBLAS).
  route table_crossprod = route::automatic;

  /// PMX_AINV_GPU=0: the single-step pedigree terms (A⁻¹ products, A_gg⁻¹'s LDLᵀ sweeps) stay on
  /// the CPU under a cuda executor.
  bool ainv_on_device = true;

  /// PMX_PCG_GPU=0: single-step PCG keeps its vectors on the host under a cuda executor even when
  /// every product could take them on the device (comparisons of the two routes).
  bool pcg_on_device = true;

  /// The PMX_* variables above (unset ones keep their defaults); a value outside the listed ones
  /// throws input_error naming the variable.
  static tuning from_environment();
};

}  // namespace pmx
