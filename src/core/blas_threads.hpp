// OpenBLAS's thread count for one scope (its setting is process-wide): the executor's threads for
// a BLAS/LAPACK call, or 1 where the caller parallelises with OpenMP itself. Restored on exit.
#pragma once
#include <cblas.h>

namespace pmx::detail {

class blas_threads {
 public:
  /// `threads` <= 0 keeps the current setting.
  explicit blas_threads(int threads) {
    if (threads > 0) openblas_set_num_threads(threads);
  }
  ~blas_threads() { openblas_set_num_threads(saved_); }
  blas_threads(const blas_threads&) = delete;
  blas_threads& operator=(const blas_threads&) = delete;

 private:
  int saved_ = openblas_get_num_threads();
};

}  // namespace pmx::detail
