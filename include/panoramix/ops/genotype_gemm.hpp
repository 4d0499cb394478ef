// Op: products of the centred, optionally scaled genotype matrix with dense matrices — the kernel
// of every PCG iteration of single-step models and of randomized PCA (thesis §4.2):
//
//   Y = Z Λ        (gemm)              Λ: k × l,  Y: n × l
//   W = Zᵀ Λ̃       (gemm_transposed)   Λ̃: n × l,  W: k × l
//
// with i = sample (n), j = variant (k) and
//
//   Z[i][j] = s_j (x_ij − 2 p_j)   for a called genotype x_ij ∈ {0, 1, 2} (A1 dosage),
//   Z[i][j] = 0                    for a missing call.
//
// Genotypes stay 2-bit and variant-major (the .bed rows); Z is never formed. Missing calls are
// handled exactly (they are not a rank-one correction), so the result is the product with the
// matrix above whatever the missing pattern and whatever p (observed frequency or not).
//
// Accuracy (cpu backend; the reference backend accumulates in long double). For every output
// element, with u = 2^-53 and "terms" the products Z[i][j] Λ[j][c] it sums,
//   gemm, and gemm_transposed with l = 1:
//                    |Ŷ − Y| ≤ c·u·Σ_j |Z_ij Λ_jc|                      (componentwise, like dgemm)
//   gemm_transposed, l ≥ 2:
//                    |Ŵ − W| ≤ c·u·(Σ_i |Z_ij Λ̃_ic| + m_j Σ_{i missing at j} |Λ̃_ic|)
// where c grows like n/128 + k/128 (n/1024 + 1024 for the narrow transposed path) and
// m_j = s_j·min(2p_j, |1−2p_j|, 2−2p_j) is the smallest |Z| a called genotype of variant j can
// take (the missing calls of a variant enter its centring sum; see src/ops/genotype_gemm/cpu.cpp).
// A variant without called genotypes gives exactly 0. Results do not depend on the thread count or
// on the instruction set (the same bits on every machine for given inputs and l), except for
// gemm_transposed with l ≥ 256 (mixed-model rotations), where blocks of variants are decoded
// to their dense z values and multiplied by BLAS dgemm: bound as dgemm's (no missing-call term),
// bits as the BLAS build gives them.
//
// Accuracy (cuda backend). Z is decoded per call from the 2-bit codes through the per-variant
// values z = s_j(x − 2p_j) (rounded once, as on the cpu) and multiplied on the FP64 tensor cores
// (sm_90: mma m16n8k16, sm_80: m8n8k4) with double accumulation, or for l = 1 on the FP64 CUDA
// cores (Z·Λ sums the terms of two variants per table entry: one more rounding per pair, which
// only changes the constant below); the reduction is split into at
// most 64 parts (variants for gemm, samples for gemm_transposed) whose partial sums are added in a
// fixed order. Every product is a plain double-precision dot product of the terms, so for both
// products and every l
//                    |error| ≤ c·u·Σ |Z_ij Λ_jc|     (no missing-call term; missing calls are 0)
// with c growing like the length of the sum (k for gemm, n for gemm_transposed) plus 3, as for a
// dgemm. A variant without called genotypes gives exactly 0. Results are the same bits from run
// to run on one GPU model (split counts depend on the shapes and the SM count only); they differ
// from the cpu backend's in the last bits. Memory (cuda): an operand whose 2-bit matrix
// (ceil(n/4) bytes per variant, rounded up to 64) plus the products' working room does not fit the
// device budget stays on the host, and every product then streams it in chunks of variants
// through pinned staging buffers (same results, bound by the host-device link).
//
// Inputs must be finite (gemm_transposed sums Λ̃ over all samples, so a NaN in the row of a
// sample spreads to the variants where that sample is missing) and must not overlap the output.
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx {

/// Centring and scaling of the genotype matrix, one entry per variant.
struct gemm_centring {
  std::span<const double> p;      ///< A1 frequency p_j (k entries); any finite value is allowed
  std::span<const double> scale;  ///< s_j (k entries), or empty for s_j = 1
};

/// What a prepared operand's products guarantee (cuda; the cpu and reference backends always give
/// the componentwise bound above).
///   componentwise: the bounds above, like a dgemm.
///   normwise: for iterative solvers. The products run on int8 tensor units where the machine has
///     them and it pays: cuda resident operands with up to 4 columns (mma.s8; cuda_int8.hpp), and
///     on cpus with AMX-INT8 and AVX-512 VBMI both products at any width (cpu_amx.hpp).
///     Z = M∘(X − 2p1ᵀ)S is split into
///     exact integer products: every column c of SΛ and D = diag(2p)SΛ (Z·Λ), or of Λ̃ (Zᵀ·Λ̃), is
///     represented to 2^-55·M_c (8 base-128 digits), M_c the largest magnitude in that column, and
///     the integer sums are exact. With X the dosages (0 when missing), n_i / n_j the called
///     genotypes of sample i / variant j, A = XᵀΛ̃ and B the sum of Λ̃ over the called samples of
///     variant j:
///       |Ŷ − Y|_ic ≤ c·u·|Y_ic| + 2^-54·M_c·(Σ_j X_ij + n_i)
///       |Ŵ − W|_jc ≤ |s_j|·(c·u·(|A_jc| + |2p_j B_jc|) + 2^-54·M_c·(Σ_i X_ij + |2p_j|·n_j))
///     — relative to the column's largest entry, not to each term. Elsewhere (wider cuda products,
///     streamed cuda operands, CPUs without AMX) normwise operands get the componentwise kernels.
///     Results do not depend on thread counts (integer sums). PMX_GEMM_INT8=0 turns the int8
///     routes off; PMX_GEMM_INT8=require sends every product of a normwise operand to them and
///     makes it an error when they cannot run.
enum class gemm_accuracy { componentwise, normwise };

/// Which samples an operand holds.
///   all: every sample of the products.
///   this_rank: this rank's share of the samples of a run over several processes (the executor's
///     communicator, e.g. samples_of_rank() of them; communicator.hpp). Z·Λ then gives this rank's
///     rows of Y (no communication), and Zᵀ·Λ̃ — Λ̃ being this rank's rows — the sum over every
///     rank's samples: each rank's product as above, the k × l results added in rank order (NCCL
///     for device memory), so W is the same bits on every rank (not the same bits as one process:
///     each rank's part is rounded before the sum). Every rank must call the products together
///     (they are collective).
enum class operand_samples { all, this_rank };

/// Genotypes prepared once for many products on one executor (PCG iterations, subspace
/// iteration). On cuda the 2-bit matrix is uploaded at construction and stays on the device, once,
/// until the operand is destroyed; on cpu/reference the operand only holds the view. The caller
/// keeps the host data alive and unchanged for the operand's lifetime in every case.
class gemm_operand {
 public:
  struct device_copy;  ///< defined by the CUDA backend; opaque here

  gemm_operand(const executor& exec, const variant_major_view& g,
               gemm_accuracy accuracy = gemm_accuracy::componentwise,
               operand_samples samples = operand_samples::all);
  ~gemm_operand();
  gemm_operand(gemm_operand&&) noexcept;
  gemm_operand& operator=(gemm_operand&&) noexcept;

  const executor& exec() const { return exec_; }
  const variant_major_view& view() const { return view_; }
  gemm_accuracy accuracy() const { return accuracy_; }
  operand_samples samples() const { return samples_; }
  /// True when Zᵀ·Λ̃ sums over several ranks (this_rank with more than one).
  bool summed_over_ranks() const { return samples_ == operand_samples::this_rank && exec_.comm().size() > 1; }
  /// The device-resident copy (cuda executors), else null.
  const device_copy* device() const { return device_.get(); }

 private:
  struct device_copy_deleter {
    void operator()(device_copy* d) const;
  };
  executor exec_;
  variant_major_view view_;
  gemm_accuracy accuracy_;
  operand_samples samples_;
  std::unique_ptr<device_copy, device_copy_deleter> device_;
};

/// The products below on a prepared operand (its executor runs them). With a cuda operand Λ, Y and
/// W may each be host or device memory (detected per pointer); with cpu/reference, host only.
void gemm(const gemm_operand& g, const gemm_centring& centring, int64_t l, const double* lambda,
          int64_t ld_lambda, double beta, double* Y, int64_t ld_y);
void gemm_transposed(const gemm_operand& g, const gemm_centring& centring, int64_t l,
                     const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w);

/// Y ← Z Λ + β Y.
/// Λ is k × l, row-major with leading dimension ld_lambda (element (j, c) at lambda[j * ld_lambda +
/// c]); Y is n × l with leading dimension ld_y. β = 0 overwrites Y without reading it (NaNs in Y do
/// not propagate). Any l ≥ 0 works; the cpu kernels are tuned for l ≤ 64. On cuda this uploads
/// the genotypes for this one call (use gemm_operand to keep them on the device).
void gemm(const executor& exec, const variant_major_view& g, const gemm_centring& centring,
          int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* Y, int64_t ld_y);

/// W ← Zᵀ Λ̃ + β W.
/// Λ̃ is n × l (leading dimension ld_lambda), W is k × l (leading dimension ld_w); β as in gemm.
void gemm_transposed(const executor& exec, const variant_major_view& g,
                     const gemm_centring& centring, int64_t l, const double* lambda,
                     int64_t ld_lambda, double beta, double* W, int64_t ld_w);

}  // namespace pmx
