// The int8 tensor-core route of the resident weighted product (cuda_integer_products.cuh).
#include <algorithm>
#include <climits>
#include <string>

#include "core/host_transfer.hpp"
#include "ops/sample_sums/cuda_integer_products.cuh"
#include "panoramix/error.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx::kernels::cuda_detail {
namespace {

using detail::cuda_context;

constexpr int64_t pad(int64_t x, int64_t to) { return (x + to - 1) / to * to; }
constexpr int no_position = INT_MIN;
constexpr int tile_samples = 128, tile_columns = 64;
constexpr size_t workspace_bytes = size_t{32} << 20;
// Sample rows per panel of the lower triangle (panels cost a launch each; at 22 k samples 8
// panels keep each product near cuBLASLt's best rate while computing 56 % of the square).
constexpr int max_panels = 8;
constexpr int64_t min_panel_rows = 2048;

void lt_check(cublasStatus_t s, const char* expr) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw error(std::string("cuBLASLt call failed (status ") + std::to_string(static_cast<int>(s)) + "): " + expr);
}
#define PMX_LT_CHECK(expr) lt_check((expr), #expr)

// out[s * ldk + c] = y(s, c) · (digit ? digit[c] : 1) for samples s < n_pad (0 for s >= n) and the
// columns of this launch's tiles: the variant-major 2-bit rows transposed into sample-major bytes,
// one 128-sample × 64-column tile per block through shared memory.
__global__ void __launch_bounds__(256) expand_columns(const uint8_t* __restrict__ raw, int64_t pitch, int64_t n,
                                                      const int32_t* __restrict__ variant_at,
                                                      const uint8_t* __restrict__ counts_a2,
                                                      const int8_t* __restrict__ digit, int64_t c_first, int64_t ldk,
                                                      int8_t* __restrict__ out) {
  __shared__ __align__(16) int8_t tile[tile_samples][tile_columns + 16];
  const int64_t c0 = c_first + int64_t{blockIdx.x} * tile_columns, s0 = int64_t{blockIdx.y} * tile_samples;
  for (int w = threadIdx.x; w < tile_columns * 8; w += blockDim.x) {
    const int col = w >> 3, part = w & 7;  // part: 16 samples = one 32-bit word of codes
    const int64_t c = c0 + col;
    const int v = variant_at[c];
    uint32_t bits = 0;
    if (v >= 0 && s0 < n) bits = *reinterpret_cast<const uint32_t*>(raw + v * pitch + s0 / 4 + part * 4);
    const int d = v >= 0 && digit ? digit[c] : 1;  // c < the plan's columns when v >= 0
    const bool a2 = v >= 0 && counts_a2[c];
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      const unsigned code = (bits >> (2 * k)) & 3u;
      const int y = code == code_het ? 1 : code == code_missing ? 0 : ((code == code_hom_a1) != a2 ? 2 : 0);
      const int64_t s = s0 + part * 16 + k;
      tile[part * 16 + k][col] = static_cast<int8_t>(v >= 0 && s < n ? y * d : 0);
    }
  }
  __syncthreads();
  for (int u = threadIdx.x; u < tile_samples * 4; u += blockDim.x) {
    const int r = u >> 2, q = u & 3;
    *reinterpret_cast<int4*>(out + (s0 + r) * ldk + c0 + q * 16) = *reinterpret_cast<const int4*>(&tile[r][q * 16]);
  }
}

// h[s] += Σ_{c < columns} weight[c] y[s * ldk + c], one warp per sample, a fixed order of sums.
__global__ void row_terms(const int8_t* __restrict__ y, int64_t ldk, int64_t columns, int64_t n,
                          const double* __restrict__ weight, double* __restrict__ h) {
  const int64_t s = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (s >= n) return;
  double acc = 0;
  for (int64_t c0 = int64_t{lane} * 16; c0 < columns; c0 += 32 * 16) {
    const int4 v = *reinterpret_cast<const int4*>(y + s * ldk + c0);
    const int8_t* b = reinterpret_cast<const int8_t*>(&v);
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += b[k] ? b[k] * weight[c0 + k] : 0.0;
  }
  for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) h[s] += acc;
}

struct slot_set {
  const int32_t* acc[integer_products::max_slots];
  double scale[integer_products::max_slots];
  int count;
};

