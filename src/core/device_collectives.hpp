// Sums over the ranks of an executor's communicator for data in the executor's memory: host
// memory through MPI (communicator::sum), device memory of a cuda executor through NCCL where the
// build has it (an all-gather, then every rank adds the contributions in rank order on its GPU:
// the same bits as the host route), else through the host.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"

namespace pmx::detail {

/// W ← Σ_ranks P_r + β W, for the rows × cols matrices P (this rank's contribution, dense, leading
/// dimension cols; overwritten) and W (leading dimension ld_w), both host memory or both device
/// memory of a cuda executor. The sum is added in rank order, so every rank gets the same bits;
/// β = 0 does not read W. P may be W itself when β = 0 and ld_w = cols.
void sum_over_ranks(const executor& exec, double* P, int64_t rows, int64_t cols, double beta, double* W,
                    int64_t ld_w);

/// communicator::sum_to_owners for host memory or device memory of a cuda executor (NCCL sends and
/// receives, then each owner adds in rank order on its GPU: the host route's bits).
void sum_to_owners(const executor& exec, double* data, const int64_t* first);
void sum_to_owners(const executor& exec, int32_t* data, const int64_t* first);

struct cuda_context;

/// Inside an op that holds ctx (its cuda_scope) of a cuda executor, on `stream` (a cudaStream_t of
/// ctx's device), through NCCL in the order every rank calls them; without NCCL in the build,
/// through the host (the stream synchronised). `bytes` bytes of device memory from rank `root` to
/// every rank of exec.comm().
void device_broadcast(const executor& exec, cuda_context& ctx, void* data, int64_t bytes, int root, void* stream);
/// The sum over the ranks of `count` floats of device memory `in` into `out` on rank `root` (out is
/// written on root only).
void device_sum_to_root(const executor& exec, cuda_context& ctx, const float* in, float* out, int64_t count, int root,
                        void* stream);

/// The same for host memory only (what sum_over_ranks does with host pointers).
void host_sum_over_ranks(const communicator& comm, double* P, int64_t rows, int64_t cols, double beta,
                         double* W, int64_t ld_w);

}  // namespace pmx::detail
