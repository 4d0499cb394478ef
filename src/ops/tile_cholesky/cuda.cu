// tile_cholesky on the GPU. The matrix is padded to whole tiles with an identity block (its factor
// is the identity and it meets nothing else), so every GEMM is on whole tiles. Per step k:
//   cuSOLVER spotrf of the diagonal tile, and its inverse (cuBLAS strsm on the identity), kept for
//   the panel and for the solves;
//   the panel below it: L_ik = A_ik · L_kk⁻ᵀ as one split-FP32 GEMM;
//   per low precision in use, the panel scaled by a power of two and converted (FP16/BF16: one scale
//   for the panel; FP8 E4M3: a scale per tile, stored transposed, the TN layout cuBLASLt's FP8 GEMM
//   requires), and the split-FP32 copies of the panel;
//   trailing updates: each block of tiles of one precision (the diagonal tile with the FP32 tiles
//   below it; rectangles of strictly lower tiles, precision_blocks) is one GEMM accumulating in
//   FP32 into the FP32 tiles: split-FP32 for FP32 blocks, cublasGemmEx FP16/BF16 with α = −2^−2s
//   undoing the panel's scale; FP8 tiles one cublasLtMatmul each (α = −2^−(s_i+s_j)).
// Split-FP32 product: with one power-of-two scale per operand panel, x·2^s = hi + lo, hi = x·2^s
// rounded to FP16 and lo = the rest rounded to FP16 (22 of x's 24 bits), and
// A·Bᵀ ≈ [hi_A hi_A lo_A]·[hi_B lo_B hi_B]ᵀ, one FP16 tensor-core GEMM of three times the depth
// with FP32 accumulation: about 2^-21 relative to the operands' scale (the lo·lo term dropped;
// entries 2^-18 below a panel's largest lose bits to FP16 subnormals, below 2^-39 of it) against
// FP32's 2^-24, at twice the rate of the same split on TF32 and five to seven times cuBLAS SGEMM's
// on Hopper (bench/bench_tile_ops.cu, bench/RESULTS.md). The FP16/BF16/FP8 operands are those of
// the host backends (kernels.hpp), whose products these GEMMs make exactly.
// The FP64 matrix stays on the device for residuals (the caller's memory when it is device memory,
// else a copy).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/cusolver_support.hpp"
#include "core/device_collectives.hpp"
#include "ops/tile_cholesky/kernels.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx::kernels::cuda {
namespace {

constexpr int threads_per_block = 256;

int blocks_for(int64_t items) { return static_cast<int>(std::min<int64_t>((items + 255) / 256, 65535 * 8)); }

// The global column of local column lc in the tile-cyclic layout (tiles of T columns, tile j on
// rank j mod ranks); lc itself on one rank.
__host__ __device__ inline int64_t global_column(int64_t lc, int64_t T, int rank, int ranks) {
  return ((lc / T) * ranks + rank) * T + lc % T;
}

// R's rows at this rank's columns: R = Y − P − shift·W, P = (its columns of A)ᵀ W (width × m).
__global__ void residual_rows_kernel(const double* P, int64_t width, int64_t m, const double* Y, const double* W,
                                     int64_t n, int64_t T, int rank, int ranks, double shift, double* R) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < width * m; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = t / width, g = c * n + global_column(t % width, T, rank, ranks);
    R[g] = __dsub_rn(__dsub_rn(Y[g], P[t]), __dmul_rn(shift, W[g]));  // no contraction: the host's rounding
  }
}

// This rank's columns of L (np × wp, lower part) = A + shift·I on [0, n)², identity beyond; the
// upper part untouched. A: the rank's columns (column-major, lda).
__global__ void load_kernel(const double* A, int64_t lda, int64_t n, double shift, float* L, int64_t np, int64_t wp,
                            int64_t T, int rank, int ranks) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < np * wp; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t lc = t / np, r = t % np, c = global_column(lc, T, rank, ranks);
    if (r < c) continue;
    float v;
    if (r < n && c < n) v = static_cast<float>(A[lc * lda + r] + (r == c ? shift : 0.0));
    else v = r == c ? 1.0f : 0.0f;
    L[lc * np + r] = v;
  }
}

// out[lc] = Σ_r |A_r,lc + shift·[r = global column]| for this rank's `width` columns (one block
// each): the row sums of a symmetric A + shift·I at this rank's rows.
__global__ void column_abs_sums_kernel(const double* A, int64_t lda, int64_t n, int64_t T, int rank, int ranks,
                                       double shift, double* out) {
  const int64_t lc = blockIdx.x, c = global_column(lc, T, rank, ranks);
  double s = 0;
  for (int64_t r = threadIdx.x; r < n; r += blockDim.x) s += fabs(A[lc * lda + r] + (r == c ? shift : 0.0));
  __shared__ double sh[256];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[lc] = sh[0];
}

// Work on a column of tiles: blockIdx.x = tile (rows [b·T, (b+1)·T) of P), blockIdx.y = a slice of
// its columns, so each tile spreads over many blocks.
constexpr int slices = 64;

__device__ inline void slice_range(int64_t T, int64_t& c0, int64_t& c1) {
  const int64_t per = (T + gridDim.y - 1) / gridDim.y;
  c0 = blockIdx.y * per;
  c1 = min(T, c0 + per);
}

// amax of each tile (zeroed before): non-negative floats order as their bit patterns.
__global__ void tile_amax_kernel(const float* P, int64_t ld, int64_t T, float* amax) {
  const float* tile = P + blockIdx.x * T;
  int64_t c0, c1;
  slice_range(T, c0, c1);
  float m = 0;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = threadIdx.x; r < T; r += blockDim.x) m = fmaxf(m, fabsf(tile[c * ld + r]));
  __shared__ float s[threads_per_block];
  s[threadIdx.x] = m;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax(reinterpret_cast<int*>(amax) + blockIdx.x, __float_as_int(s[0]));
}

// x rounded to nearest even in Q (FP16, BF16, or FP8 E4M3 saturating: __NV_SATFINITE).
template <class Q>
__device__ float round_as(float x) {
  return static_cast<float>(Q(x));
}
// Tiles of a column rounded in place, tile b to precision prec[b] (tile_precision) after scaling by
// 2^shift[b] (FP32 tiles untouched).
__global__ void round_in_place_kernel(float* P, int64_t ld, int64_t T, const int* shift, const uint8_t* prec) {
  float* tile = P + blockIdx.x * T;
  const int s = shift[blockIdx.x];
  const auto q = static_cast<tile_precision>(prec[blockIdx.x]);
  if (q == tile_precision::fp32) return;
  int64_t c0, c1;
  slice_range(T, c0, c1);
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = threadIdx.x; r < T; r += blockDim.x) {
      float& v = tile[c * ld + r];
      const float x = ldexpf(v, s);
      const float y = q == tile_precision::fp16 ? round_as<__half>(x)
                      : q == tile_precision::bf16 ? round_as<__nv_bfloat16>(x)
                                                  : round_as<__nv_fp8_e4m3>(x);
      v = ldexpf(y, -s);
    }
}

// The panel's tiles, scaled by 2^shift[b], converted to Q: out column-major (rows × T, ld rows) or,
// `transposed`, T × rows (ld T).
template <class Q>
__global__ void convert_kernel(const float* P, int64_t ld, int64_t T, const int* shift, Q* out, int64_t rows,
                               bool transposed) {
  const float* tile = P + blockIdx.x * T;
  const int s = shift[blockIdx.x];
  int64_t c0, c1;
  slice_range(T, c0, c1);
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = threadIdx.x; r < T; r += blockDim.x) {
      const int64_t row = blockIdx.x * T + r;
      const Q q = Q(ldexpf(tile[c * ld + r], s));
      if (transposed) out[row * T + c] = q;
      else out[c * rows + row] = q;
    }
}
__global__ void to_float_kernel(const double* B, int64_t ldb, int64_t n, int64_t np, int64_t m, float* X) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < np * m; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = t / np, r = t % np;
    X[t] = r < n ? static_cast<float>(B[c * ldb + r]) : 0.0f;
  }
}

