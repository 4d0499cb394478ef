// Backend kernels of sample_sums (signatures once; validated and dispatched by sample_sums.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <span>

#include "panoramix/ops/sample_sums.hpp"

namespace pmx::kernels {
// sample_sums_add: adds the variants of block g into the host outputs (+=, lower triangles of S,
// N, C; every entry of a); null outputs are skipped. The front passes N only for blocks that may
// have missing calls (the others are counted by add_uniform_pairs at flush()).
#define PMX_SAMPLE_SUMS_KERNELS                                                                              \
  void sample_sums_add(const executor& exec, const variant_major_view& g, std::span<const code_table> c_tables, \
                       std::span<const code_table> a_tables, const sample_sums_outputs& out)
namespace reference { PMX_SAMPLE_SUMS_KERNELS; }  // reference.cpp: plain loops over the codes
namespace cpu { PMX_SAMPLE_SUMS_KERNELS; }        // cpu.cpp: the crossprod and table-product ops
namespace cuda { PMX_SAMPLE_SUMS_KERNELS; }       // cuda.cu: the same ops on the device, per block
#undef PMX_SAMPLE_SUMS_KERNELS

/// N[i][j] += k for j <= i < n (host memory, the executor's threads, on every backend: N is a host
/// output): the pairs of the variants promised free of missing calls, added once per flush().
void add_uniform_pairs(const executor& exec, int64_t n, int32_t* N, int64_t ld, int32_t k);

/// K (host memory) = the Gaussian kernel of a host S lower triangle (finish_gaussian_kernel's
/// formula), the executor's threads.
void gaussian_kernel_from_sums(const executor& exec, int64_t n, const int32_t* S, int64_t ld, double gamma,
                               const double* covariates, int64_t nc, double* K, int64_t ldk);

// Device-resident sums of the cuda backend (cuda.cu, or cuda_stub.cpp without CUDA): S, N
// (int32 n×n) and a on the device across add() calls, downloaded once per flush(); C too, for the
// blocks that take its int8 route (no missing calls, affine tables: cuda_integer_products.cuh).
namespace cuda {
struct device_sums;
/// Device sums for the S, N, a (and C's int8 route) of `out` (n samples) when they fit the device
/// budget (with room left for C's per-block op when out.C is wanted: c_exec then gets the rest of the budget), else
/// null (the caller adds block by block with sample_sums_add).
device_sums* open_device_sums(const executor& exec, int64_t n, const sample_sums_outputs& out, executor& c_exec);
/// Adds block g: C (when wanted) by the per-block op on c_exec, S always (when wanted), N when
/// `has_missing`, a through a_tables. Returns once the block has been copied out of host memory.
/// `before_host_write` runs before anything is added into host memory (C's per-block op).
void add_device_sums(device_sums* d, const executor& exec, const executor& c_exec, const variant_major_view& g,
                     std::span<const code_table> c_tables, std::span<const code_table> a_tables,
                     const sample_sums_outputs& out, bool has_missing, const std::function<void()>& before_host_write);
/// Adds the device sums into the host outputs (S, N lower triangles; a) and zeroes them.
void flush_device_sums(device_sums* d, const executor& exec, const sample_sums_outputs& out);
/// Over several ranks (sample_sums_outputs::rows_over_ranks): the device sums (S; N when `with_N`;
/// C's int8 part when `with_C`) mirrored to whole rows on the device, summed over the ranks to the
/// owners of their rows (rows [first_row[o], first_row[o + 1]) to rank o, in rank order), and this
/// rank's rows added into `rows` (at (i − first_row[rank]) * rows.ld + j, every column j); a added
/// into rows.a (this rank's own, not summed). The device sums then start again from zero. Collective.
void flush_device_sums_to_owners(device_sums* d, const executor& exec, const sample_sums_outputs& rows,
                                 const int64_t* first_row, bool with_N, bool with_C);
void close_device_sums(device_sums* d) noexcept;
/// Variants whose C products took the int8 route so far.
int64_t integer_route_variants(const device_sums* d);
/// The Gaussian kernel of the device S (sample_sums::finish_gaussian_kernel) into device K; zeroes S.
void gaussian_kernel_from_device_sums(device_sums* d, const executor& exec, double gamma, const double* covariates,
                                      int64_t nc, double* K, int64_t ldk);
}  // namespace cuda
}  // namespace pmx::kernels
