// The weighted product C of the cuda backend's resident sums on the int8 tensor cores: the digits
// of integer_weights.hpp multiplied by cuBLASLt (int8 × int8 → exact int32), one int32 n×n sum per
// digit position carried across chunks, turned into doubles (scaled by 2^(7t)) only when a sum could
// overflow, its slot is needed for another position, or at flush(). C and the row terms h stay on
// the device until flush(), the one n×n download.
//
// Only the lower triangle is computed: the sample rows are cut into panels of nb rows, and panel I
// multiplies against samples [0, end of panel I) (about (P + 1) / 2P of the square for P panels).
#pragma once
#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "core/cuda_context.hpp"
#include "ops/sample_sums/integer_weights.hpp"

namespace pmx::kernels::cuda_detail {

class integer_products {
 public:
  static constexpr int max_slots = 12;
  /// Device bytes for n samples, chunks of up to kc variants and `slots` int32 position sums.
  static int64_t bytes(int64_t n, int64_t kc, int slots);
  /// The widest chunk plan (columns) a chunk of kc variants may bring.
  static int64_t max_columns(int64_t kc);
  integer_products(int64_t n, int64_t kc, int slots, cudaStream_t stream);
  ~integer_products();
  integer_products(const integer_products&) = delete;
  integer_products& operator=(const integer_products&) = delete;

  /// Adds a chunk whose variant-major 2-bit rows are in device memory (row v at raw + v * pitch)
  /// and whose digits are `plan` (plan.columns <= max_columns(kc)); asynchronous on c.stream.
  void add(detail::cuda_context& c, const uint8_t* raw, int64_t pitch, const integer_weight_plan& plan);
  /// Host C (lower triangle, leading dimension ld) += everything added since the last flush; the
  /// device sums start again from zero.
  void flush(detail::cuda_context& c, double* C, int64_t ld, int threads);
  /// Instead of flush(): C (lower triangle, leading dimension ld_device()) made final in device
  /// memory, asynchronous on `stream`; restart() then zeroes the sums for what comes next.
  const double* finish_on_device(cudaStream_t stream);
  void restart(cudaStream_t stream);
  int64_t ld_device() const { return n_pad_; }

 private:
  void convert_all(cudaStream_t stream);
  int slot_for(int position, int64_t columns, cudaStream_t stream);
  void gemm(cudaStream_t stream, const int8_t* A, const int8_t* B, int32_t* C, int64_t M, int64_t N, int64_t K);

  int64_t n_, n_pad_, ldk_;
  int slots_;
  detail::device_buffer C_, h_, acc_, y_, yd_, variant_at_, counts_a2_, digits_, row_weight_, workspace_;
  std::vector<int> slot_position_;          // digit position held by each slot (free: no_position)
  std::vector<int64_t> slot_variants_;      // columns carried by each slot since it was last converted
  double row_constant_ = 0;                 // Σ α²/2 over every variant added since the last flush
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  std::map<std::tuple<int64_t, int64_t, int64_t>, cublasLtMatmulHeuristicResult_t> algos_;
};

}  // namespace pmx::kernels::cuda_detail
