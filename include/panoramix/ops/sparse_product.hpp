// Op: Y = S X for a sparse n × n matrix S in compressed sparse rows with every nonzero stored (a
// symmetric matrix as both of its triangles), X and Y n × t row-major: the A⁻¹ products of
// pedigree BLUP and single-step models, one per PCG iteration.
//
//   cpu: rows in parallel (OpenMP), each row summed in storage order, so the result does not
//     depend on the thread count; reference: the same sums, in the same order, by plain loops.
//   cuda: the operand uploads S once (32-bit indices while the nonzeros fit them) and keeps it
//     on the device; each product is cuSPARSE SpMV (t = 1) or a kernel of one thread per output
//     entry (t ≥ 2), both giving the same bits on every run. X and Y may be host or device
//     memory (per pointer); host vectors cross the bus each product, by DMA when they are
//     page-locked (transfer_buffer). The row sums may be ordered differently from the cpu's:
//       |Ŷ − Y|_ic ≤ c·u·Σ_k |S_ik X_kc|,  c the row's nonzero count (as for any dot product).
#pragma once
#include <cstdint>
#include <memory>

#include "panoramix/executor.hpp"

namespace pmx {

/// A CSR matrix held by the caller: row i's nonzeros are [row_start[i], row_start[i + 1]),
/// columns in `col32` (when n fits 32 bits) or `col64` (exactly one of them is set). Square
/// (n × n) unless `columns` is set: then n × columns, X columns × t.
struct csr_view {
  int64_t n = 0;
  const int64_t* row_start = nullptr;  ///< n + 1 offsets
  const int32_t* col32 = nullptr;
  const int64_t* col64 = nullptr;
  const double* value = nullptr;
  int64_t columns = 0;  ///< 0: n
  int64_t nonzeros() const { return n > 0 ? row_start[n] : 0; }
  int64_t cols() const { return columns > 0 ? columns : n; }
};

/// S prepared for many products on one executor. The caller keeps the arrays alive and unchanged
/// for the operand's lifetime (cpu/reference read them at each product; cuda copies them here).
class sparse_operand {
 public:
  struct device_copy;  ///< defined by the CUDA backend; opaque here

  /// On cuda: unsupported_error when S plus one n × 1 pair of vectors does not fit the device
  /// budget (callers then keep the products on the cpu).
  sparse_operand(const executor& exec, const csr_view& s);
  ~sparse_operand();
  sparse_operand(sparse_operand&&) noexcept;
  sparse_operand& operator=(sparse_operand&&) noexcept;

  const executor& exec() const { return exec_; }
  const csr_view& matrix() const { return s_; }
  const device_copy* device() const { return device_.get(); }

 private:
  struct device_copy_deleter {
    void operator()(device_copy* d) const;
  };
  executor exec_;
  csr_view s_;
  std::unique_ptr<device_copy, device_copy_deleter> device_;
};

/// Y = S X; X (columns × t) and Y (n × t) row-major, not overlapping (cpu/reference: the
/// executor's threads).
void sparse_multiply(const sparse_operand& s, int64_t t, const double* X, double* Y);

}  // namespace pmx
