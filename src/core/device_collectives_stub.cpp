// Without CUDA every pointer is host memory.
#include "core/device_collectives.hpp"

namespace pmx::detail {

void sum_over_ranks(const executor& exec, double* P, int64_t rows, int64_t cols, double beta, double* W,
                    int64_t ld_w) {
  host_sum_over_ranks(exec.comm(), P, rows, cols, beta, W, ld_w);
}

void sum_to_owners(const executor& exec, double* data, const int64_t* first) { exec.comm().sum_to_owners(data, first); }
void sum_to_owners(const executor& exec, int32_t* data, const int64_t* first) { exec.comm().sum_to_owners(data, first); }

}  // namespace pmx::detail
