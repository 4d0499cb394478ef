// lmm_search on the GPU: one thread block per variant runs GEMMA's whole search (reml_math.hpp,
// the host's arithmetic) on x = Uᵀz where the rotation left it in device memory. Each likelihood
// evaluation is a block-wide pass over the n samples forming the weighted Gram sums of [W | x | y]
// (in chunks of pairs, partial sums in registers, warp shuffles, then a fixed-order sum over the
// warps: the same bits on every run); thread 0 turns them into the likelihood (O(K³)) and every
// thread reads the result, so all threads take the same branch of the search. Only the fits come
// back; the p-values (Boost's F tail) are formed on the host.
#include <cmath>
#include <vector>

#include "core/cuda_context.hpp"
#include "ops/lmm_search/kernels.hpp"
#include "ops/lmm_search/reml_math.hpp"
#include "ops/lmm_search/restricted_likelihood.hpp"
#include "panoramix/error.hpp"

namespace pmx {
struct lmm_search_operand::device_copy {
  double* d = nullptr;     // n eigenvalues
  double* Wy = nullptr;    // Uᵀ[W | y], n × (c + 1)
  double* grid = nullptr;  // regions + 1 points
  ~device_copy() {
    cudaFree(d);
    cudaFree(Wy);
    cudaFree(grid);
  }
};
}  // namespace pmx

namespace pmx::kernels::cuda {
namespace {

namespace reml = detail::reml;
constexpr int max_K = lmm_search_operand::max_device_columns;
constexpr int block_threads = 128, warps = block_threads / 32;
constexpr int chunk = 8;                       // column pairs per pass over the samples
constexpr int sums = chunk * 4 + 3;            // their powers 0..3, and Σh, Σh², Σ log|λd + 1|

struct variant_out {
  double lambda, logl, beta, se, F, df;
  int status;  // lmm_fit_status
};

struct problem {
  int64_t n;
  int c;
  const double* d;
  const double* Wy;
  const double* grid;
  double l_min, l_max;
  int regions;
  const double* Xt;
  int64_t ldx;
  const uint8_t* test;
  double fixed_lambda;
  variant_out* out;
};

// One block's state, in shared memory.
struct block_state {
  double g[4][max_K * max_K];
  double p[4][max_K * max_K];
  double pivot[4][max_K];
  double partial[warps][sums];
  const double* col[max_K];
  unsigned char pa[max_K * (max_K + 1) / 2], pb[max_K * (max_K + 1) / 2];
  double trace_h, trace_h2, logdet_h;
  reml::point result;
  int flag;
};

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// G_r for r in [r0, r1] of every column pair at λ (r0 = 0: the unweighted sums, λ unused), and
// the traces of λ when r1 ≥ 1. Every thread of the block calls it.
__device__ void weigh(block_state& s, const problem& q, int K, double lambda, int r0, int r1, bool with_logdet) {
  const int pairs = K * (K + 1) / 2;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int q0 = 0; q0 < pairs; q0 += chunk) {
    double acc[chunk][4];
#pragma unroll
    for (int k = 0; k < chunk; ++k)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[k][r] = 0;
    double t1 = 0, t2 = 0, ld = 0;
    const bool traces = q0 == 0 && r1 >= 1;
    for (int64_t i = threadIdx.x; i < q.n; i += block_threads) {
      const double di = q.d[i];
      const double h = r1 >= 1 ? 1.0 / (lambda * di + 1.0) : 1.0;
      const double hp[4] = {1.0, h, h * h, h * h * h};
      if (traces) {
        t1 += h, t2 += h * h;
        if (with_logdet) ld += log(fabs(lambda * di + 1.0));
      }
#pragma unroll
      for (int k = 0; k < chunk; ++k) {
        if (q0 + k >= pairs) break;
        const double u = s.col[s.pa[q0 + k]][i], v = s.col[s.pb[q0 + k]][i];
#pragma unroll
        for (int r = 0; r < 4; ++r)
          if (r >= r0 && r <= r1) acc[k][r] += (hp[r] * u) * v;
      }
    }
#pragma unroll
    for (int k = 0; k < chunk; ++k)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const double v = warp_sum(acc[k][r]);
        if (lane == 0) s.partial[warp][k * 4 + r] = v;
      }
    {
      const double a = warp_sum(t1), b = warp_sum(t2), c = warp_sum(ld);
      if (lane == 0) s.partial[warp][chunk * 4] = a, s.partial[warp][chunk * 4 + 1] = b, s.partial[warp][chunk * 4 + 2] = c;
    }
    __syncthreads();
    const int t = threadIdx.x;
    if (t < sums) {
      double total = 0;
      for (int w = 0; w < warps; ++w) total += s.partial[w][t];
      if (t < chunk * 4) {
        const int k = t / 4, r = t % 4;
        if (q0 + k < pairs && r >= r0 && r <= r1) {
          const int a = s.pa[q0 + k], b = s.pb[q0 + k];
          s.g[r][a * K + b] = s.g[r][b * K + a] = total;
        }
      } else if (traces) {
        if (t == chunk * 4) s.trace_h = total;
        if (t == chunk * 4 + 1) s.trace_h2 = total;
        if (t == chunk * 4 + 2) s.logdet_h = with_logdet ? total : reml::not_a_number();
      }
    }
    __syncthreads();
  }
}

