// matern_covariance on the GPU: the exp-sinh table (65,280 bytes) in constant memory, one thread a
// distance, C and every derivative in one pass over the nodes.
//
// Why warp-uniform windows: constant memory serves a warp in one transaction only when its lanes
// read the same address. Each lane's window starts at its integrand's peak (point.hpp); the warp
// walks the union of its lanes' windows together (from the lowest peak up, then down), each lane
// adding every node of the union (extra nodes are exact quadrature nodes, not an approximation)
// until all lanes are past their cut-off.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/cuda_context.hpp"
#include "ops/matern_covariance/bessel_k.hpp"
#include "ops/matern_covariance/kernels.hpp"
#include "ops/matern_covariance/quadrature_table.hpp"
#include "ops/matern_covariance/trapezoid.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
namespace {

using detail::matern_nodes;
using detail::matern_origin;

__constant__ double c_s[matern_nodes];
__constant__ double c_r[matern_nodes];
__constant__ double c_q[matern_nodes];

constexpr unsigned full_mask = 0xffffffffu;
constexpr double cut = 60;  // e-folds below the largest term, as in matern_window

struct lane_sums {
  detail::matern_sums m;
  double top = -INFINITY;
};

// The warp's walk over one form's nodes (Complement: the complement integrand). `active` lanes
// take part in the stopping rule; every lane runs the loop (so that the reads stay uniform).
template <bool Complement>
__device__ void warp_walk(const detail::matern_consts& k, double a, double b, double log_a, int start_lane, bool active,
                          detail::matern_sums& m) {
  const int st = k.stride;
  const bool deriv = k.derivatives != 0;
  const int start = __reduce_min_sync(full_mask, active ? start_lane : matern_nodes);
  if (start >= matern_nodes) return;  // no active lane in this warp
  double top = -INFINITY;
  bool done = !active;
  for (int i = start; i < matern_nodes; i += st) {
    if (__all_sync(full_mask, done)) break;
    if (!done) {
      const double e = Complement ? detail::matern_complement_node(c_s[i], c_r[i], c_q[i], k.nu, a, b, log_a, deriv, m)
                                  : detail::matern_direct_node(c_s[i], c_r[i], c_q[i], k.nu, a, b, log_a, deriv, m);
      top = fmax(top, e);
      if (e < top - cut && i > start_lane) done = true;
    }
  }
  done = !active;
  for (int i = start - st; i >= 0; i -= st) {
    if (__all_sync(full_mask, done)) break;
    if (!done) {
      const double e = Complement ? detail::matern_complement_node(c_s[i], c_r[i], c_q[i], k.nu, a, b, log_a, deriv, m)
                                  : detail::matern_direct_node(c_s[i], c_r[i], c_q[i], k.nu, a, b, log_a, deriv, m);
      top = fmax(top, e);
      if (e < top - cut && i < start_lane) done = true;
    }
  }
}

__global__ void __launch_bounds__(256) matern_kernel(detail::matern_consts k, const double* __restrict__ h, int64_t n,
                                                     matern_outputs out) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const double hv = i < n ? h[i] : 0.0;
  const double a = k.a_per_h2 * hv * hv, b = k.b_per_h2 * hv * hv, log_a = log(a);
  // h = 0, h beyond range and the lanes past n walk nothing of their own
  const bool beyond = detail::matern_beyond_range(a);
  const bool active = i < n && hv > 0 && !beyond;
  const int start = active ? detail::matern_peak_index(k.nu, a, matern_origin, matern_nodes, detail::matern_delta, k.stride)
                           : matern_nodes;
  detail::matern_sums m;
  warp_walk<false>(k, a, b, log_a, start, active, m);
  const bool complement = active && detail::matern_use_complement(k.stride * m.I * k.inv_gamma, a, c_r[0]);
  detail::matern_sums c;
  if (__any_sync(full_mask, complement)) warp_walk<true>(k, a, b, log_a, start, complement, c);
  if (i >= n) return;
  const detail::matern_point p = beyond    ? detail::matern_point{0, 0, 0, 0, 0}
                                 : !active ? detail::matern_at_zero(k)
                                 : complement ? detail::matern_finish(k, true, c, k.stride)
                                              : detail::matern_finish(k, false, m, k.stride);
  store_matern(out, i, p);
}