__global__ void to_double_kernel(const float* X, int64_t n, int64_t np, int64_t m, double* B, int64_t ldb) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n * m; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = t / n, r = t % n;
    B[c * ldb + r] = X[c * np + r];
  }
}

// X (T × T, ld T) = I.
__global__ void identity_kernel(float* X, int64_t T) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < T * T; t += int64_t(gridDim.x) * blockDim.x)
    X[t] = (t / T == t % T) ? 1.0f : 0.0f;
}

// Split-FP32 operands of the rows × T block P (ld ldp), scaled by 2^shift: x = hi + lo with hi
// = x rounded to FP16 and lo = the rest rounded to FP16 (22 bits of x's 24); `a` = [hi hi lo] and
// `b` = [hi lo hi] (rows × 3T each, ld rows), so that a_i · b_jᵀ = hi_i hi_jᵀ + hi_i lo_jᵀ + lo_i hi_jᵀ.
__global__ void split_kernel(const float* P, int64_t ldp, int64_t rows, int64_t T, int shift, __half* a, __half* b) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < rows * T; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = t / rows, r = t % rows;
    const float x = ldexpf(P[c * ldp + r], shift);
    const __half hi = __float2half_rn(x), lo = __float2half_rn(x - __half2float(hi));
    if (a) a[c * rows + r] = hi, a[(T + c) * rows + r] = hi, a[(2 * T + c) * rows + r] = lo;
    if (b) b[c * rows + r] = hi, b[(T + c) * rows + r] = lo, b[(2 * T + c) * rows + r] = hi;
  }
}

// Squared Frobenius norms of lower tiles (block per tile (i, j), j <= i, of this rank's `local`
// tile columns), as tile_norms2_host.
__global__ void tile_norms2_kernel(const double* A, int64_t lda, int64_t n, int64_t T, int64_t nt, int64_t local,
                                   int rank, int ranks, double shift, double* out) {
  const int64_t i = blockIdx.x / local, jl = blockIdx.x % local, j = jl * ranks + rank;
  if (j > i) return;
  const int64_t r0 = i * T, c0 = jl * T, rows = min(T, n - r0), cols = min(T, n - j * T);
  double s = 0;
  for (int64_t e = threadIdx.x; e < rows * cols; e += blockDim.x) {
    const int64_t c = e / rows, r = e % rows;
    if (i == j && r < c) continue;
    const double v = A[(c0 + c) * lda + r0 + r] + (i == j && r == c ? shift : 0.0);
    s += (i == j && r != c ? 2.0 : 1.0) * v * v;
  }
  __shared__ double sh[threads_per_block];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[i * nt + j] = sh[0];
}

void lt_check(cublasStatus_t s, const char* expr) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw error(std::string("cuBLASLt call failed (status ") + std::to_string(static_cast<int>(s)) + "): " + expr);
}
#define PMX_LT_CHECK(expr) lt_check((expr), #expr)

template <class T>
T* device_alloc(std::vector<void*>& owned, size_t count) {
  void* p = nullptr;
  PMX_CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(count * sizeof(T), 16)));
  owned.push_back(p);
  return static_cast<T*>(p);
}

// cuBLASLt FP8 E4M3 GEMM D = α·Aᵀ·B + D for T × T tiles (A, B: T × T E4M3, ld T; D: FP32, ld ldd).
class fp8_gemm {
 public:
  fp8_gemm(cudaStream_t stream, int64_t T, int64_t ldd, std::vector<void*>& owned) : stream_(stream) {
    PMX_LT_CHECK(cublasLtCreate(&lt_));
    PMX_LT_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    PMX_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    PMX_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    PMX_LT_CHECK(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, T, T, T));
    PMX_LT_CHECK(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8F_E4M3, T, T, T));
    PMX_LT_CHECK(cublasLtMatrixLayoutCreate(&d_, CUDA_R_32F, T, T, ldd));
    workspace_bytes_ = size_t{32} << 20;
    workspace_ = device_alloc<char>(owned, workspace_bytes_);
    cublasLtMatmulPreference_t pref;
    PMX_LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    PMX_LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                                      sizeof workspace_bytes_));
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt_, desc_, a_, b_, d_, d_, pref, 1, &heuristic_, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0)
      throw unsupported_error("cuBLASLt has no FP8 E4M3 GEMM with FP32 accumulation for tiles of " + std::to_string(T) +
                              " on this GPU (use --lowest-precision bf16)");
  }
  ~fp8_gemm() {
    cublasLtMatrixLayoutDestroy(a_), cublasLtMatrixLayoutDestroy(b_), cublasLtMatrixLayoutDestroy(d_);
    cublasLtMatmulDescDestroy(desc_);
    cublasLtDestroy(lt_);
  }
  void run(float alpha, const void* A, const void* B, float* D) const {
    const float beta = 1.0f;
    PMX_LT_CHECK(cublasLtMatmul(lt_, desc_, &alpha, A, a_, B, b_, &beta, D, d_, D, d_, &heuristic_.algo, workspace_,
                                workspace_bytes_, stream_));
  }

 private:
  cudaStream_t stream_;
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
};

// A block of tiles [i0, i1) × [j0, j1) updated by one GEMM per step: the diagonal tile with the
// FP32 tiles right below it (one column), or a rectangle of strictly lower tiles of one precision
// (FP8: single tiles, each has its own scale).
struct tile_block {
  int64_t i0, i1, j0, j1;
  tile_precision q;
};

// Greedy cover of the lower tiles by blocks, column by column: the diagonal run first, then each
// uncovered tile's run down its column, widened to the right while the next column's tiles on those
// rows are uncovered, of the same precision, and below the diagonal.
std::vector<tile_block> precision_blocks(const tile_precision_map& map) {
  const int64_t nt = map.tiles;
  std::vector<char> covered(static_cast<size_t>(nt * nt), 0);
  auto cov = [&](int64_t i, int64_t j) -> char& { return covered[static_cast<size_t>(i * nt + j)]; };
  std::vector<tile_block> out;
  for (int64_t j = 0; j < nt; ++j) {
    int64_t end = j + 1;
    while (end < nt && !cov(end, j) && map.at(end, j) == tile_precision::fp32) ++end;
    out.push_back({j, end, j, j + 1, tile_precision::fp32});
    for (int64_t i = j; i < end; ++i) cov(i, j) = 1;
    for (int64_t i = end; i < nt; ++i) {
      if (cov(i, j)) continue;
      const tile_precision q = map.at(i, j);
      int64_t i1 = i + 1, j1 = j + 1;
      if (q != tile_precision::fp8) {
        while (i1 < nt && !cov(i1, j) && map.at(i1, j) == q) ++i1;
        for (bool same = true; same && j1 < i; j1 += same) {
          for (int64_t r = i; r < i1 && same; ++r) same = !cov(r, j1) && map.at(r, j1) == q;
        }
      }
      for (int64_t r = i; r < i1; ++r)
        for (int64_t c = j; c < j1; ++c) cov(r, c) = 1;
      out.push_back({i, i1, j, j1, q});
    }
  }
  return out;
}

// `count` values of T in a buffer kept between calls (the refinement's solves and residuals), grown on demand.
template <class T>
T* typed_buffer(detail::device_buffer& b, size_t count) {
  b.reserve(std::max<size_t>(count * sizeof(T), 16));
  return static_cast<T*>(b.get());
}

