#include "core/device_collectives.hpp"

namespace pmx::detail {

void host_sum_over_ranks(const communicator& comm, double* P, int64_t rows, int64_t cols, double beta,
                         double* W, int64_t ld_w) {
  comm.sum(P, rows * cols);
  if (P == W) return;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c) {
      double& w = W[i * ld_w + c];
      w = beta == 0.0 ? P[i * cols + c] : P[i * cols + c] + beta * w;
    }
}

}  // namespace pmx::detail
