// The genotypes of a gemm_operand on the device (cuda.cu), visible to the benchmark so that it can
// hand the product a matrix generated on the device.
#pragma once
#include <cstdint>

#include "ops/genotype_gemm/cuda_detail.hpp"

namespace pmx::kernels::cuda_detail {

/// Layout on the device: variant j's calls (.bed order, 2 bits each) at data + j * pitch, pitch a
/// multiple of 64 bytes >= ceil(n / 4); bytes past a row's calls are never used unmasked (they
/// are set to the missing code 0x55 here, but any content gives the same results). data == null:
/// the matrix did not fit the device budget when the operand was made and stays on the host;
/// every product then streams it through the pinned staging buffers (chunks of variants).
struct resident_genotypes {
  uint8_t* data = nullptr;
  int64_t pitch = 0;
  int64_t n_samples = 0;
  int64_t n_variants = 0;
  bool owned = true;  ///< release_genotypes frees `data` (cudaFree)

  int64_t bytes() const { return pitch * n_variants; }
};

/// Row pitch (bytes) of the device layout for n samples.
inline int64_t resident_pitch(int64_t n) { return ((n + 3) / 4 + 63) / 64 * 64; }

}  // namespace pmx::kernels::cuda_detail