// A second stream (the look-ahead's) with its own cuBLAS handle, and the context's cuSOLVER handle lent to it; the
// destructor gives the cuSOLVER handle back to the context's stream and frees the rest.
struct look_ahead {
  detail::cuda_context& c;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::vector<cudaEvent_t> events;
  explicit look_ahead(detail::cuda_context& ctx) : c(ctx) {
    // The highest priority: its short critical-path kernels (potrf, inverse, panel) take SMs as
    // the trailing GEMMs' blocks drain, instead of queueing behind whole GEMMs.
    int least = 0, greatest = 0;
    PMX_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    PMX_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
    PMX_CUBLAS_CHECK(cublasCreate(&blas));
    PMX_CUBLAS_CHECK(cublasSetStream(blas, stream));
  }
  ~look_ahead() {
    cudaStreamSynchronize(stream);
    if (c.solver) cusolverDnSetStream(c.solver, c.stream);
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    cublasDestroy(blas);
    cudaStreamDestroy(stream);
  }
  look_ahead(const look_ahead&) = delete;
  look_ahead& operator=(const look_ahead&) = delete;
};

// With PMX_TILE_TRACE set, the GPU time of the factorisation's critical-path pieces on this rank
// (timing events on its streams, summed over the steps) — where a step waits, for the benchmarks.
class chain_trace {
 public:
  enum piece { idle, column, stall, rest, diagonal, panel, broadcast, convert, pieces };
  chain_trace() : on_(std::getenv("PMX_TILE_TRACE") != nullptr) {}
  ~chain_trace() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  chain_trace(const chain_trace&) = delete;
  chain_trace& operator=(const chain_trace&) = delete;
  // An event recorded on `stream` now (null when off).
  cudaEvent_t tick(cudaStream_t stream) {
    if (!on_) return nullptr;
    cudaEvent_t e = nullptr;
    PMX_CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
    PMX_CUDA_CHECK(cudaEventRecord(e, stream));
    return e;
  }
  void add(piece p, cudaEvent_t from, cudaEvent_t to) {
    if (from && to) spans_.push_back({p, from, to});
  }
  // The sums as stages (once the streams are synchronised).
  void report(std::vector<std::pair<std::string, double>>& stages) const {
    if (!on_) return;
    static const char* names[pieces] = {"trace: updates waiting for a panel", "trace: next column's update (owner)",
                                        "trace: updates waiting for diagonal + panel (owner)",
                                        "trace: updates of the columns beyond",
                                        "trace: diagonal factor + inverse (owner)", "trace: panel solve (owner)",
                                        "trace: panel broadcast (incl. waiting)", "trace: operand conversions"};
    std::array<double, pieces> sum{};
    for (const span& x : spans_) {
      float ms = 0;
      PMX_CUDA_CHECK(cudaEventElapsedTime(&ms, x.from, x.to));
      sum[x.p] += ms / 1e3;
    }
    for (int p = 0; p < pieces; ++p) stages.emplace_back(std::string("  ") + names[p], sum[p]);
  }

 private:
  struct span {
    piece p;
    cudaEvent_t from, to;
  };
  bool on_;
  std::vector<cudaEvent_t> events_;
  std::vector<span> spans_;
};

