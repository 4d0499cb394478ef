// Op: the records part of the mixed model equations of pedigree and single-step models, applied by
// iteration on data (never formed as a matrix): for fixed effects β (p) and animal effects a (n × t)
//
//   e_r = X_r β + a_animal(r),   q_r = R_r⁻¹ e_r,   y_β = Σ_r X_rᵀ q_r,   y_a(animal) = Σ_its r q_r
//
// with X_r the design rows of record r's traits (t slots r·t + k, empty for a trait the record does
// not have) and R_r⁻¹ the residual precision of the record's observed traits embedded in t × t
// (zeros elsewhere, so a missing trait contributes nothing).
//
//   reference: one pass over the records in order, every sum in that order.
//   cpu: the records cut into at most 64 chunks on animal boundaries (fixed by the records, not the
//     threads), chunks over OpenMP threads with their own y_β accumulators added in chunk order:
//     the same bits for any thread count.
//   cuda: the design uploaded once with its transpose (X by columns, cut into segments of at most
//     4,096 entries) and each animal's record range: one thread per record for q, one per (animal,
//     trait) for y_a, one block per segment (a fixed tree) and one thread per column adding its
//     segments in order for y_β: the same bits on every run, not the cpu's (other sum orders).
// β, a, y_β and y_a live in the operand executor's memory (device memory on cuda); y_a is
// overwritten whole (zero for animals without records).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx {

/// The records, held by the caller (sorted by animal).
struct record_design_view {
  int64_t records = 0;
  int t = 1;                            ///< traits (1..30)
  int64_t fixed = 0;                    ///< p, the columns of X
  int64_t animals = 0;                  ///< n, the rows of a
  const int64_t* animal = nullptr;      ///< per record, non-decreasing, < animals
  const int32_t* block = nullptr;       ///< per record: its R⁻¹ block
  const double* rinv = nullptr;         ///< blocks × t × t, row-major
  int64_t blocks = 0;
  /// records·t + 1 offsets of slot r·t + k's entries of X: empty exactly when record r does not
  /// have trait k (an observed trait has at least its intercept).
  const int64_t* slot_start = nullptr;
  const int32_t* column = nullptr;      ///< per entry: the fixed-effect column (< fixed)
  const double* value = nullptr;        ///< per entry: the design value
  int64_t entries() const { return records > 0 ? slot_start[records * t] : 0; }
};

/// The records prepared for many products on one executor. The caller keeps the view's arrays
/// alive and unchanged for the operand's lifetime (cpu/reference read them at each product; cuda
/// copies them). Products on one operand must not run concurrently (it keeps its accumulators).
class record_operand {
 public:
  struct device_copy;  ///< defined by the CUDA backend; opaque here

  /// On cuda: unsupported_error when the design, its transpose and the products' working room do
  /// not fit the device budget.
  record_operand(const executor& exec, const record_design_view& v);
  ~record_operand();
  record_operand(record_operand&&) noexcept;
  record_operand& operator=(record_operand&&) noexcept;

  const executor& exec() const { return exec_; }
  const record_design_view& design() const { return v_; }
  const device_copy* device() const { return device_.get(); }
  /// cpu: the first record of each chunk, then `records` (animal boundaries).
  const std::vector<int64_t>& chunk_start() const { return chunk_start_; }
  std::vector<double>& accumulators() const { return partial_; }

 private:
  struct device_copy_deleter {
    void operator()(device_copy* d) const;
  };
  executor exec_;
  record_design_view v_;
  std::vector<int64_t> chunk_start_;
  mutable std::vector<double> partial_;
  std::unique_ptr<device_copy, device_copy_deleter> device_;
};

/// y_β (p) and y_a (n × t, row-major) = the records part of the equations applied to [β; a].
void record_multiply(const record_operand& op, const double* beta, const double* a, double* y_beta, double* y_a);

}  // namespace pmx