// C[i][j] += Σ_slots scale · acc[i][j] for j <= i < n (slots in ascending position: fixed order).
__global__ void convert_sums(slot_set s, int64_t n, int64_t ld, double* __restrict__ C) {
  for (int64_t i = blockIdx.y; i < n; i += gridDim.y) {
    const int64_t j = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (j > i) continue;
    double v = 0;
    for (int k = 0; k < s.count; ++k) v += s.scale[k] * static_cast<double>(s.acc[k][i * ld + j]);
    C[i * ld + j] += v;
  }
}

// C[i][j] += h[i] + h[j] + constant for j <= i < n.
__global__ void add_row_terms(const double* __restrict__ h, double constant, int64_t n, int64_t ld,
                              double* __restrict__ C) {
  for (int64_t i = blockIdx.y; i < n; i += gridDim.y) {
    const int64_t j = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (j <= i) C[i * ld + j] += (h[i] + h[j]) + constant;
  }
}

dim3 triangle_grid(int64_t n) {
  return dim3(static_cast<unsigned>((n + 255) / 256), static_cast<unsigned>(std::min<int64_t>(n, 65535)));
}

}  // namespace

int64_t integer_products::max_columns(int64_t kc) {
  // Each distinct bottom position pads its group to 16 columns; 64 groups is far beyond any data
  // (weights of one chunk spanning 2^448).
  return pad(kc + 64 * integer_weight_plan::column_align, tile_columns);
}

int64_t integer_products::bytes(int64_t n, int64_t kc, int slots) {
  const int64_t n_pad = pad(n, 256), ldk = max_columns(kc);
  return n_pad * n_pad * (8 + 4 * int64_t{slots}) + n_pad * 8 + 2 * n_pad * ldk + ldk * (4 + 1 + 8 + 9) +
         static_cast<int64_t>(workspace_bytes);
}

integer_products::integer_products(int64_t n, int64_t kc, int slots, cudaStream_t stream)
    : n_(n), n_pad_(pad(n, 256)), ldk_(max_columns(kc)), slots_(slots) {
  PMX_EXPECTS(slots >= 1 && slots <= max_slots, "1 to 12 position sums");
  const auto sq = static_cast<size_t>(n_pad_ * n_pad_);
  C_.reserve(sq * 8);
  h_.reserve(static_cast<size_t>(n_pad_) * 8);
  acc_.reserve(sq * 4 * static_cast<size_t>(slots));
  y_.reserve(static_cast<size_t>(n_pad_ * ldk_));
  yd_.reserve(static_cast<size_t>(n_pad_ * ldk_));
  variant_at_.reserve(static_cast<size_t>(ldk_) * 4);
  counts_a2_.reserve(static_cast<size_t>(ldk_));
  row_weight_.reserve(static_cast<size_t>(ldk_) * 8);
  digits_.reserve(static_cast<size_t>(ldk_) * 9);
  workspace_.reserve(workspace_bytes);
  PMX_CUDA_CHECK(cudaMemsetAsync(C_.get(), 0, sq * 8, stream));
  PMX_CUDA_CHECK(cudaMemsetAsync(h_.get(), 0, static_cast<size_t>(n_pad_) * 8, stream));
  PMX_CUDA_CHECK(cudaMemsetAsync(acc_.get(), 0, sq * 4 * static_cast<size_t>(slots), stream));
  slot_position_.assign(static_cast<size_t>(slots), no_position);
  slot_variants_.assign(static_cast<size_t>(slots), 0);
  PMX_LT_CHECK(cublasLtCreate(&lt_));
  PMX_LT_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32I, CUDA_R_32I));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  PMX_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  PMX_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
}

integer_products::~integer_products() {
  if (desc_) cublasLtMatmulDescDestroy(desc_);
  if (lt_) cublasLtDestroy(lt_);
}