class device_factor final : public tile_cholesky::factor {
 public:
  device_factor(const executor& exec, int64_t n, const double* A, int64_t lda, double shift,
                const tile_precision_map& map, bool over_ranks)
      : exec_(exec), n_(n), lda_(lda), shift_(shift), map_(map) {
    T_ = map.tile;
    nt_ = map.tiles;
    np_ = nt_ * T_;
    if (over_ranks) rank_ = exec.comm().rank(), ranks_ = exec.comm().size();
    local_tiles_ = nt_ > rank_ ? (nt_ - rank_ + ranks_ - 1) / ranks_ : 0;
    width_ = tile_cyclic_width(n, T_, rank_, ranks_);
    if (T_ % 16 != 0) throw unsupported_error("on cuda, --tile must be a multiple of 16 (got " + std::to_string(T_) + ")");
    detail::cuda_scope scope(exec);
    cudaStream_t s = scope.ctx.stream;
    const bool host_a = width_ > 0 && !detail::is_device_pointer(A);
    const size_t wp = size_t(std::max<int64_t>(local_tiles_, 1) * T_);  // this rank's columns of L, padded
    // L's columns and their diagonal inverses (FP32), the two split panels (3T wide, FP16), the
    // BF16 and FP8 panels, and over ranks the FP32 panel broadcast.
    detail::check_device_fits(exec, scope.ctx,
                              sizeof(float) * (size_t(np_) * wp + wp * T_) + size_t(np_) * T_ * (12 + 2 + 1) +
                                  (ranks_ > 1 ? sizeof(float) * size_t(np_) * T_ : 0) +
                                  (host_a ? sizeof(double) * size_t(lda * width_) : 0) + (size_t{64} << 20),
                              "mixed-precision Cholesky");
    try {
      const auto t0 = std::chrono::steady_clock::now();
      L_ = device_alloc<float>(owned_, size_t(np_) * wp);
      inverse_ = device_alloc<float>(owned_, wp * T_);
      if (host_a) {
        double* copy = device_alloc<double>(owned_, size_t(lda * width_));
        PMX_CUDA_CHECK(cudaMemcpyAsync(copy, A, sizeof(double) * size_t(lda * width_), cudaMemcpyHostToDevice, s));
        A_ = copy;
      } else {
        A_ = A;
      }
      stages.emplace_back("allocate (and copy a host matrix)",
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      factorise(scope.ctx);
    } catch (...) {
      release();
      throw;
    }
  }
  ~device_factor() override { release(); }

  // Forward then backward substitution by tiles: per diagonal tile a small GEMM with its inverse,
  // per panel one GEMM with m columns (the factor read once each way, at memory speed).
  void solve(double* B, int64_t ldb, int64_t m) const override {
    if (ranks_ > 1) return solve_over_ranks(B, ldb, m);
    detail::cuda_scope scope(exec_);
    cudaStream_t s = scope.ctx.stream;
    double* dB = typed_buffer<double>(solve_b_, size_t(n_ * m));
    float* X = typed_buffer<float>(solve_x_, size_t(np_ * m));
    float* tmp = typed_buffer<float>(solve_t_, size_t(T_ * m));
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(dB, sizeof(double) * n_, B, sizeof(double) * ldb, sizeof(double) * n_, size_t(m),
                                     cudaMemcpyHostToDevice, s));
    to_float_kernel<<<blocks_for(np_ * m), threads_per_block, 0, s>>>(dB, n_, n_, np_, m, X);
    PMX_CUDA_CHECK_LAUNCH();
    cublasHandle_t h = scope.ctx.blas;
    PMX_CUBLAS_CHECK(cublasSetStream(h, s));
    const float one = 1.0f, zero = 0.0f, minus_one = -1.0f;
    const int t = int(T_), mi = int(m), ld = int(np_);
    auto diagonal = [&](int64_t k, cublasOperation_t op) {  // X_k ← L_kk⁻¹ X_k or L_kk⁻ᵀ X_k
      PMX_CUBLAS_CHECK(cublasSgemm(h, op, CUBLAS_OP_N, t, mi, t, &one, inverse_ptr(k), t, X + k * T_, ld, &zero, tmp, t));
      PMX_CUDA_CHECK(cudaMemcpy2DAsync(X + k * T_, sizeof(float) * np_, tmp, sizeof(float) * T_, sizeof(float) * T_,
                                       size_t(m), cudaMemcpyDeviceToDevice, s));
    };
    for (int64_t k = 0; k < nt_; ++k) {  // L y = b
      diagonal(k, CUBLAS_OP_N);
      const int64_t below = np_ - (k + 1) * T_;
      if (below > 0)
        PMX_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(below), mi, t, &minus_one, tile_ptr(k + 1, k), ld,
                                     X + k * T_, ld, &one, X + (k + 1) * T_, ld));
    }
    for (int64_t k = nt_ - 1; k >= 0; --k) {  // Lᵀ x = y
      diagonal(k, CUBLAS_OP_T);
      if (k > 0)
        PMX_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, int(k * T_), mi, t, &minus_one, L_ + k * T_, ld,
                                     X + k * T_, ld, &one, X, ld));
    }
    to_double_kernel<<<blocks_for(n_ * m), threads_per_block, 0, s>>>(X, n_, np_, m, dB, n_);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(B, sizeof(double) * ldb, dB, sizeof(double) * n_, sizeof(double) * n_, size_t(m),
                                     cudaMemcpyDeviceToHost, s));
    PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void residual(const double* W, const double* Y, double* R, int64_t m) const override {
    if (ranks_ > 1) return residual_over_ranks(W, Y, R, m);
    detail::cuda_scope scope(exec_);
    cudaStream_t s = scope.ctx.stream;
    double* dW = typed_buffer<double>(residual_w_, size_t(n_ * m));
    double* dR = typed_buffer<double>(residual_r_, size_t(n_ * m));
    PMX_CUDA_CHECK(cudaMemcpyAsync(dW, W, sizeof(double) * size_t(n_ * m), cudaMemcpyHostToDevice, s));
    PMX_CUDA_CHECK(cudaMemcpyAsync(dR, Y, sizeof(double) * size_t(n_ * m), cudaMemcpyHostToDevice, s));
    const double minus_one = -1.0, one = 1.0, minus_shift = -shift_;
    cublasHandle_t h = scope.ctx.blas;
    PMX_CUBLAS_CHECK(cublasSetStream(h, s));
    PMX_CUBLAS_CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n_), int(m), int(n_), &minus_one, A_, int(lda_), dW,
                                 int(n_), &one, dR, int(n_)));
    PMX_CUBLAS_CHECK(cublasDaxpy(h, int(n_ * m), &minus_shift, dW, 1, dR, 1));
    PMX_CUDA_CHECK(cudaMemcpyAsync(R, dR, sizeof(double) * size_t(n_ * m), cudaMemcpyDeviceToHost, s));
    PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  double norm_inf() const override {  // the dense op's (over ranks: this rank's rows, then the maximum), once
    if (norm_inf_ >= 0) return norm_inf_;
    if (ranks_ == 1) return norm_inf_ = shifted_norm_inf(exec_, n_, A_, lda_, shift_);
    double worst = 0;
    if (width_ > 0) {
      detail::cuda_scope scope(exec_);
      cudaStream_t s = scope.ctx.stream;
      double* sums = typed_buffer<double>(residual_r_, size_t(width_));
      column_abs_sums_kernel<<<unsigned(width_), 256, 0, s>>>(A_, lda_, n_, T_, rank_, ranks_, shift_, sums);
      PMX_CUDA_CHECK_LAUNCH();
      std::vector<double> h(static_cast<size_t>(width_));
      PMX_CUDA_CHECK(cudaMemcpyAsync(h.data(), sums, sizeof(double) * h.size(), cudaMemcpyDeviceToHost, s));
      PMX_CUDA_CHECK(cudaStreamSynchronize(s));
      worst = *std::max_element(h.begin(), h.end());
    }
    exec_.comm().max(&worst, 1);
    return norm_inf_ = worst;
  }

 private:
  bool mine(int64_t j) const { return j % ranks_ == rank_; }
  // Tile (i, j) of L, j one of this rank's tile columns (stored in order, leading dimension np).
  float* tile_ptr(int64_t i, int64_t j) const { return L_ + (j / ranks_) * T_ * np_ + i * T_; }
  float* inverse_ptr(int64_t k) const { return inverse_ + (k / ranks_) * T_ * T_; }

  // Over ranks: forward substitution by tiles, each block's Σ_j L_kj y_j summed over the ranks to
  // the owner of block k (NCCL), which solves y_k; backward, the owner of block k solves x_k from
  // the Σ_i L_ikᵀ x_i the ranks' columns gathered and broadcasts it. Every rank ends with all of x.
  // The chain from block to block holds the T × T products, the collectives and the products with
  // the next H = 2·ranks blocks of a column (forward) or tile row (backward), the "head"; the rest of
  // the column or row, which reads most of the factor, runs on the context's stream into its own
  // sums, waited for only H blocks later — so reading the factor (at memory speed) overlaps the
  // chain instead of lying on it. The chain's stream has the highest priority: its small kernels
  // and collectives take SMs as the rest products' blocks drain instead of queueing behind them.
  void solve_over_ranks(double* B, int64_t ldb, int64_t m) const {
    detail::cuda_scope scope(exec_);
    if (!aux_stream_) {
      int least = 0, greatest = 0;
      PMX_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      PMX_CUDA_CHECK(cudaStreamCreateWithPriority(&aux_stream_, cudaStreamNonBlocking, greatest));
      PMX_CUBLAS_CHECK(cublasCreate(&aux_blas_));
      PMX_CUBLAS_CHECK(cublasSetStream(aux_blas_, aux_stream_));
      aux_events_.resize(static_cast<size_t>(nt_ + 1));
      for (cudaEvent_t& e : aux_events_) PMX_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    cudaStream_t s = aux_stream_, s2 = scope.ctx.stream;  // the chain; the rest products
    cublasHandle_t h = aux_blas_, h2 = scope.ctx.blas;
    PMX_CUBLAS_CHECK(cublasSetStream(h2, s2));
    cudaEvent_t* ev = aux_events_.data();  // ev[k]: after step k's work on s2; ev[nt]: a stream's progress
    PMX_CUDA_CHECK(cudaEventRecord(ev[nt_], s2));  // whatever the context's stream did before
    PMX_CUDA_CHECK(cudaStreamWaitEvent(s, ev[nt_], 0));
    const int64_t H = 2 * int64_t(ranks_);
    const int64_t lw = std::max<int64_t>(local_tiles_, 1) * T_;  // this rank's columns, padded
    double* dB = typed_buffer<double>(solve_b_, size_t(n_ * m));
    float* X = typed_buffer<float>(solve_x_, size_t(4 * np_ * m + 2 * T_ * m + 2 * lw * m));
    // Forward: the head products' sums in acc (s), the rest products' in acc2 (s2).
    float *acc = X + np_ * m, *acc2 = acc + np_ * m, *xs = acc2 + np_ * m, *blk = xs + np_ * m, *red = blk + T_ * m;
    // Backward: Σ_i L_ikᵀ x_i at this rank's columns (lw × m): the rest products' in c_loc, the
    // head products' in c_head.
    float *c_loc = red + T_ * m, *c_head = c_loc + lw * m, *tmp = acc;
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(dB, sizeof(double) * n_, B, sizeof(double) * ldb, sizeof(double) * n_, size_t(m),
                                     cudaMemcpyHostToDevice, s));
    to_float_kernel<<<blocks_for(np_ * m), threads_per_block, 0, s>>>(dB, n_, n_, np_, m, X);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof(float) * size_t(2 * np_ * m), s));
    PMX_CUDA_CHECK(cudaMemsetAsync(c_loc, 0, sizeof(float) * size_t(2 * lw * m), s));
    const float one = 1.0f, zero = 0.0f, minus_one = -1.0f;
    const int t = int(T_), mi = int(m), ld = int(np_);
    const size_t row_bytes = sizeof(float) * size_t(T_), ld_bytes = sizeof(float) * size_t(np_);
    std::vector<char> recorded(static_cast<size_t>(nt_), 0);
    auto s2_after_s = [&] {  // s2 starts what follows once s is where it is now
      PMX_CUDA_CHECK(cudaEventRecord(ev[nt_], s));
      PMX_CUDA_CHECK(cudaStreamWaitEvent(s2, ev[nt_], 0));
    };
    int64_t last_rest = -1;  // this rank's latest column whose rest product went to s2
    for (int64_t k = 0; k < nt_; ++k) {  // L y = b
      // Block k's sums: the head products of columns k − H .. k − 1 (s, in order) and the rest
      // products of this rank's columns j <= k − H − 1 (s2, in order: the latest such column's event).
      int64_t wait = last_rest;
      while (wait > k - H - 1) wait -= ranks_;
      if (wait >= 0 && recorded[wait]) PMX_CUDA_CHECK(cudaStreamWaitEvent(s, ev[wait], 0));
      PMX_CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, t, mi, &one, acc + k * T_, ld, &one, acc2 + k * T_, ld,
                                   blk, t));
      detail::device_sum_to_root(exec_, scope.ctx, blk, red, T_ * m, int(k % ranks_), s);
      if (!mine(k)) continue;
      PMX_CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, t, mi, &one, X + k * T_, ld, &minus_one, red, t, blk, t));
      PMX_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, t, mi, t, &one, inverse_ptr(k), t, blk, t, &zero,
                                   X + k * T_, ld));
      const int64_t head = std::min(H, nt_ - 1 - k) * T_, rest = np_ - (k + 1 + H) * T_;
      if (head > 0)
        PMX_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(head), mi, t, &one, tile_ptr(k + 1, k), ld,
                                     X + k * T_, ld, &one, acc + (k + 1) * T_, ld));
      if (rest > 0) {
        s2_after_s();
        PMX_CUBLAS_CHECK(cublasSgemm(h2, CUBLAS_OP_N, CUBLAS_OP_N, int(rest), mi, t, &one, tile_ptr(k + 1 + H, k),
                                     ld, X + k * T_, ld, &one, acc2 + (k + 1 + H) * T_, ld));
        PMX_CUDA_CHECK(cudaEventRecord(ev[k], s2));
        recorded[k] = 1, last_rest = k;
      }
    }
    std::fill(recorded.begin(), recorded.end(), 0);
    // Owned columns before column x (local columns [0, count)).
    auto owned_before = [&](int64_t x) -> int64_t {
      return x > rank_ ? (std::min(x, nt_) - rank_ + ranks_ - 1) / ranks_ : 0;
    };
    for (int64_t k = nt_ - 1; k >= 0; --k) {  // Lᵀ x = y
      if (mine(k)) {
        // c_head holds the head products of x_{k+1} .. x_{k+H} (s); c_loc the rest products of the
        // steps >= k + H + 1 (s2: the latest of them, step k + H + 1).
        if (k + H + 1 < nt_ && recorded[k + H + 1]) PMX_CUDA_CHECK(cudaStreamWaitEvent(s, ev[k + H + 1], 0));
        const int64_t lc = (k / ranks_) * T_;
        PMX_CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, t, mi, &one, X + k * T_, ld, &minus_one, c_loc + lc,
                                     int(lw), tmp, t));
        PMX_CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, t, mi, &one, tmp, t, &minus_one, c_head + lc, int(lw),
                                     tmp, t));
        PMX_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, t, mi, t, &one, inverse_ptr(k), t, tmp, t, &zero, blk, t));
      }
      detail::device_broadcast(exec_, scope.ctx, blk, int64_t(row_bytes) * m, int(k % ranks_), s);
      PMX_CUDA_CHECK(cudaMemcpy2DAsync(xs + k * T_, ld_bytes, blk, row_bytes, row_bytes, size_t(m),
                                       cudaMemcpyDeviceToDevice, s));
      if (k == 0) break;
      // x_k's products with tile row k of this rank's columns j < k (local columns, in order): those
      // of columns k − H .. k − 1 on s, the ones before on s2.
      const int64_t split = owned_before(std::max<int64_t>(k - H, 0)), end = owned_before(k);
      if (end > split)
        PMX_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, int((end - split) * T_), mi, t, &one,
                                     L_ + split * T_ * np_ + k * T_, ld, xs + k * T_, ld, &one, c_head + split * T_,
                                     int(lw)));
      if (split > 0) {
        s2_after_s();
        PMX_CUBLAS_CHECK(cublasSgemm(h2, CUBLAS_OP_T, CUBLAS_OP_N, int(split * T_), mi, t, &one, L_ + k * T_, ld,
                                     xs + k * T_, ld, &one, c_loc, int(lw)));
        PMX_CUDA_CHECK(cudaEventRecord(ev[k], s2));
        recorded[k] = 1;
      }
    }
    PMX_CUDA_CHECK(cudaEventRecord(ev[nt_], s2));
    PMX_CUDA_CHECK(cudaStreamWaitEvent(s, ev[nt_], 0));
    to_double_kernel<<<blocks_for(n_ * m), threads_per_block, 0, s>>>(xs, n_, np_, m, dB, n_);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUDA_CHECK(cudaMemcpy2DAsync(B, sizeof(double) * ldb, dB, sizeof(double) * n_, sizeof(double) * n_, size_t(m),
                                     cudaMemcpyDeviceToHost, s));
    PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  // Over ranks: this rank's rows of R = Y − (A + shift·I) W (its columns of the symmetric A,
  // transposed, times W) in an n × m device matrix zero elsewhere, then summed over the ranks on
  // the devices (each entry from one rank: exact, and the same bits everywhere).
  void residual_over_ranks(const double* W, const double* Y, double* R, int64_t m) const {
    double* dR = typed_buffer<double>(residual_r_, size_t(n_ * m));
    {
      detail::cuda_scope scope(exec_);
      cudaStream_t s = scope.ctx.stream;
      PMX_CUDA_CHECK(cudaMemsetAsync(dR, 0, sizeof(double) * size_t(n_ * m), s));
      if (width_ > 0) {
        double* dW = typed_buffer<double>(residual_w_, size_t(2 * n_ * m + width_ * m));
        double *dY = dW + n_ * m, *dP = dY + n_ * m;
        PMX_CUDA_CHECK(cudaMemcpyAsync(dW, W, sizeof(double) * size_t(n_ * m), cudaMemcpyHostToDevice, s));
        PMX_CUDA_CHECK(cudaMemcpyAsync(dY, Y, sizeof(double) * size_t(n_ * m), cudaMemcpyHostToDevice, s));
        const double one = 1.0, zero = 0.0;
        cublasHandle_t h = scope.ctx.blas;
        PMX_CUBLAS_CHECK(cublasSetStream(h, s));
        PMX_CUBLAS_CHECK(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, int(width_), int(m), int(n_), &one, A_, int(lda_), dW,
                                     int(n_), &zero, dP, int(width_)));
        residual_rows_kernel<<<blocks_for(width_ * m), threads_per_block, 0, s>>>(dP, width_, m, dY, dW, n_, T_, rank_,
                                                                                 ranks_, shift_, dR);
        PMX_CUDA_CHECK_LAUNCH();
      }
      PMX_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    detail::sum_over_ranks(exec_, dR, m, n_, 0.0, dR, n_);
    detail::cuda_scope scope(exec_);
    PMX_CUDA_CHECK(cudaMemcpyAsync(R, dR, sizeof(double) * size_t(n_ * m), cudaMemcpyDeviceToHost, scope.ctx.stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(scope.ctx.stream));
  }

  // Per-tile amax of a column of `count` tiles starting at P (ld np unless given), on the host
  // (the host waits for stream st).
  std::vector<float> tile_amax(cudaStream_t st, const float* P, int64_t count, float* d_amax, int64_t ld = 0) const {
    PMX_CUDA_CHECK(cudaMemsetAsync(d_amax, 0, sizeof(float) * size_t(count), st));
    tile_amax_kernel<<<dim3(unsigned(count), slices), threads_per_block, 0, st>>>(P, ld ? ld : np_, T_, d_amax);
    PMX_CUDA_CHECK_LAUNCH();
    std::vector<float> amax(static_cast<size_t>(count));
    PMX_CUDA_CHECK(cudaMemcpyAsync(amax.data(), d_amax, sizeof(float) * size_t(count), cudaMemcpyDeviceToHost, st));
    PMX_CUDA_CHECK(cudaStreamSynchronize(st));
    return amax;
  }

  // Scale exponents of a column of tiles rounded each to its precision prec[b] (a scale per tile):
  // the host rule (kernels.hpp), uploaded to d_shift.
  void tile_scales(cudaStream_t st, const float* P, int64_t count, const tile_precision* prec, float* d_amax,
                   int* d_shift, std::vector<int>& shift) const {
    const std::vector<float> amax = tile_amax(st, P, count, d_amax);
    shift.resize(static_cast<size_t>(count));
    for (int64_t b = 0; b < count; ++b) shift[b] = pmx::detail::precision_scale_shift(amax[b], prec[b]);
    PMX_CUDA_CHECK(cudaMemcpyAsync(d_shift, shift.data(), sizeof(int) * size_t(count), cudaMemcpyHostToDevice, st));
  }

  // The FP16 scale exponent of a split: one for the `count` tiles from P (ld np unless given).
  int split_shift(cudaStream_t st, const float* P, int64_t count, float* d_amax, int64_t ld = 0) const {
    const std::vector<float> amax = tile_amax(st, P, count, d_amax, ld);
    return pmx::detail::precision_scale_shift(*std::max_element(amax.begin(), amax.end()), tile_precision::fp16);
  }

  // C (rows × cols, ld ldc) = beta·C + alpha·A·Bᵀ for split-FP32 operands A (rows × 3T, ld lda)
  // and B (cols × 3T, ld ldb), FP16 with FP32 accumulation (alpha undoes the splits' scales).
  static void split_gemm(cublasHandle_t h, int64_t rows, int64_t cols, int64_t T, float alpha, float beta,
                         const __half* A, int64_t lda, const __half* B, int64_t ldb, float* C, int64_t ldc) {
    PMX_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, int(rows), int(cols), int(3 * T), &alpha, A, CUDA_R_16F,
                                  int(lda), B, CUDA_R_16F, int(ldb), &beta, C, CUDA_R_32F, int(ldc), CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
  }

  // Operands of one step's trailing updates: the panel below the diagonal tile, split (FP16 hi/lo)
  // and converted, with its scales. Two of them alternate, so that the next step's panel is made
  // (on the look-ahead stream) while this step's updates read this one.
  struct step_panel {
    __half* split_a = nullptr;  // [hi hi lo], below × 3T
    __half* split_b = nullptr;  // [hi lo hi]
    __nv_bfloat16* bf16 = nullptr;
    __nv_fp8_e4m3* fp8 = nullptr;
    int s_split = 0, s_bf16 = 0;
    std::vector<int> s_fp8;  // per tile
    cudaEvent_t ready = nullptr;
  };

  void factorise(detail::cuda_context& c) {
    cudaStream_t s = c.stream;
    auto mark = std::chrono::steady_clock::now();
    auto stage = [&](const char* name) {
      PMX_CUDA_CHECK(cudaStreamSynchronize(s));
      const auto now = std::chrono::steady_clock::now();
      stages.emplace_back(name, std::chrono::duration<double>(now - mark).count());
      mark = now;
    };
    cublasHandle_t h = c.blas;
    PMX_CUBLAS_CHECK(cublasSetStream(h, s));
    const int64_t wp = local_tiles_ * T_;
    if (wp > 0) {
      load_kernel<<<blocks_for(np_ * wp), threads_per_block, 0, s>>>(A_, lda_, n_, shift_, L_, np_, wp, T_, rank_, ranks_);
      PMX_CUDA_CHECK_LAUNCH();
    }
    float* d_amax = device_alloc<float>(owned_, size_t(nt_));
    int* d_shift = device_alloc<int>(owned_, size_t(nt_));
    std::vector<int> shift;
    // The matrix's own off-diagonal tiles, rounded to their precision: per column of tiles, one
    // amax pass, the host's scale rule, one rounding pass.
    uint8_t* d_prec = device_alloc<uint8_t>(owned_, size_t(nt_));
    for (int64_t j = 0; j + 1 < nt_; ++j) {
      if (!mine(j)) continue;
      const int64_t count = nt_ - j - 1;
      std::vector<tile_precision> prec(static_cast<size_t>(count));
      std::vector<uint8_t> code(static_cast<size_t>(count));
      bool any = false;
      for (int64_t b = 0; b < count; ++b) {
        prec[b] = map_.at(j + 1 + b, j);
        code[b] = static_cast<uint8_t>(prec[b]);
        any = any || prec[b] != tile_precision::fp32;
      }
      if (!any) continue;
      tile_scales(s, tile_ptr(j + 1, j), count, prec.data(), d_amax, d_shift, shift);
      PMX_CUDA_CHECK(cudaMemcpyAsync(d_prec, code.data(), size_t(count), cudaMemcpyHostToDevice, s));
      round_in_place_kernel<<<dim3(unsigned(count), slices), threads_per_block, 0, s>>>(tile_ptr(j + 1, j), np_, T_,
                                                                                         d_shift, d_prec);
      PMX_CUDA_CHECK_LAUNCH();
      PMX_CUDA_CHECK(cudaStreamSynchronize(s));  // code and shift are reused by the next column
    }
    stage("load and round");
    bool used[4] = {false, false, false, false};
    for (int64_t i = 0; i < nt_; ++i)
      for (int64_t j = 0; j < i; ++j) used[static_cast<int>(map_.at(i, j))] = true;
    const size_t panel = size_t(np_) * size_t(T_);
    std::unique_ptr<fp8_gemm> gemm8;
    if (used[3]) gemm8 = std::make_unique<fp8_gemm>(s, T_, np_, owned_);
    // The look-ahead stream, with its own cuBLAS handle (a handle's workspace serves one stream at
    // a time) and the context's cuSOLVER handle lent to it until the end.
    look_ahead la(c);
    cudaStream_t s2 = la.stream;
    step_panel panels[2];
    for (step_panel& sp : panels) {
      sp.split_a = device_alloc<__half>(owned_, 3 * panel);
      sp.split_b = device_alloc<__half>(owned_, 3 * panel);
      if (used[2]) sp.bf16 = device_alloc<__nv_bfloat16>(owned_, panel);
      if (used[3]) sp.fp8 = device_alloc<__nv_fp8_e4m3>(owned_, panel);
      PMX_CUDA_CHECK(cudaEventCreateWithFlags(&sp.ready, cudaEventDisableTiming));
      la.events.push_back(sp.ready);
    }
    // Over ranks, the FP32 panel as broadcast: every rank makes its operands from it.
    float* broadcast_panel = ranks_ > 1 ? device_alloc<float>(owned_, panel) : nullptr;
    cudaEvent_t column_done;
    PMX_CUDA_CHECK(cudaEventCreateWithFlags(&column_done, cudaEventDisableTiming));
    la.events.push_back(column_done);
    detail::cusolver_handle solver(c);
    PMX_CUSOLVER_CHECK(cusolverDnSetStream(solver.handle, s2));
    int* d_info = device_alloc<int>(owned_, size_t(nt_));
    PMX_CUDA_CHECK(cudaMemsetAsync(d_info, 0, sizeof(int) * size_t(nt_), s2));
    size_t dev_bytes = 0, host_bytes = 0;
    PMX_CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(solver.handle, solver.params, CUBLAS_FILL_MODE_LOWER, T_, CUDA_R_32F,
                                                   L_, np_, CUDA_R_32F, &dev_bytes, &host_bytes));
    void* d_work = device_alloc<char>(owned_, dev_bytes);
    std::vector<char> h_work(std::max<size_t>(host_bytes, 1));
    const float one = 1.0f;
    const std::vector<tile_block> blocks = precision_blocks(map_);
    double look_ahead_seconds = 0;  // host time spent making panels (GPU work overlapped with updates)
    chain_trace trace;

    // Step k's chain on s2, in three pieces: the owner of column k factorises and inverts the
    // diagonal tile (diagonal), solves the panel below it (panel_solve); the panel then goes to
    // every rank, which splits and converts it into sp (share_and_convert).
    auto host_clock = [&](auto&& f) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      look_ahead_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    auto diagonal = [&](int64_t k) {
      if (!mine(k)) return;
      cudaEvent_t t_start = trace.tick(s2);
      PMX_CUSOLVER_CHECK(cusolverDnXpotrf(solver.handle, solver.params, CUBLAS_FILL_MODE_LOWER, T_, CUDA_R_32F,
                                          tile_ptr(k, k), np_, CUDA_R_32F, d_work, dev_bytes, h_work.data(), host_bytes,
                                          d_info + k));
      float* inv = inverse_ptr(k);  // L_kk⁻¹ (T × T, ld T; zero above the diagonal)
      identity_kernel<<<blocks_for(T_ * T_), threads_per_block, 0, s2>>>(inv, T_);
      PMX_CUDA_CHECK_LAUNCH();
      PMX_CUBLAS_CHECK(cublasStrsm(la.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                   int(T_), int(T_), &one, tile_ptr(k, k), int(np_), inv, int(T_)));
      trace.add(chain_trace::diagonal, t_start, trace.tick(s2));
    };
    auto panel_solve = [&](int64_t k, step_panel& sp) {
      const int64_t below = np_ - (k + 1) * T_, count = nt_ - k - 1;
      if (!mine(k) || below <= 0) return;
      host_clock([&] {
        // Panel: L_ik = A_ik L_kk⁻ᵀ, split-FP32 (the panel's split in a, the inverse's in b).
        cudaEvent_t t_start = trace.tick(s2);
        float* P = tile_ptr(k + 1, k);
        const float* inv = inverse_ptr(k);
        const int s_panel = split_shift(s2, P, count, d_amax), s_inv = split_shift(s2, inv, 1, d_amax, T_);
        split_kernel<<<blocks_for(below * T_), threads_per_block, 0, s2>>>(P, np_, below, T_, s_panel, sp.split_a,
                                                                           nullptr);
        split_kernel<<<blocks_for(T_ * T_), threads_per_block, 0, s2>>>(inv, T_, T_, T_, s_inv, nullptr, sp.split_b);
        PMX_CUDA_CHECK_LAUNCH();
        split_gemm(la.blas, below, T_, T_, std::ldexp(1.0f, -(s_panel + s_inv)), 0.0f, sp.split_a, below, sp.split_b,
                   T_, P, np_);
        trace.add(chain_trace::panel, t_start, trace.tick(s2));
      });
    };
    auto share_and_convert = [&](int64_t k, step_panel& sp) {
      const int64_t below = np_ - (k + 1) * T_, count = nt_ - k - 1;
      if (below > 0) host_clock([&] {
          const float* P = mine(k) ? tile_ptr(k + 1, k) : nullptr;
          int64_t ldp = np_;
          if (ranks_ > 1) {
            if (mine(k))
              PMX_CUDA_CHECK(cudaMemcpy2DAsync(broadcast_panel, sizeof(float) * size_t(below), P,
                                               sizeof(float) * size_t(np_), sizeof(float) * size_t(below), size_t(T_),
                                               cudaMemcpyDeviceToDevice, s2));
            cudaEvent_t t_sent = trace.tick(s2);
            detail::device_broadcast(exec_, c, broadcast_panel, int64_t(sizeof(float)) * below * T_, int(k % ranks_),
                                     s2);
            trace.add(chain_trace::broadcast, t_sent, trace.tick(s2));
            P = broadcast_panel, ldp = below;
          }
          cudaEvent_t t_convert = trace.tick(s2);
          // Operands from one amax pass. The FP16 ones are the split's hi part (its first T
          // columns): the same panel scale and rounding as a conversion of their own.
          const std::vector<float> amax = tile_amax(s2, P, count, d_amax, ldp);
          const float panel_max = *std::max_element(amax.begin(), amax.end());
          sp.s_split = pmx::detail::precision_scale_shift(panel_max, tile_precision::fp16);
          split_kernel<<<blocks_for(below * T_), threads_per_block, 0, s2>>>(P, ldp, below, T_, sp.s_split,
                                                                             sp.split_a, sp.split_b);
          PMX_CUDA_CHECK_LAUNCH();
          if (used[2]) {
            sp.s_bf16 = pmx::detail::precision_scale_shift(panel_max, tile_precision::bf16);
            shift.assign(static_cast<size_t>(count), sp.s_bf16);
            PMX_CUDA_CHECK(
                cudaMemcpyAsync(d_shift, shift.data(), sizeof(int) * size_t(count), cudaMemcpyHostToDevice, s2));
            convert_kernel<__nv_bfloat16><<<dim3(unsigned(count), slices), threads_per_block, 0, s2>>>(
                P, ldp, T_, d_shift, sp.bf16, below, false);
            PMX_CUDA_CHECK_LAUNCH();
          }
          if (used[3]) {
            sp.s_fp8.resize(static_cast<size_t>(count));
            for (int64_t t = 0; t < count; ++t)
              sp.s_fp8[t] = pmx::detail::precision_scale_shift(amax[t], tile_precision::fp8);
            PMX_CUDA_CHECK(cudaMemcpyAsync(d_shift, sp.s_fp8.data(), sizeof(int) * size_t(count),
                                           cudaMemcpyHostToDevice, s2));
            convert_kernel<__nv_fp8_e4m3><<<dim3(unsigned(count), slices), threads_per_block, 0, s2>>>(
                P, ldp, T_, d_shift, sp.fp8, below, true);
            PMX_CUDA_CHECK_LAUNCH();
          }
          trace.add(chain_trace::convert, t_convert, trace.tick(s2));
          PMX_CUDA_CHECK(cudaStreamSynchronize(s2));  // the host's shift vectors are reused
        });
      PMX_CUDA_CHECK(cudaEventRecord(sp.ready, s2));
    };
    // Step k's updates of the tiles of block r in columns [j0, j1) (on s).
    auto update = [&](int64_t k, const step_panel& sp, const tile_block& r, int64_t j0, int64_t j1) {
      const int64_t below = np_ - (k + 1) * T_;
      const int64_t bi = r.i0 - k - 1, bj = j0 - k - 1, rows = (r.i1 - r.i0) * T_, cols = (j1 - j0) * T_;
      float* C = tile_ptr(r.i0, j0);
      switch (r.q) {
        case tile_precision::fp32:
          split_gemm(h, rows, cols, T_, -std::ldexp(1.0f, -2 * sp.s_split), 1.0f, sp.split_a + bi * T_, below,
                     sp.split_b + bj * T_, below, C, np_);
          break;
        case tile_precision::fp16:
        case tile_precision::bf16: {
          const bool half = r.q == tile_precision::fp16;
          const float alpha = -std::ldexp(1.0f, -2 * (half ? sp.s_split : sp.s_bf16));  // one scale per panel
          const char* base = half ? reinterpret_cast<const char*>(sp.split_a) : reinterpret_cast<const char*>(sp.bf16);
          const size_t elem = 2;
          PMX_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, int(rows), int(cols), int(T_), &alpha,
                                        base + elem * size_t(bi * T_), half ? CUDA_R_16F : CUDA_R_16BF, int(below),
                                        base + elem * size_t(bj * T_), half ? CUDA_R_16F : CUDA_R_16BF, int(below),
                                        &one, C, CUDA_R_32F, int(np_), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
          break;
        }
        case tile_precision::fp8: {  // blocks of one tile (a scale per tile)
          const float alpha = -std::ldexp(1.0f, -(sp.s_fp8[bi] + sp.s_fp8[bj]));
          gemm8->run(alpha, sp.fp8 + size_t(bi * T_) * T_, sp.fp8 + size_t(bj * T_) * T_, C);
          break;
        }
      }
    };
    // Step k's updates of this rank's columns in [c0, c1): a GEMM per block of tiles of one
    // precision; over ranks, per block and column (the rank's columns are not adjacent there).
    auto updates = [&](int64_t k, const step_panel& sp, int64_t c0, int64_t c1) {
      for (const tile_block& r : blocks) {
        const int64_t j0 = std::max(r.j0, c0), j1 = std::min(r.j1, c1);
        if (j0 >= j1) continue;
        if (ranks_ == 1) {
          update(k, sp, r, j0, j1);
          continue;
        }
        for (int64_t j = j0; j < j1; ++j)
          if (mine(j)) update(k, sp, r, j, j + 1);
      }
    };
    // Right-looking with a look-ahead of one step: step k's updates of column k + 1 first; then,
    // on s2, the factor, inverse and panel of k + 1 while s updates the columns beyond. The owner
    // of k + 1 runs its diagonal factor, inverse and panel solve alone (s waits for them): beside
    // the trailing GEMMs each of cuSOLVER's many small, latency-bound kernels waits for SMs to
    // drain (0.154 s of diagonal factors at 65,536 instead of 0.055 s alone), and they head the
    // chain that the other ranks wait for; the broadcast and conversions overlap the updates.
    cudaEvent_t diagonal_done;
    PMX_CUDA_CHECK(cudaEventCreateWithFlags(&diagonal_done, cudaEventDisableTiming));
    la.events.push_back(diagonal_done);
    PMX_CUDA_CHECK(cudaEventRecord(column_done, s));  // the loaded, rounded matrix
    PMX_CUDA_CHECK(cudaStreamWaitEvent(s2, column_done, 0));
    diagonal(0);
    panel_solve(0, panels[0]);
    share_and_convert(0, panels[0]);
    for (int64_t k = 0; k + 1 < nt_; ++k) {
      step_panel& sp = panels[k % 2];
      step_panel& next = panels[(k + 1) % 2];
      cudaEvent_t t_wait = trace.tick(s);
      PMX_CUDA_CHECK(cudaStreamWaitEvent(s, sp.ready, 0));
      cudaEvent_t t_ready = trace.tick(s);
      trace.add(chain_trace::idle, t_wait, t_ready);
      updates(k, sp, k + 1, k + 2);
      if (mine(k + 1)) trace.add(chain_trace::column, t_ready, trace.tick(s));
      PMX_CUDA_CHECK(cudaEventRecord(column_done, s));
      PMX_CUDA_CHECK(cudaStreamWaitEvent(s2, column_done, 0));
      diagonal(k + 1);
      panel_solve(k + 1, next);
      if (mine(k + 1)) {
        PMX_CUDA_CHECK(cudaEventRecord(diagonal_done, s2));
        cudaEvent_t t_stall = trace.tick(s);
        PMX_CUDA_CHECK(cudaStreamWaitEvent(s, diagonal_done, 0));
        trace.add(chain_trace::stall, t_stall, trace.tick(s));
      }
      cudaEvent_t t_rest = trace.tick(s);
      updates(k, sp, k + 2, nt_);
      trace.add(chain_trace::rest, t_rest, trace.tick(s));
      share_and_convert(k + 1, next);
    }
    PMX_CUDA_CHECK(cudaStreamSynchronize(s2));
    PMX_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<int> d(static_cast<size_t>(nt_));
    PMX_CUDA_CHECK(cudaMemcpy(d.data(), d_info, sizeof(int) * size_t(nt_), cudaMemcpyDeviceToHost));
    std::vector<int64_t> info(d.begin(), d.end());  // over ranks, each tile's from its owner (the others 0)
    if (ranks_ > 1) exec_.comm().sum(info.data(), nt_);
    for (int64_t k = 0; k < nt_; ++k) {  // the first tile that failed (those after it saw NaN)
      if (info[k] > 0) pmx::detail::throw_not_positive_definite(k * T_ + info[k] - 1, T_, n_);
      if (info[k] < 0) throw logic_error("cusolverDnXpotrf: argument " + std::to_string(-info[k]) + " invalid");
    }
    stage("tile steps");
    stages.emplace_back("  of which host time making panels (overlapped)", look_ahead_seconds);
    trace.report(stages);
    // Only the factor, the diagonal inverses (and the FP64 matrix) stay: panels and workspaces go.
    std::vector<void*> keep;
    for (void* p : owned_)
      if (p == L_ || p == A_ || p == inverse_) keep.push_back(p);
      else cudaFree(p);
    owned_ = keep;
  }

  void release() {
    for (void* p : owned_) cudaFree(p);
    owned_.clear();
    for (cudaEvent_t e : aux_events_) cudaEventDestroy(e);
    aux_events_.clear();
    if (aux_blas_) cublasDestroy(aux_blas_), aux_blas_ = nullptr;
    if (aux_stream_) cudaStreamDestroy(aux_stream_), aux_stream_ = nullptr;
  }

  executor exec_;
  int64_t n_, lda_;
  double shift_;
  tile_precision_map map_;
  int64_t T_ = 0, nt_ = 0, np_ = 0;
  int rank_ = 0, ranks_ = 1;                 // over ranks: tile column j lies on rank j mod ranks
  int64_t local_tiles_ = 0, width_ = 0;      // this rank's tile columns, and its columns of A
  float* L_ = nullptr;
  float* inverse_ = nullptr;  // nt inverses of the diagonal tiles, T × T each
  const double* A_ = nullptr;
  std::vector<void*> owned_;
  mutable detail::device_buffer solve_b_, solve_x_, solve_t_, residual_w_, residual_r_;
  // Over ranks, the solves' second stream, its cuBLAS handle and events (made on the first solve).
  mutable cudaStream_t aux_stream_ = nullptr;
  mutable cublasHandle_t aux_blas_ = nullptr;
  mutable std::vector<cudaEvent_t> aux_events_;
  mutable double norm_inf_ = -1;
};

}  // namespace

