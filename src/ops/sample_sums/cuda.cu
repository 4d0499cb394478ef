// Device-resident sample sums: S and N as int32 n×n accumulators on the device for the whole
// GRM, fed block by block from variant-major rows (uploaded 2 bits per call, transposed into bit
// planes on the device, multiplied on the binary tensor cores of the crossprod op), and the row
// sums a as doubles. flush() is the only n×n download. When they do not fit the device budget,
// sample_sums_add runs each block through the cuda crossprod and table-product ops instead.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/device_collectives.hpp"
#include "core/host_transfer.hpp"
#include "ops/crossprod/cuda_planes.cuh"
#include "ops/sample_sums/cuda_integer_products.cuh"
#include "ops/sample_sums/integer_weights.hpp"
#include "ops/sample_sums/kernels.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx::kernels::cuda {

using detail::cuda_context;
using detail::device_buffer;
using namespace cuda_detail;

namespace {
constexpr int64_t pad256(int64_t x) { return (x + 255) / 256 * 256; }
constexpr int64_t pad32(int64_t x) { return (x + 31) / 32 * 32; }
constexpr int row_sum_slices = 64;

// part[slice][i] = Σ over the slice's variants l of tables[4 l + code(i, l)], 4 samples per thread.
__global__ void row_sums_partial(const uint8_t* __restrict__ raw, int64_t pitch, int64_t variants, int64_t samples,
                                 const double* __restrict__ tables, int64_t slice_len, double* __restrict__ part,
                                 int64_t part_ld) {
  const int64_t b = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (4 * b >= samples) return;
  const int64_t l0 = blockIdx.y * slice_len, l1 = l0 + slice_len < variants ? l0 + slice_len : variants;
  double acc[4] = {0, 0, 0, 0};
  for (int64_t l = l0; l < l1; ++l) {
    const unsigned byte = raw[l * pitch + b];
    const double* t = tables + 4 * l;
#pragma unroll
    for (int k = 0; k < 4; ++k) acc[k] += t[(byte >> (2 * k)) & 3u];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) part[blockIdx.y * part_ld + 4 * b + k] = acc[k];
}

// a[i] += Σ_slices part[slice][i], slices in order (the same rounding on every run).
__global__ void row_sums_reduce(const double* __restrict__ part, int64_t part_ld, int slices, int64_t samples,
                                double* __restrict__ a) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= samples) return;
  double s = 0;
  for (int k = 0; k < slices; ++k) s += part[k * part_ld + i];
  a[i] += s;
}

// The Gaussian kernel from the device S (lower triangle, ld lds) by 32 × 32 tiles of the lower
// triangle: each tile computed once (so K is exactly symmetric) and written twice, straight and
// through shared memory transposed, both coalesced.
constexpr int kernel_tile = 32;
__global__ void gaussian_from_sums(const int32_t* __restrict__ S, int64_t lds, int64_t n, double gamma,
                                   const double* __restrict__ cov, int64_t nc, double* __restrict__ K, int64_t ldk) {
  const int64_t i0 = int64_t{blockIdx.y} * kernel_tile, j0 = int64_t{blockIdx.x} * kernel_tile;
  if (j0 > i0) return;
  __shared__ double tile[kernel_tile][kernel_tile + 1];
  const int tx = threadIdx.x;
  for (int r = threadIdx.y; r < kernel_tile; r += blockDim.y) {
    const int64_t i = i0 + r, j = j0 + tx;
    double v = 0;
    if (i < n && j <= i) {
      double d = double(S[i * lds + i]) + double(S[j * lds + j]) - 2.0 * double(S[i * lds + j]);
      for (int64_t k = 0; k < nc; ++k) {
        const double e = cov[i * nc + k] - cov[j * nc + k];
        d += e * e;
      }
      v = exp(-gamma * d);
      K[i * ldk + j] = v;
    }
    tile[r][tx] = v;
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kernel_tile; r += blockDim.y) {  // K[j][i] = K[i][j], i > j
    const int64_t j = j0 + r, i = i0 + tx;
    if (i < n && j < n && i > j) K[j * ldk + i] = tile[tx][r];
  }
}