// D(M × N, ld n_pad, int32) += Aᵀ B with A: K × M and B: K × N, both int8 with leading dimension ldk.
void integer_products::gemm(cudaStream_t stream, const int8_t* A, const int8_t* B, int32_t* C, int64_t M, int64_t N,
                            int64_t K) {
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  PMX_LT_CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, static_cast<uint64_t>(K), static_cast<uint64_t>(M), ldk_));
  PMX_LT_CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, static_cast<uint64_t>(K), static_cast<uint64_t>(N), ldk_));
  PMX_LT_CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, static_cast<uint64_t>(M), static_cast<uint64_t>(N), n_pad_));
  const auto key = std::make_tuple(M, N, K);
  auto it = algos_.find(key);
  if (it == algos_.end()) {
    cublasLtMatmulPreference_t pref;
    PMX_LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const size_t ws = workspace_bytes;
    PMX_LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t r{};
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt_, desc_, la, lb, lc, lc, pref, 1, &r, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
      cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
      throw unsupported_error("cuBLASLt has no int8 GEMM with int32 sums for " + std::to_string(M) + " x " +
                              std::to_string(N) + " x " + std::to_string(K) + " on this GPU");
    }
    it = algos_.emplace(key, r).first;
  }
  const int32_t one = 1;
  const cublasStatus_t st = cublasLtMatmul(lt_, desc_, &one, A, la, B, lb, &one, C, lc, C, lc, &it->second.algo,
                                           workspace_.get(), workspace_bytes, stream);
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
  PMX_LT_CHECK(st);
}

void integer_products::convert_all(cudaStream_t stream) {
  std::vector<int> used;
  for (int s = 0; s < slots_; ++s)
    if (slot_position_[s] != no_position) used.push_back(s);
  if (used.empty()) return;
  std::sort(used.begin(), used.end(), [&](int a, int b) { return slot_position_[a] < slot_position_[b]; });
  slot_set set{};
  set.count = static_cast<int>(used.size());
  const size_t sq = static_cast<size_t>(n_pad_ * n_pad_);
  for (int k = 0; k < set.count; ++k) {
    set.acc[k] = static_cast<const int32_t*>(acc_.get()) + sq * static_cast<size_t>(used[k]);
    set.scale[k] = std::ldexp(1.0, 7 * slot_position_[used[k]]);
  }
  convert_sums<<<triangle_grid(n_), 256, 0, stream>>>(set, n_, n_pad_, static_cast<double*>(C_.get()));
  PMX_CUDA_CHECK_LAUNCH();
  for (int s : used) {
    PMX_CUDA_CHECK(cudaMemsetAsync(static_cast<int32_t*>(acc_.get()) + sq * static_cast<size_t>(s), 0, sq * 4, stream));
    slot_position_[s] = no_position;
    slot_variants_[s] = 0;
  }
}

int integer_products::slot_for(int position, int64_t columns, cudaStream_t stream) {
  auto find = [&]() -> int {
    for (int s = 0; s < slots_; ++s)
      if (slot_position_[s] == position) return s;
    for (int s = 0; s < slots_; ++s)
      if (slot_position_[s] == no_position) return slot_position_[s] = position, s;
    return -1;
  };
  int s = find();
  if (s < 0 || slot_variants_[s] + columns > integer_weight_plan::max_carried_variants) {
    convert_all(stream);
    s = find();
  }
  slot_variants_[s] += columns;
  return s;
}