std::unique_ptr<tile_cholesky::factor> tile_cholesky_factor(const executor& exec, int64_t n, const double* A,
                                                            int64_t lda, double shift, const tile_precision_map& map,
                                                            bool over_ranks) {
  return std::make_unique<device_factor>(exec, n, A, lda, shift, map, over_ranks);
}

std::vector<double> tile_norms2(const executor& exec, const double* A, int64_t lda, int64_t n, int64_t tile,
                                double shift, int rank, int ranks) {
  const int64_t nt = (n + tile - 1) / tile, local = nt > rank ? (nt - rank + ranks - 1) / ranks : 0;
  if (local == 0) return std::vector<double>(static_cast<size_t>(nt * nt), 0.0);
  if (!detail::is_device_pointer(A))
    return pmx::detail::tile_norms2_host(A, lda, n, tile, shift, exec.threads(), rank, ranks);
  detail::cuda_scope scope(exec);
  std::vector<void*> tmp;
  std::vector<double> out(static_cast<size_t>(nt * nt));
  try {
    double* d = device_alloc<double>(tmp, size_t(nt * nt));
    PMX_CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof(double) * size_t(nt * nt), scope.ctx.stream));
    tile_norms2_kernel<<<int(nt * local), threads_per_block, 0, scope.ctx.stream>>>(A, lda, n, tile, nt, local, rank,
                                                                                     ranks, shift, d);
    PMX_CUDA_CHECK_LAUNCH();
    PMX_CUDA_CHECK(cudaMemcpyAsync(out.data(), d, sizeof(double) * out.size(), cudaMemcpyDeviceToHost, scope.ctx.stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(scope.ctx.stream));
  } catch (...) {
    for (void* p : tmp) cudaFree(p);
    throw;
  }
  for (void* p : tmp) cudaFree(p);
  for (int64_t i = 0; i < nt; ++i)
    for (int64_t j = i + 1; j < nt; ++j) out[i * nt + j] = 0;  // upper tiles: not computed
  return out;
}

}  // namespace pmx::kernels::cuda