__device__ reml::grams view(const block_state& s, int K, double lambda) {
  reml::grams w;
  w.K = K, w.lambda = lambda, w.trace_h = s.trace_h, w.trace_h2 = s.trace_h2, w.logdet_h = s.logdet_h;
  for (int r = 0; r < 4; ++r) w.g[r] = s.g[r];
  return w;
}

__device__ reml::workspace work(block_state& s) {
  reml::workspace w;
  for (int r = 0; r < 4; ++r) w.p[r] = s.p[r], w.pivot[r] = s.pivot[r];
  return w;
}

// The likelihood and its derivatives at λ (reml_math's `at`): block-wide sums, thread 0's O(K³)
// projections, the point broadcast through shared memory.
struct block_likelihood {
  block_state& s;
  const problem& q;
  int K;
  __device__ reml::point operator()(double lambda, int order) {
    weigh(s, q, K, lambda, 1, order + 1, order == 0);
    if (threadIdx.x == 0) s.result = reml::likelihood(view(s, K, lambda), double(q.n), order, work(s));
    __syncthreads();
    const reml::point r = s.result;
    __syncthreads();  // before the next evaluation overwrites it
    return r;
  }
};

struct block_grid_dev1 {
  block_likelihood& at;
  const double* grid;
  __device__ double operator()(int k) { return at(grid[k], 1).dev1; }
};

__global__ void __launch_bounds__(block_threads) fit_variants_kernel(problem q) {
  __shared__ block_state s;
  const int64_t j = blockIdx.x;
  variant_out& out = q.out[j];
  const double na = reml::not_a_number();
  if (!q.test[j]) {
    if (threadIdx.x == 0) out = {na, na, na, na, na, na, static_cast<int>(lmm_fit_status::not_tested)};
    return;
  }
  const int K = q.c + 2, x = K - 2;
  if (threadIdx.x == 0) {
    for (int a = 0; a < q.c; ++a) s.col[a] = q.Wy + a * q.n;
    s.col[x] = q.Xt + j * q.ldx;
    s.col[K - 1] = q.Wy + q.c * q.n;
    int e = 0;
    for (int a = 0; a < K; ++a)
      for (int b = a; b < K; ++b) s.pa[e] = static_cast<unsigned char>(a), s.pb[e] = static_cast<unsigned char>(b), ++e;
  }
  __syncthreads();
  // G_0 once (λ-free): the r² screen, and log|WᵀW| in every likelihood.
  weigh(s, q, K, 0.0, 0, 0, false);
  if (threadIdx.x == 0) s.flag = reml::r2_on_previous(view(s, K, 0.0), x, work(s)) <= reml::max_r2;
  __syncthreads();
  if (!s.flag) {
    if (threadIdx.x == 0) out = {na, na, na, na, na, na, static_cast<int>(lmm_fit_status::collinear_with_covariates)};
    return;
  }
  block_likelihood at{s, q, K};
  reml::fit lf;
  if (!isnan(q.fixed_lambda)) {
    lf.lambda = q.fixed_lambda;
    lf.logl = at(q.fixed_lambda, 0).f;
  } else {
    const reml::search search{q.l_min, q.l_max, q.regions, q.grid};
    block_grid_dev1 grid_dev1{at, q.grid};
    lf = reml::maximise(search, grid_dev1, at);
  }
  if (isnan(lf.lambda)) {
    if (threadIdx.x == 0) out = {na, na, na, na, na, na, static_cast<int>(lmm_fit_status::lambda_not_found)};
    return;
  }
  weigh(s, q, K, lf.lambda, 1, 1, false);
  if (threadIdx.x == 0) {
    const reml::wald w = reml::wald_test(view(s, K, lf.lambda), double(q.n), work(s));
    out = {lf.lambda, lf.logl, w.beta, w.se, w.F, w.df, static_cast<int>(lmm_fit_status::tested)};
  }
}