void upload_table(cudaStream_t stream) {
  const detail::matern_table& t = detail::matern_quadrature_table();
  PMX_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_s, t.s, sizeof t.s, 0, cudaMemcpyHostToDevice, stream));
  PMX_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_r, t.r, sizeof t.r, 0, cudaMemcpyHostToDevice, stream));
  PMX_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_q, t.q, sizeof t.q, 0, cudaMemcpyHostToDevice, stream));
}

// The trapezoid route (trapezoid.hpp): one thread a distance; every lane sums the same number of
// explicit nodes (from its own place in the per-call table, in global memory, laid out so that
// neighbouring windows share cache lines), so the warps only diverge where a lane needs the
// complement form. The distances that the exp-sinh sums serve (trap_case_of) are left to a second
// kernel: inlined, that rare path's loops would hold registers the trapezoid sums need (at the
// four blocks an SM that give 32 warps to hide the exps' latency, ptxas spilled 48 bytes with it,
// 4 without).
__global__ void __launch_bounds__(256, 4) trapezoid_kernel(detail::matern_consts k, detail::trap_view t,
                                                           const double* __restrict__ h, int64_t n, matern_outputs out) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const double hv = h[i];
  switch (detail::trap_case_of(k, hv)) {
    case detail::trap_case::zero: return store_matern(out, i, detail::matern_at_zero(k));
    case detail::trap_case::beyond: return store_matern(out, i, detail::matern_point{0, 0, 0, 0, 0});
    case detail::trap_case::trapezoid: return store_matern(out, i, detail::matern_trapezoid(k, t, hv));
    case detail::trap_case::exp_sinh: return;
  }
}

// The rest of the trapezoid route: the exp-sinh sums (global copies of that table) where the
// trapezoid rule is not accurate.
struct global_exp_sinh {
  const double *s, *r, *q;
};

__global__ void __launch_bounds__(256) trapezoid_fallback_kernel(detail::matern_consts k, global_exp_sinh exp_sinh,
                                                                 const double* __restrict__ h, int64_t n,
                                                                 matern_outputs out) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const double hv = h[i];
  if (detail::trap_case_of(k, hv) == detail::trap_case::exp_sinh)
    store_matern(out, i, detail::matern_window(k, exp_sinh, matern_nodes, matern_origin, detail::matern_delta, hv));
}

// The closed form (bessel_k.hpp) for C, dC/dσ², dC/dρ: one thread a distance; the per-call
// constants (4 KB) travel as the kernel's parameter (CUDA ≥ 12.1 allows up to 32 KB), which the
// lanes read uniformly.
__global__ void __launch_bounds__(256) bessel_kernel(const detail::bessel_consts k, const double* __restrict__ h,
                                                     int64_t n, matern_outputs out) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n) store_matern(out, i, detail::matern_bessel_k_point(k, h[i]));
}

// The least and greatest finite positive distance (as bit patterns: non-negative doubles order as
// their integers), for the range of the per-call table.
__global__ void positive_range_kernel(const double* __restrict__ h, int64_t n, unsigned long long* lohi) {
  unsigned long long lo = ~0ull, hi = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const double v = h[i];
    if (v > 0 && v < INFINITY) {
      const auto b = static_cast<unsigned long long>(__double_as_longlong(v));
      lo = b < lo ? b : lo, hi = b > hi ? b : hi;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long l = __shfl_down_sync(full_mask, lo, o), g = __shfl_down_sync(full_mask, hi, o);
    lo = l < lo ? l : lo, hi = g > hi ? g : hi;
  }
  if ((threadIdx.x & 31) == 0) atomicMin(&lohi[0], lo), atomicMax(&lohi[1], hi);
}