// The upper triangle of a device matrix from its lower one, by 32 × 32 tiles of the lower
// triangle read straight and written transposed through shared memory (both coalesced). Blocks
// read only entries with i >= j and write only entries with j > i: no block reads what another writes.
template <class T>
__global__ void mirror_lower_tiles(T* __restrict__ A, int64_t n, int64_t ld) {
  const int64_t i0 = int64_t{blockIdx.y} * kernel_tile, j0 = int64_t{blockIdx.x} * kernel_tile;
  if (j0 > i0) return;
  __shared__ T tile[kernel_tile][kernel_tile + 1];
  const int tx = threadIdx.x;
  for (int r = threadIdx.y; r < kernel_tile; r += blockDim.y) {
    const int64_t i = i0 + r, j = j0 + tx;
    tile[r][tx] = i < n && j <= i ? A[i * ld + j] : T{};
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kernel_tile; r += blockDim.y) {
    const int64_t j = j0 + r, i = i0 + tx;
    if (i < n && i > j) A[j * ld + i] = tile[tx][r];
  }
}

struct sizes {
  int64_t acc, raw, planes, tables, part;
  int64_t total() const { return acc + raw + planes + tables + part; }
};
}  // namespace

struct device_sums {
  int64_t n = 0, n_pad = 0, pitch = 0, kc = 0;
  bool want_S = false, want_N = false, want_a = false;
  // Chunks alternate between two raw (and row-sum table) buffers: chunk k+1 is uploaded on `copy`
  // while the compute stream still multiplies chunk k (uploaded[b]: buffer b is on the device;
  // consumed[b]: the compute stream is done with it).
  device_buffer S, N, a, raw[2], planes, tables[2], part;
  cudaStream_t copy = nullptr;
  cudaEvent_t uploaded[2] = {nullptr, nullptr}, consumed[2] = {nullptr, nullptr};
  int next = 0;
  int64_t chunks = 0;  // chunks added so far
  int64_t bytes = 0;
  // C on the int8 tensor cores (blocks without missing calls whose tables are affine); null when
  // C is not wanted, PMX_TABLE_CROSSPROD=blas, or it does not fit the budget.
  std::unique_ptr<integer_products> ints;
  int64_t integer_variants = 0;

  device_sums() = default;
  device_sums(const device_sums&) = delete;
  device_sums& operator=(const device_sums&) = delete;
  ~device_sums() {
    if (copy) cudaStreamSynchronize(copy), cudaStreamDestroy(copy);
    for (cudaEvent_t e : {uploaded[0], uploaded[1], consumed[0], consumed[1]})
      if (e) cudaEventDestroy(e);
  }
};

