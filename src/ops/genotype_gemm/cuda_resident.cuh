// The genotypes of a gemm_operand on the device and the product on them (cuda.cu), visible to the
// benchmark so that it can hand the product a matrix generated on the device.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

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
  bool owned = true;  ///< free_genotypes frees `data` (cudaFree)

  int64_t bytes() const { return pitch * n_variants; }
};

/// Row pitch (bytes) of the device layout for n samples.
inline int64_t resident_pitch(int64_t n) { return ((n + 3) / 4 + 63) / 64 * 64; }

/// Fills `r` for g: uploaded when it fits the device budget, else left on the host (data null).
void upload_genotypes(const executor& exec, const variant_major_view& g, resident_genotypes* r);
void free_genotypes(resident_genotypes* r) noexcept;

/// Y ← Z Λ + β Y (transposed = false) or W ← Zᵀ Λ̃ + β W (transposed = true), as in
/// genotype_gemm.hpp, on the device copy r (or streaming g when r is null or not resident). p has
/// n_variants entries; scale is null (s = 1) or has n_variants entries. in/out may be host or
/// device pointers. normwise: the operand allows the INT8 route (gemm_accuracy::normwise).
void genotype_gemm(const executor& exec, const resident_genotypes* r, const variant_major_view& g,
                   bool transposed, const double* p, const double* scale, int64_t l, const double* in,
                   int64_t ld_in, double beta, double* out, int64_t ld_out, bool normwise);

}  // namespace pmx::kernels::cuda_detail