// Smallest and largest positive distance of h (host or device memory); false if there is none.
bool positive_range(const double* h, int64_t n, bool on_device, cudaStream_t stream, double& lo, double& hi) {
  lo = INFINITY, hi = 0;
  if (!on_device) {
    for (int64_t i = 0; i < n; ++i)
      if (h[i] > 0 && h[i] < INFINITY) lo = std::min(lo, h[i]), hi = std::max(hi, h[i]);
    return hi > 0;
  }
  unsigned long long init[2] = {~0ull, 0}, got[2];
  unsigned long long* d = nullptr;
  PMX_CUDA_CHECK(cudaMallocAsync(&d, sizeof init, stream));
  PMX_CUDA_CHECK(cudaMemcpyAsync(d, init, sizeof init, cudaMemcpyHostToDevice, stream));
  const int64_t blocks = std::min<int64_t>((n + 255) / 256, 2048);
  positive_range_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(h, n, d);
  PMX_CUDA_CHECK_LAUNCH();
  PMX_CUDA_CHECK(cudaMemcpyAsync(got, d, sizeof got, cudaMemcpyDeviceToHost, stream));
  PMX_CUDA_CHECK(cudaFreeAsync(d, stream));
  PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (got[1] == 0) return false;
  std::memcpy(&lo, &got[0], sizeof lo), std::memcpy(&hi, &got[1], sizeof hi);
  return true;
}

// Runs launch(d_h, count, d_out) over the distances: at once when they are in device memory, else
// in pieces of at most 4 Mi distances through scratch slots (h, then each output).
template <class Launch>
void run_pieces(const executor& exec, detail::cuda_context& c, const double* h, int64_t n, const matern_outputs& out,
                bool on_device, Launch launch) {
  double* outs[5] = {out.C, out.dsigma2, out.drho, out.dnu, out.d2nu};
  if (on_device) {
    for (double* o : outs)
      PMX_EXPECTS(!o || detail::is_device_pointer(o), "Matérn covariance: outputs in the distances' memory space");
    launch(h, n, out);
    PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
    return;
  }
  const int64_t budget = detail::device_budget(exec, c);
  int wanted = 0;
  for (double* o : outs) wanted += o != nullptr;
  int64_t piece = std::min<int64_t>(n, int64_t{1} << 22);
  while (piece > 1024 && piece * 8 * (1 + wanted) > budget) piece /= 2;
  std::vector<size_t> sizes(static_cast<size_t>(1 + wanted), static_cast<size_t>(piece) * sizeof(double));
  c.reserve_scratch(sizes, budget);
  auto* d_h = static_cast<double*>(c.slot(0));
  for (int64_t first = 0; first < n; first += piece) {
    const int64_t count = std::min(piece, n - first);
    const size_t bytes = static_cast<size_t>(count) * sizeof(double);
    PMX_CUDA_CHECK(cudaMemcpyAsync(d_h, h + first, bytes, cudaMemcpyHostToDevice, c.stream));
    matern_outputs d{};
    double** d_outs[5] = {&d.C, &d.dsigma2, &d.drho, &d.dnu, &d.d2nu};
    int slot = 1;
    for (int o = 0; o < 5; ++o)
      if (outs[o]) *d_outs[o] = static_cast<double*>(c.slot(slot++));
    launch(d_h, count, d);
    for (int o = 0; o < 5; ++o)
      if (outs[o])
        PMX_CUDA_CHECK(cudaMemcpyAsync(outs[o] + first, *d_outs[o], bytes, cudaMemcpyDeviceToHost, c.stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
  }
}

constexpr int threads_per_block = 256;
unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + threads_per_block - 1) / threads_per_block); }

}  // namespace