template <class T>
T* device_copy_of(const T* host, size_t count, cudaStream_t stream) {
  T* p = nullptr;
  PMX_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
  PMX_CUDA_CHECK(cudaMemcpyAsync(p, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  return p;
}

}  // namespace

lmm_search_operand::device_copy* upload_lmm_model(const lmm_search_operand& m) {
  detail::cuda_scope scope(m.exec());
  auto d = std::make_unique<lmm_search_operand::device_copy>();
  const cudaStream_t stream = scope.ctx.stream;
  d->d = device_copy_of(m.d().data(), m.d().size(), stream);
  d->Wy = device_copy_of(m.Wy().data(), m.Wy().size(), stream);
  d->grid = device_copy_of(m.grid().data(), m.grid().size(), stream);
  PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
  return d.release();
}

void release_lmm_model(lmm_search_operand::device_copy* d) noexcept { delete d; }

void lmm_fit_variants(const lmm_search_operand& m, int64_t count, const double* Xt, int64_t ldx, const uint8_t* test,
                      double fixed_lambda, lmm_variant_fit* out) {
  const bool on_device = detail::is_device_pointer(Xt);
  if (!m.device()) {  // more columns than the kernel holds: the host search
    std::vector<double> host;
    if (on_device) {
      detail::cuda_scope scope(m.exec());
      host.resize(static_cast<size_t>(count * ldx));
      PMX_CUDA_CHECK(cudaMemcpy(host.data(), Xt, host.size() * sizeof(double), cudaMemcpyDeviceToHost));
      Xt = host.data();
    }
    host_fit_variants(m, count, Xt, ldx, test, fixed_lambda, out, m.exec().threads());
    return;
  }
  std::vector<variant_out> fits(static_cast<size_t>(count));
  {
    detail::cuda_scope scope(m.exec());
    const cudaStream_t stream = scope.ctx.stream;
    scope.ctx.reserve_scratch({static_cast<size_t>(count) * sizeof(variant_out), static_cast<size_t>(count),
                               on_device ? 0 : static_cast<size_t>(count * ldx) * sizeof(double)},
                              detail::device_budget(m.exec(), scope.ctx));
    auto* d_out = static_cast<variant_out*>(scope.ctx.slot(0));
    auto* d_test = static_cast<uint8_t*>(scope.ctx.slot(1));
    PMX_CUDA_CHECK(cudaMemcpyAsync(d_test, test, static_cast<size_t>(count), cudaMemcpyHostToDevice, stream));
    if (!on_device) {
      auto* d_x = static_cast<double*>(scope.ctx.slot(2));
      PMX_CUDA_CHECK(cudaMemcpyAsync(d_x, Xt, static_cast<size_t>(count * ldx) * sizeof(double),
                                     cudaMemcpyHostToDevice, stream));
      Xt = d_x;
    }
    const lmm_search_operand::device_copy& dm = *m.device();
    const problem q{m.n(), m.c(), dm.d, dm.Wy, dm.grid, m.range().l_min, m.range().l_max, m.range().regions,
                    Xt, ldx, d_test, fixed_lambda, d_out};
    fit_variants_kernel<<<static_cast<unsigned>(count), block_threads, 0, stream>>>(q);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUDA_CHECK(cudaMemcpyAsync(fits.data(), d_out, fits.size() * sizeof(variant_out), cudaMemcpyDeviceToHost,
                                   stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
#pragma omp parallel for schedule(static) num_threads(m.exec().threads())
  for (int64_t j = 0; j < count; ++j) {
    const variant_out& f = fits[j];
    lmm_variant_fit& o = out[j];
    o = lmm_variant_fit{};
    o.status = static_cast<lmm_fit_status>(f.status);
    if (o.status != lmm_fit_status::tested) continue;
    o.lambda = f.lambda, o.logl = f.logl, o.beta = f.beta, o.se = f.se;
    o.p = detail::wald_p({f.beta, f.se, f.F, f.df});
  }
}

}  // namespace pmx::kernels::cuda
