// CUDA table_crossprod: C += Z Zᵀ (lower triangle), Z[i][l] = T[l][code(i, l)], in FP64 on cuBLAS.
//
// The variant-major 2-bit block is uploaded as is (2 bits per call, pinned staging), the tables
// beside it. Panels of up to 512 variants are decoded into doubles on the device - one panel at a
// time, never the whole matrix - and multiplied by cuBLAS into a device accumulator, which is
// downloaded and added into the caller's C at the end of the call.
//
// Layout. The host C is row-major; the device tile D holds row i of the tile at D + i * ldd, which
// cuBLAS (column-major) sees as Y = tileᵀ: Y(j, i) = C(i0 + i, j0 + j). On a diagonal tile the
// lower triangle of C is the upper triangle of Y: Y += Z_I Z_Iᵀ by SYRK on 4096-wide diagonal
// blocks and GEMM above them; off the diagonal Y += Z_J Z_Iᵀ by GEMM.
//
// Why C is not kept on the device across calls: the op's contract is "+= into host memory when
// it returns", so each call pays one n x n download (O(n²)) against O(n² k) products; with the
// GRM's variant blocks this is amortised for k of a few thousand variants and more. Keeping C
// resident needs an API that says when the host copy is wanted (an executor accumulation scope) -
// left for the op interface to grow, not smuggled in behind the contract.
//
// Memory budget: the tile of C (ta x tb doubles), two decoded panels and the uploaded chunk of
// variants must fit; the plan starts from one tile and one chunk and halves the largest part.
#include <algorithm>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/host_transfer.hpp"
#include "ops/table_products/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda_detail {
namespace {

using detail::cuda_context;

constexpr int64_t pad256(int64_t x) { return (x + 255) / 256 * 256; }
constexpr int64_t pad32(int64_t x) { return (x + 31) / 32 * 32; }
constexpr int64_t syrk_block = 4096;

enum slot_id { slot_raw, slot_tables, slot_c, slot_zi, slot_zj };

// Z[l * rows + i] = tables[(l_first + l) * 4 + code(i0 + i, l_first + l)] for i < rows, l < width.
__global__ void decode_panel(const uint8_t* __restrict__ raw, int64_t row_bytes, const double* __restrict__ tables,
                             int64_t l_first, int64_t width, int64_t i0, int64_t rows, double* __restrict__ Z) {
  const int64_t total = rows * width;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t l = t / rows, i = t - l * rows, s = i0 + i, v = l_first + l;
    const unsigned code = (raw[v * row_bytes + (s >> 2)] >> (2 * (s & 3))) & 3u;
    Z[t] = tables[v * 4 + code];
  }
}

void decode(cuda_context& c, const uint8_t* raw, int64_t row_bytes, const double* tables, int64_t l_first,
            int64_t width, int64_t i0, int64_t rows, double* Z) {
  const int64_t total = rows * width;
  const int64_t blocks = std::min<int64_t>((total + 255) / 256, 132 * 32);
  decode_panel<<<static_cast<unsigned>(blocks), 256, 0, c.stream>>>(raw, row_bytes, tables, l_first, width, i0, rows, Z);
  PMX_CUDA_CHECK_LAUNCH();
}

struct plan {
  int64_t t, kc, pw;
};

int64_t plan_bytes(const plan& p, int64_t row_bytes, bool two_panels) {
  const int64_t tile = pad256(p.t) * pad32(p.t) * 8;
  const int64_t panels = (two_panels ? 2 : 1) * p.t * p.pw * 8;
  return tile + panels + p.kc * row_bytes + p.kc * 32;
}

plan make_plan(int64_t n, int64_t k, int64_t row_bytes, int64_t budget) {
  plan p{n, k, std::min<int64_t>(512, k)};
  for (;;) {
    const bool two = p.t < n;
    if (plan_bytes(p, row_bytes, two) <= budget) return p;
    const int64_t tile = pad256(p.t) * pad32(p.t) * 8, chunk = p.kc * (row_bytes + 32);
    if (tile >= chunk && p.t > 256) p.t = std::max<int64_t>(256, pad256((p.t + 1) / 2));
    else if (p.kc > std::max<int64_t>(p.pw, 4096)) p.kc = std::max(p.pw, (p.kc + 1) / 2);
    else if (p.t > 256) p.t = std::max<int64_t>(256, pad256((p.t + 1) / 2));
    else if (p.kc > p.pw) p.kc = std::max(p.pw, (p.kc + 1) / 2);
    else if (p.pw > 16) p.pw = p.kc = std::max<int64_t>(16, p.pw / 2);
    else
      throw unsupported_error("table_crossprod (cuda): a device memory budget of " + std::to_string(budget >> 20) +
                              " MiB is too small (this call needs at least " +
                              std::to_string((plan_bytes(p, row_bytes, two) >> 20) + 1) + " MiB)");
  }
}

}  // namespace