void matern_quadrature(const executor& exec, const detail::matern_consts& k, const double* h, int64_t n,
                       const matern_outputs& out) {
  detail::cuda_scope scope(exec);
  detail::cuda_context& c = scope.ctx;
  upload_table(c.stream);
  run_pieces(exec, c, h, n, out, detail::is_device_pointer(h), [&](const double* d_h, int64_t count, const matern_outputs& d) {
    matern_kernel<<<blocks_for(count), threads_per_block, 0, c.stream>>>(k, d_h, count, d);
    PMX_CUDA_CHECK_LAUNCH();
  });
}

void matern_bessel(const executor& exec, const detail::bessel_consts& k, const double* h, int64_t n,
                   const matern_outputs& out) {
  detail::cuda_scope scope(exec);
  detail::cuda_context& c = scope.ctx;
  run_pieces(exec, c, h, n, out, detail::is_device_pointer(h), [&](const double* d_h, int64_t count, const matern_outputs& d) {
    bessel_kernel<<<blocks_for(count), threads_per_block, 0, c.stream>>>(k, d_h, count, d);
    PMX_CUDA_CHECK_LAUNCH();
  });
}

void matern_trapezoid(const executor& exec, const detail::matern_consts& k, const double* h, int64_t n,
                      const matern_outputs& out) {
  detail::cuda_scope scope(exec);
  detail::cuda_context& c = scope.ctx;
  const bool on_device = detail::is_device_pointer(h);
  // The per-call table for the distances' range of a (trapezoid_table.hpp), and the exp-sinh
  // table for the fallback, in one device block.
  double h_lo, h_hi;
  detail::trap_table t;
  if (positive_range(h, n, on_device, c.stream, h_lo, h_hi)) t = detail::build_trap_table_for(k.nu, k.a_per_h2, h_lo, h_hi);
  const detail::matern_table& q = detail::matern_quadrature_table();
  const size_t nodes = t.node.size() * sizeof(detail::trap_node), Q = t.Q.size() * sizeof(double),
               prefix = t.prefix.size() * sizeof(double), tail = t.tail.size() * sizeof(double), es = sizeof q.s;
  char* block = nullptr;
  PMX_CUDA_CHECK(cudaMallocAsync(&block, nodes + Q + prefix + tail + 3 * es, c.stream));
  size_t at = 0;  // (the nodes first: their 16-byte loads need the alignment)
  auto put = [&](const void* src, size_t bytes) {
    if (bytes) PMX_CUDA_CHECK(cudaMemcpyAsync(block + at, src, bytes, cudaMemcpyHostToDevice, c.stream));
    at += bytes;
    return reinterpret_cast<const double*>(block + at - bytes);
  };
  detail::trap_view v = t.view();
  v.node = reinterpret_cast<const detail::trap_node*>(put(t.node.data(), nodes));
  v.Q = put(t.Q.data(), Q);
  v.prefix = put(t.prefix.data(), prefix);
  v.tail = put(t.tail.data(), tail);
  const global_exp_sinh g{put(q.s, es), put(q.r, es), put(q.q, es)};
  try {
    run_pieces(exec, c, h, n, out, on_device, [&](const double* d_h, int64_t count, const matern_outputs& d) {
      trapezoid_kernel<<<blocks_for(count), threads_per_block, 0, c.stream>>>(k, v, d_h, count, d);
      PMX_CUDA_CHECK_LAUNCH();
      trapezoid_fallback_kernel<<<blocks_for(count), threads_per_block, 0, c.stream>>>(k, g, d_h, count, d);
      PMX_CUDA_CHECK_LAUNCH();
    });
  } catch (...) {
    cudaFreeAsync(block, c.stream);
    throw;
  }
  PMX_CUDA_CHECK(cudaFreeAsync(block, c.stream));
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
}

}  // namespace pmx::kernels::cuda