void integer_products::add(cuda_context& c, const uint8_t* raw, int64_t pitch, const integer_weight_plan& plan) {
  row_constant_ += plan.row_constant;
  if (plan.columns == 0) return;
  PMX_EXPECTS(plan.columns <= ldk_, "chunk plan wider than the int8 operands");
  cudaStream_t st = c.stream;
  const int64_t cols = plan.columns, T = plan.positions();
  // Column tables up (pageable copies: the host plan may be reused once these calls return).
  std::vector<int32_t> at(static_cast<size_t>(ldk_), -1);
  std::copy(plan.variant_at.begin(), plan.variant_at.end(), at.begin());
  PMX_CUDA_CHECK(cudaMemcpyAsync(variant_at_.get(), at.data(), at.size() * 4, cudaMemcpyHostToDevice, st));
  PMX_CUDA_CHECK(cudaMemcpyAsync(counts_a2_.get(), plan.counts_a2.data(), static_cast<size_t>(cols),
                                 cudaMemcpyHostToDevice, st));
  PMX_CUDA_CHECK(cudaMemcpyAsync(row_weight_.get(), plan.row_weight.data(), static_cast<size_t>(cols) * 8,
                                 cudaMemcpyHostToDevice, st));
  digits_.reserve(static_cast<size_t>(T * ldk_));
  PMX_CUDA_CHECK(cudaMemcpyAsync(digits_.get(), plan.digits.data(), static_cast<size_t>(T * cols),
                                 cudaMemcpyHostToDevice, st));
  auto* y = static_cast<int8_t*>(y_.get());
  auto* yd = static_cast<int8_t*>(yd_.get());
  const auto* va = static_cast<const int32_t*>(variant_at_.get());
  const auto* a2 = static_cast<const uint8_t*>(counts_a2_.get());
  auto expand = [&](const int8_t* digit, int64_t c_begin, int64_t c_end, int8_t* out) {
    const int64_t first = c_begin / tile_columns * tile_columns, last = pad(c_end, tile_columns);
    const dim3 grid(static_cast<unsigned>((last - first) / tile_columns), static_cast<unsigned>(n_pad_ / tile_samples));
    expand_columns<<<grid, 256, 0, st>>>(raw, pitch, n_, va, a2, digit, first, ldk_, out);
    PMX_CUDA_CHECK_LAUNCH();
  };
  expand(nullptr, 0, cols, y);
  row_terms<<<static_cast<unsigned>((n_ * 32 + 255) / 256), 256, 0, st>>>(
      y, ldk_, cols, n_, static_cast<const double*>(row_weight_.get()), static_cast<double*>(h_.get()));
  PMX_CUDA_CHECK_LAUNCH();

  const int panels = static_cast<int>(std::clamp<int64_t>(n_ / min_panel_rows, 1, max_panels));
  const int64_t nb = pad((n_ + panels - 1) / panels, 16);
  const size_t sq = static_cast<size_t>(n_pad_ * n_pad_);
  for (size_t p = 0; p < plan.products.size();) {
    const int t = plan.products[p].position;
    size_t q = p;
    int64_t lo = plan.products[p].begin, hi = plan.products[p].end;
    for (; q < plan.products.size() && plan.products[q].position == t; ++q) hi = std::max(hi, plan.products[q].end);
    const int8_t* digit = static_cast<const int8_t*>(digits_.get()) + (t - plan.bottom) * cols;
    expand(digit, lo, hi, yd);
    for (; p < q; ++p) {
      const auto& pr = plan.products[p];
      const int s = slot_for(t, pr.end - pr.begin, st);
      auto* acc = static_cast<int32_t*>(acc_.get()) + sq * static_cast<size_t>(s);
      for (int64_t i0 = 0; i0 < n_; i0 += nb) {
        const int64_t i1 = std::min(n_, i0 + nb), M = std::min(n_pad_, pad(i1, 16));
        gemm(st, yd + pr.begin, y + i0 * ldk_ + pr.begin, acc + i0 * n_pad_, M, i1 - i0, pr.end - pr.begin);
      }
    }
  }
}

const double* integer_products::finish_on_device(cudaStream_t st) {
  convert_all(st);
  auto* Cd = static_cast<double*>(C_.get());
  add_row_terms<<<triangle_grid(n_), 256, 0, st>>>(static_cast<const double*>(h_.get()), 2 * row_constant_, n_,
                                                   n_pad_, Cd);
  PMX_CUDA_CHECK_LAUNCH();
  return Cd;
}

void integer_products::restart(cudaStream_t st) {
  PMX_CUDA_CHECK(cudaMemsetAsync(C_.get(), 0, static_cast<size_t>(n_pad_ * n_pad_) * 8, st));
  PMX_CUDA_CHECK(cudaMemsetAsync(h_.get(), 0, static_cast<size_t>(n_pad_) * 8, st));
  row_constant_ = 0;
}

void integer_products::flush(cuda_context& c, double* C, int64_t ld, int threads) {
  cudaStream_t st = c.stream;
  const double* Cd = finish_on_device(st);
  auto width = [&](int64_t first, int64_t count) { return static_cast<size_t>(std::min(first + count, n_)) * 8; };
  detail::stream_rows_to_host(c, Cd, static_cast<size_t>(n_pad_) * 8, static_cast<size_t>(n_) * 8, n_, width,
                              [&](const void* src, int64_t first, int64_t count, size_t w) {
                                const auto cols = static_cast<int64_t>(w / 8);
                                detail::add_rows(C + first * ld, ld, static_cast<const double*>(src), cols, count, cols,
                                                 true, first, 0, threads);
                              });
  restart(st);
  PMX_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace pmx::kernels::cuda_detail