// `tables` holds 4 doubles per variant (T[l][code]).
void crossprod_of_tables(const executor& exec, const variant_major_view& g, const double* tables, double* C,
                         int64_t ld) {
  const int64_t n = g.n_samples, k = g.n_variants, rb = g.row_bytes;
  if (n == 0 || k == 0) return;
  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const int64_t budget = detail::device_budget(exec, c);
  const plan p = make_plan(n, k, rb, budget);
  const int64_t ldd = pad32(p.t);
  std::vector<size_t> sizes(slot_zj + 1, 0);
  sizes[slot_raw] = static_cast<size_t>(p.kc * rb);
  sizes[slot_tables] = static_cast<size_t>(p.kc * 32);
  sizes[slot_c] = static_cast<size_t>(pad256(p.t) * ldd * 8);
  sizes[slot_zi] = static_cast<size_t>(p.t * p.pw * 8);
  sizes[slot_zj] = p.t < n ? static_cast<size_t>(p.t * p.pw * 8) : 0;
  c.reserve_scratch(sizes, budget);
  auto* raw = static_cast<uint8_t*>(c.slot(slot_raw));
  auto* tab = static_cast<double*>(c.slot(slot_tables));
  auto* D = static_cast<double*>(c.slot(slot_c));
  auto* zi = static_cast<double*>(c.slot(slot_zi));
  auto* zj = static_cast<double*>(c.slot(slot_zj));
  const double one = 1.0;

  const int64_t tiles = (n + p.t - 1) / p.t;
  const bool resident = p.kc >= k;  // the whole block stays on the device for every tile
  bool uploaded = false;
  for (int64_t I = 0; I < tiles; ++I)
    for (int64_t J = 0; J <= I; ++J) {
      const int64_t i0 = I * p.t, ta = std::min(p.t, n - i0), j0 = J * p.t, tb = std::min(p.t, n - j0);
      PMX_CUDA_CHECK(cudaMemsetAsync(D, 0, static_cast<size_t>(ta * ldd * 8), c.stream));
      for (int64_t l0 = 0; l0 < k; l0 += p.kc) {
        const int64_t lc = std::min(p.kc, k - l0);
        if (!resident || !uploaded) {
          const int64_t piece = std::max<int64_t>(1, (int64_t{64} << 20) / rb);
          detail::stream_to_device(
              c, lc, piece, static_cast<size_t>(rb), [&](int64_t first, int64_t) { return raw + first * rb; },
              [&](void* pinned, int64_t first, int64_t count) {
                detail::copy_parallel(pinned, g.row(l0 + first), static_cast<size_t>(count * rb), exec.threads());
              },
              [](const void*, int64_t, int64_t) {});
          PMX_CUDA_CHECK(cudaMemcpyAsync(tab, tables + l0 * 4, static_cast<size_t>(lc * 32), cudaMemcpyHostToDevice,
                                         c.stream));
          uploaded = true;
        }
        for (int64_t p0 = 0; p0 < lc; p0 += p.pw) {
          const int w = static_cast<int>(std::min(p.pw, lc - p0));
          decode(c, raw, rb, tab, p0, w, i0, ta, zi);
          if (I == J) {
            for (int64_t b0 = 0; b0 < ta; b0 += syrk_block) {
              const int nb = static_cast<int>(std::min(syrk_block, ta - b0));
              PMX_CUBLAS_CHECK(cublasDsyrk(c.blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, nb, w, &one, zi + b0,
                                           static_cast<int>(ta), &one, D + b0 + b0 * ldd, static_cast<int>(ldd)));
              if (b0 > 0)
                PMX_CUBLAS_CHECK(cublasDgemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(b0), nb, w, &one, zi,
                                             static_cast<int>(ta), zi + b0, static_cast<int>(ta), &one, D + b0 * ldd,
                                             static_cast<int>(ldd)));
            }
          } else {
            decode(c, raw, rb, tab, p0, w, j0, tb, zj);
            PMX_CUBLAS_CHECK(cublasDgemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(tb), static_cast<int>(ta),
                                         w, &one, zj, static_cast<int>(tb), zi, static_cast<int>(ta), &one, D,
                                         static_cast<int>(ldd)));
          }
        }
      }
      // Lower triangle: a piece of rows [first, first + count) needs columns up to its last diagonal.
      const bool lower = I == J;
      auto width = [&](int64_t first, int64_t count) {
        return static_cast<size_t>(lower ? std::clamp<int64_t>(i0 + first + count - j0, 0, tb) : tb) * 8;
      };
      detail::stream_rows_to_host(c, D, static_cast<size_t>(ldd) * 8, static_cast<size_t>(tb) * 8, ta, width,
                                  [&](const void* src, int64_t first, int64_t count, size_t bytes) {
                                    const auto cols = static_cast<int64_t>(bytes / 8);
                                    detail::add_rows(C + (i0 + first) * ld + j0, ld, static_cast<const double*>(src),
                                                     cols, count, cols, lower, i0 + first, j0, exec.threads());
                                  });
    }
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
}

}  // namespace pmx::kernels::cuda_detail

// The op's cuda kernels. table_rowsums and missing_crossprod run on the host threads the executor
// owns, with the cpu kernels: one O(n k) (resp. O(n × missing calls)) pass over host-resident
// codes costs about what uploading those codes would, so a device round trip cannot win for them.
namespace pmx::kernels::cuda {

void table_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> tables,
                     double* C, int64_t ld) {
  static_assert(sizeof(code_table) == 4 * sizeof(double), "code tables are 4 contiguous doubles");
  if (g.n_samples == 0 || g.n_variants == 0) return;
  cuda_detail::crossprod_of_tables(exec, g, tables.data()->data(), C, ld);
}

void table_rowsums(const executor& exec, const variant_major_view& g, std::span<const code_table> tables,
                   std::span<double> y) {
  cpu::table_rowsums(exec.host(), g, tables, y);
}

void missing_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> tables,
                       std::span<const double> r, double* Y, double* R, int64_t ld) {
  cpu::missing_crossprod(exec.host(), g, tables, r, Y, R, ld);
}

}  // namespace pmx::kernels::cuda
