// OpenBLAS's thread count for one scope (its setting is process-wide): the executor's threads for
// a BLAS/LAPACK call, or 1 where the caller parallelises with OpenMP itself. Restored on exit.
#pragma once
#include <cblas.h>
#include <dlfcn.h>

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

/// OpenBLAS (its pthreads build, Debian's default) starts its worker threads when the library
/// loads, and they spin (sched_yield) for about 2^28 cycles before they sleep: on a 2-core machine a
/// short command that never calls BLAS (convert, freq) loses one core to them for its first ~0.1 s.
/// Its exported blas_thread_shutdown_ stops them; the next threaded BLAS call starts them again.
/// Looked up at run time: other builds (OpenMP, serial) have no such threads and no such symbol.
inline void stop_idle_blas_threads() {
  using shutdown_fn = int (*)();
  if (auto* f = reinterpret_cast<shutdown_fn>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"))) f();
}

}  // namespace pmx::detail