namespace {
sizes plan(int64_t n, bool S, bool N, bool a, int64_t kc) {
  const int64_t n_pad = pad256(n), pitch = pad32((n + 3) / 4);
  sizes z{};
  z.acc = (S + N) * n_pad * n_pad * 4 + (a ? n_pad * 8 : 0);
  z.raw = 2 * kc * pitch;
  z.planes = plane_bytes(7, n, kc);
  z.tables = a ? 2 * kc * 32 : 0;
  z.part = a ? row_sum_slices * 4 * pitch * 8 : 0;
  return z;
}

device_sums* create(const executor& exec, int64_t n, bool want_S, bool want_N, bool want_a, int64_t budget) {
  detail::cuda_scope scope(exec);
  // Chunks of up to 64 Ki variants (planes ~0.5 GB for 22 k samples); fewer when the budget is tight.
  int64_t kc = 65536;
  while (kc > 512 && plan(n, want_S, want_N, want_a, kc).total() > budget) kc /= 2;
  const sizes z = plan(n, want_S, want_N, want_a, kc);
  if (z.total() > budget || (n + 127) / 128 > 65535) return nullptr;
  auto d = std::make_unique<device_sums>();
  d->n = n, d->n_pad = pad256(n), d->pitch = pad32((n + 3) / 4), d->kc = kc;
  d->want_S = want_S, d->want_N = want_N, d->want_a = want_a;
  const size_t acc = static_cast<size_t>(d->n_pad * d->n_pad * 4);
  if (want_S) d->S.reserve(acc);
  if (want_N) d->N.reserve(acc);
  if (want_a) {
    d->a.reserve(static_cast<size_t>(d->n_pad * 8));
    for (auto& t : d->tables) t.reserve(static_cast<size_t>(z.tables / 2));
    d->part.reserve(static_cast<size_t>(z.part));
  }
  for (auto& r : d->raw) r.reserve(static_cast<size_t>(z.raw / 2));
  d->planes.reserve(static_cast<size_t>(z.planes));
  d->bytes = z.total();
  PMX_CUDA_CHECK(cudaStreamCreateWithFlags(&d->copy, cudaStreamNonBlocking));
  for (int b = 0; b < 2; ++b) {
    PMX_CUDA_CHECK(cudaEventCreateWithFlags(&d->uploaded[b], cudaEventDisableTiming));
    PMX_CUDA_CHECK(cudaEventCreateWithFlags(&d->consumed[b], cudaEventDisableTiming));
  }
  cudaStream_t st = scope.ctx.stream;
  if (want_S) PMX_CUDA_CHECK(cudaMemsetAsync(d->S.get(), 0, acc, st));
  if (want_N) PMX_CUDA_CHECK(cudaMemsetAsync(d->N.get(), 0, acc, st));
  if (want_a) PMX_CUDA_CHECK(cudaMemsetAsync(d->a.get(), 0, static_cast<size_t>(d->n_pad * 8), st));
  return d.release();
}

// `plans`: the int8 digits of each chunk of d->kc variants when C takes the integer route, else null.
void add(device_sums* d, const executor& exec, const variant_major_view& g, const double* a_tables, bool has_missing,
         const std::vector<integer_weight_plan>* plans) {
  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const int64_t n = d->n, bytes = (n + 3) / 4;
  const bool need_n = d->want_N && has_missing;
  const unsigned mask = (d->want_S ? 3u : 0u) | (need_n ? 4u : 0u);
  for (int64_t l0 = 0, cols = 0; l0 < g.n_variants; l0 += cols) {
    // The device multiplies a chunk only once all of it is up: a whole first chunk (1.6 GB of
    // calls at 100,000 samples) would leave it idle while staged and sent, so the first one of
    // the sums is an eighth (int8 plans are made per whole chunk: not with them).
    const int64_t want = plans || d->chunks > 0 ? d->kc : std::max<int64_t>(512, d->kc / 8);
    cols = std::min(want, g.n_variants - l0);
    ++d->chunks;
    const int b = d->next;
    d->next ^= 1;
    auto* raw = static_cast<uint8_t*>(d->raw[b].get());
    auto* tab = static_cast<double*>(d->tables[b].get());
    // Up on the copy stream once the compute stream is done with buffer b (chunk k - 2): 2-bit
    // rows in 64 MiB pieces through the pinned staging buffers (host fills overlap copies).
    PMX_CUDA_CHECK(cudaStreamWaitEvent(d->copy, d->consumed[b], 0));
    const int64_t piece = std::max<int64_t>(1, (int64_t{64} << 20) / d->pitch);
    detail::stream_to_device(
        c, cols, piece, static_cast<size_t>(d->pitch), [&](int64_t first, int64_t) { return raw + first * d->pitch; },
        [&](void* pinned, int64_t first, int64_t count) {
          detail::copy_rows_padded(static_cast<uint8_t*>(pinned), d->pitch, g, l0 + first, count, bytes,
                                   exec.threads());
        },
        [](const void*, int64_t, int64_t) {}, d->copy);
    if (d->want_a) {
      const int64_t tpiece = std::max<int64_t>(1, static_cast<int64_t>(c.pinned_bytes / 32));
      detail::stream_to_device(
          c, cols, tpiece, 32, [&](int64_t first, int64_t) { return tab + 4 * first; },
          [&](void* pinned, int64_t first, int64_t count) {
            std::copy_n(a_tables + 4 * (l0 + first), 4 * count, static_cast<double*>(pinned));
          },
          [](const void*, int64_t, int64_t) {}, d->copy);
    }
    PMX_CUDA_CHECK(cudaEventRecord(d->uploaded[b], d->copy));
    PMX_CUDA_CHECK(cudaStreamWaitEvent(c.stream, d->uploaded[b], 0));

    if (plans) d->ints->add(c, raw, d->pitch, (*plans)[static_cast<size_t>(l0 / d->kc)]);
    if (mask) {
      plane_set ps = make_plane_set(d->planes.get(), mask, n, cols);
      zero_padding_rows(ps, n, c.stream);
      build_planes_from_variant_rows(raw, d->pitch, cols, n, 0, ps, c.stream);
      if (d->want_S) {
        const product_target t{static_cast<int32_t*>(d->S.get()), 1};
        run_product(product::S, ps, 0, n, ps, 0, n, true, 0, 0, &t, 1, d->n_pad, c.stream);
      }
      if (need_n) {
        const product_target t{static_cast<int32_t*>(d->N.get()), 1};
        run_product(product::N, ps, 0, n, ps, 0, n, true, 0, 0, &t, 1, d->n_pad, c.stream);
      }
    }
    if (d->want_a) {
      const int64_t slice = (cols + row_sum_slices - 1) / row_sum_slices;
      const int slices = static_cast<int>((cols + slice - 1) / slice);
      const int64_t part_ld = 4 * d->pitch;
      auto* part = static_cast<double*>(d->part.get());
      const dim3 grid(static_cast<unsigned>((bytes + 127) / 128), static_cast<unsigned>(slices));
      row_sums_partial<<<grid, 128, 0, c.stream>>>(raw, d->pitch, cols, n, tab, slice, part, part_ld);
      PMX_CUDA_CHECK_LAUNCH();
      row_sums_reduce<<<static_cast<unsigned>((n + 255) / 256), 256, 0, c.stream>>>(
          part, part_ld, slices, n, static_cast<double*>(d->a.get()));
      PMX_CUDA_CHECK_LAUNCH();
    }
    PMX_CUDA_CHECK(cudaEventRecord(d->consumed[b], c.stream));
  }
}

void flush(device_sums* d, const executor& exec, int32_t* S, int32_t* N, int64_t ld, double* a) {
  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const int64_t n = d->n;
  auto download = [&](device_buffer& dev, int32_t* host) {
    // Lower triangle: a piece of rows [first, first + count) needs columns up to its last diagonal.
    auto width = [&](int64_t first, int64_t count) { return static_cast<size_t>(std::min(first + count, n)) * 4; };
    detail::stream_rows_to_host(c, dev.get(), static_cast<size_t>(d->n_pad) * 4, static_cast<size_t>(n) * 4, n, width,
                                [&](const void* src, int64_t first, int64_t count, size_t w) {
                                  const auto cols = static_cast<int64_t>(w / 4);
                                  detail::add_rows(host + first * ld, ld, static_cast<const int32_t*>(src), cols, count,
                                                   cols, true, first, 0, exec.threads());
                                });
    PMX_CUDA_CHECK(cudaMemsetAsync(dev.get(), 0, static_cast<size_t>(d->n_pad * d->n_pad * 4), c.stream));
  };
  if (d->want_S && S) download(d->S, S);
  if (d->want_N && N) download(d->N, N);
  if (d->want_a && a) {
    std::vector<double> h(static_cast<size_t>(n));
    PMX_CUDA_CHECK(cudaMemcpyAsync(h.data(), d->a.get(), static_cast<size_t>(n * 8), cudaMemcpyDeviceToHost, c.stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
    for (int64_t i = 0; i < n; ++i) a[i] += h[i];
    PMX_CUDA_CHECK(cudaMemsetAsync(d->a.get(), 0, static_cast<size_t>(n * 8), c.stream));
  }
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
}
}  // namespace

void gaussian_kernel_from_device_sums(device_sums* d, const executor& exec, double gamma, const double* covariates,
                                      int64_t nc, double* K, int64_t ldk) {
  PMX_EXPECTS(d->want_S, "device sums without S");
  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const int64_t n = d->n;
  device_buffer cov;
  if (nc > 0) {
    cov.reserve(static_cast<size_t>(n * nc) * sizeof(double));
    PMX_CUDA_CHECK(cudaMemcpyAsync(cov.get(), covariates, static_cast<size_t>(n * nc) * sizeof(double),
                                   cudaMemcpyHostToDevice, c.stream));
  }
  const unsigned tiles = static_cast<unsigned>((n + kernel_tile - 1) / kernel_tile);
  gaussian_from_sums<<<dim3(tiles, tiles), dim3(kernel_tile, 8), 0, c.stream>>>(
      static_cast<const int32_t*>(d->S.get()), d->n_pad, n, gamma, static_cast<const double*>(cov.get()), nc, K, ldk);
  PMX_CUDA_CHECK_LAUNCH();
  PMX_CUDA_CHECK(cudaMemsetAsync(d->S.get(), 0, static_cast<size_t>(d->n_pad * d->n_pad * 4), c.stream));
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
}

// The cpu backend's composition of the per-call ops, here with this (cuda) executor: each op then
// runs its own cuda kernels.
void sample_sums_add(const executor& exec, const variant_major_view& g, std::span<const code_table> c_tables,
                     std::span<const code_table> a_tables, const sample_sums_outputs& out) {
  cpu::sample_sums_add(exec, g, c_tables, a_tables, out);
}

device_sums* open_device_sums(const executor& exec, int64_t n, const sample_sums_outputs& out, executor& c_exec) {
  int64_t budget = 0;
  {
    detail::cuda_scope scope(exec);
    budget = detail::device_budget(exec, scope.ctx);
  }
  // When C is wanted too, its per-block op needs room of its own: the resident sums take at most
  // half of the budget, the int8 route of C at most half of the rest, and C's per-block FP64 op
  // (blocks with missing calls, tables that are not affine) what remains.
  std::unique_ptr<device_sums> d(
      create(exec, n, out.S != nullptr || out.S_on_device_only, out.N != nullptr, out.a != nullptr,
             out.C ? budget / 2 : budget));
  if (!d || !out.C) return d.release();
  if (exec.tuning().table_crossprod != tuning::route::blas) {
    const int64_t room = (budget - d->bytes) / 2;
    for (int slots = 10; slots >= 1 && !d->ints; --slots)
      if (integer_products::bytes(n, d->kc, slots) <= room) {
        detail::cuda_scope scope(exec);
        d->ints = std::make_unique<integer_products>(n, d->kc, slots, scope.ctx.stream);
        d->bytes += integer_products::bytes(n, d->kc, slots);
      }
  }
  c_exec.set_device_memory_budget(std::max<int64_t>(budget - d->bytes, 1));
  return d.release();
}

namespace {
// The int8 plans of a block's chunks (d->kc variants each), or false when a table is not affine.
bool plan_chunks(const device_sums* d, std::span<const code_table> tables, std::vector<integer_weight_plan>& plans) {
  const auto k = static_cast<int64_t>(tables.size());
  plans.resize(static_cast<size_t>((k + d->kc - 1) / d->kc));
  for (int64_t l0 = 0; l0 < k; l0 += d->kc) {
    integer_weight_plan& p = plans[static_cast<size_t>(l0 / d->kc)];
    if (!make_integer_weight_plan(tables.subspan(static_cast<size_t>(l0), static_cast<size_t>(std::min(d->kc, k - l0))), p) ||
        p.columns > integer_products::max_columns(d->kc))
      return false;
  }
  return true;
}
}  // namespace

void add_device_sums(device_sums* d, const executor& exec, const executor& c_exec, const variant_major_view& g,
                     std::span<const code_table> c_tables, std::span<const code_table> a_tables,
                     const sample_sums_outputs& out, bool has_missing, const std::function<void()>& before_host_write) {
  std::vector<integer_weight_plan> plans;
  const bool integer = out.C && d->ints && !has_missing && plan_chunks(d, c_tables, plans);
  if (out.C && !integer) before_host_write(), pmx::table_crossprod(c_exec, g, c_tables, out.C, out.ld);
  if (integer) d->integer_variants += g.n_variants;
  if (!integer && !d->want_S && !(d->want_N && has_missing) && !d->want_a) return;  // nothing on the device
  add(d, exec, g, out.a ? a_tables.front().data() : nullptr, has_missing, integer ? &plans : nullptr);
}

void flush_device_sums(device_sums* d, const executor& exec, const sample_sums_outputs& out) {
  flush(d, exec, out.S, out.N, out.ld, out.a);
  if (d->ints && out.C) {
    detail::cuda_scope scope(exec);
    d->ints->flush(scope.ctx, out.C, out.ld, exec.threads());
  }
}

namespace {
// Mirror, sum to the rows' owners, add this rank's rows into host `rows` (every column), zero.
template <class T>
void deliver_rows(const executor& exec, T* dev, int64_t n, int64_t ld_dev, const int64_t* first_row, T* rows,
                  int64_t ld) {
  const communicator& comm = exec.comm();
  const int P = comm.size(), me = comm.rank();
  {
    detail::cuda_scope scope(exec);
    const unsigned tiles = static_cast<unsigned>((n + kernel_tile - 1) / kernel_tile);
    mirror_lower_tiles<T><<<dim3(tiles, tiles), dim3(kernel_tile, 8), 0, scope.ctx.stream>>>(dev, n, ld_dev);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUDA_CHECK(cudaStreamSynchronize(scope.ctx.stream));
  }
  std::vector<int64_t> first(static_cast<size_t>(P + 1));
  for (int o = 0; o <= P; ++o) first[static_cast<size_t>(o)] = first_row[o] * ld_dev;
  detail::sum_to_owners(exec, dev, first.data());
  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const int64_t r0 = first_row[me], count = first_row[me + 1] - r0;
  const auto row_bytes = static_cast<size_t>(n) * sizeof(T);
  detail::stream_rows_to_host(c, dev + r0 * ld_dev, static_cast<size_t>(ld_dev) * sizeof(T), row_bytes, count,
                              [&](int64_t, int64_t) { return row_bytes; },
                              [&](const void* src, int64_t at, int64_t k, size_t) {
                                detail::add_rows(rows + at * ld, ld, static_cast<const T*>(src), n, k, n, false, 0, 0,
                                                 exec.threads());
                              });
  PMX_CUDA_CHECK(cudaMemsetAsync(dev, 0, static_cast<size_t>(ld_dev * ld_dev) * sizeof(T), c.stream));
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
}
}  // namespace

void flush_device_sums_to_owners(device_sums* d, const executor& exec, const sample_sums_outputs& rows,
                                 const int64_t* first_row, bool with_N, bool with_C) {
  const int64_t n = d->n;
  if (d->want_S && rows.S) deliver_rows(exec, static_cast<int32_t*>(d->S.get()), n, d->n_pad, first_row, rows.S, rows.ld);
  if (d->want_N && rows.N && with_N)
    deliver_rows(exec, static_cast<int32_t*>(d->N.get()), n, d->n_pad, first_row, rows.N, rows.ld);
  if (d->ints && rows.C && with_C) {
    double* C = nullptr;
    {
      detail::cuda_scope scope(exec);
      C = const_cast<double*>(d->ints->finish_on_device(scope.ctx.stream));
    }
    deliver_rows(exec, C, n, d->ints->ld_device(), first_row, rows.C, rows.ld);
    detail::cuda_scope scope(exec);
    d->ints->restart(scope.ctx.stream);
    PMX_CUDA_CHECK(cudaStreamSynchronize(scope.ctx.stream));
  }
  if (d->want_a && rows.a) flush(d, exec, nullptr, nullptr, 0, rows.a);
}

int64_t integer_route_variants(const device_sums* d) { return d->integer_variants; }

void close_device_sums(device_sums* d) noexcept {
  delete d;  // device_buffer frees without throwing
}

}  // namespace pmx::kernels::cuda
