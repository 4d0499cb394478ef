// tile_cholesky: rounding to the tile precisions, the precision rule, validation and dispatch
// (reference.cpp, cpu.cpp, cuda.cu), and the host backends' factor object.
#include "panoramix/ops/tile_cholesky.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "ops/tile_cholesky/kernels.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx {
namespace {

struct format {
  int mantissa_bits;  ///< stored fraction bits
  int min_exponent;   ///< exponent of the smallest normal number (subnormals below, same quantum)
  double max;         ///< largest finite value
  bool saturates;     ///< beyond max: ±max (FP8 E4M3 as cuBLASLt scales it) instead of ±inf
  double scale_top;   ///< a scaled tile's largest |entry| is brought into (scale_top/2, scale_top]
};

format format_of(tile_precision p) {
  switch (p) {
    case tile_precision::fp32: return {23, -126, std::numeric_limits<float>::max(), false, 1.0};
    case tile_precision::fp16: return {10, -14, 65504.0, false, 32768.0};
    case tile_precision::bf16: return {7, -126, std::numeric_limits<float>::max(), false, 1.0};
    case tile_precision::fp8: return {3, -6, 448.0, true, 256.0};
  }
  return {23, -126, std::numeric_limits<float>::max(), false, 1.0};
}

// Round to nearest, ties to even, in a binary format with the given fraction bits and exponent
// range: the quantum of x's binade (or of the subnormal range) divides x exactly in double.
double round_in_format(double x, const format& f) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  const int exponent = std::max(e - 1, f.min_exponent);
  const double quantum = std::ldexp(1.0, exponent - f.mantissa_bits);
  const double r = std::nearbyint(x / quantum) * quantum;
  if (std::fabs(r) > f.max) {
    if (f.saturates) return std::copysign(f.max, r);
    return std::copysign(std::numeric_limits<double>::infinity(), r);
  }
  return r;
}

}  // namespace

double unit_roundoff(tile_precision p) { return std::ldexp(1.0, -(format_of(p).mantissa_bits + 1)); }

const char* precision_name(tile_precision p) {
  switch (p) {
    case tile_precision::fp32: return "fp32";
    case tile_precision::fp16: return "fp16";
    case tile_precision::bf16: return "bf16";
    case tile_precision::fp8: return "fp8";
  }
  return "?";
}

float round_to_precision(float x, tile_precision p) {
  if (p == tile_precision::fp32) return x;
  return static_cast<float>(round_in_format(x, format_of(p)));
}

int64_t tile_precision_map::count(tile_precision q) const {
  int64_t c = 0;
  for (int64_t i = 0; i < tiles; ++i)
    for (int64_t j = 0; j < i; ++j) c += at(i, j) == q;
  return c;
}

tile_precision_map tile_precision_map::uniform(int64_t n, int64_t tile) {
  PMX_EXPECTS(n >= 0 && tile > 0, "tile size must be positive");
  tile_precision_map m;
  m.n = n, m.tile = tile, m.tiles = (n + tile - 1) / tile;
  m.p.assign(static_cast<size_t>(m.tiles * m.tiles), tile_precision::fp32);
  return m;
}

std::vector<double> detail::tile_norms2_host(const double* A, int64_t lda, int64_t n, int64_t tile, double shift,
                                             int threads, int rank, int ranks) {
  const int64_t nt = (n + tile - 1) / tile;
  const int64_t local = nt > rank ? (nt - rank + ranks - 1) / ranks : 0;  // this rank's tile columns
  std::vector<double> norm2(static_cast<size_t>(nt * nt), 0.0);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int64_t t = 0; t < nt * local; ++t) {
    const int64_t i = t / local, jl = t % local, j = jl * ranks + rank;
    if (j > i) continue;
    const int64_t r0 = i * tile, c0 = jl * tile;  // c0: the column in this rank's part
    const int64_t rows = tile_rows(n, tile, i), cols = tile_rows(n, tile, j);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < rows; ++r) {
        if (i == j && r < c) continue;  // the upper half of a diagonal tile mirrors the lower
        const double v = A[(c0 + c) * lda + r0 + r] + (i == j && r == c ? shift : 0.0);
        s += (i == j && r != c ? 2 : 1) * v * v;
      }
    norm2[static_cast<size_t>(i * nt + j)] = s;
  }
  return norm2;
}

tile_precision_map detail::precisions_from_norms(int64_t n, int64_t tile, const std::vector<double>& norm2,
                                                 double epsilon, tile_precision lowest) {
  tile_precision_map m = tile_precision_map::uniform(n, tile);
  const int64_t nt = m.tiles;
  double total = 0;  // ‖A‖_F² counts each off-diagonal tile twice
  for (int64_t i = 0; i < nt; ++i)
    for (int64_t j = 0; j <= i; ++j) total += (i == j ? 1 : 2) * norm2[static_cast<size_t>(i * nt + j)];
  const double norm_a = std::sqrt(total);
  constexpr tile_precision order[] = {tile_precision::fp8, tile_precision::bf16, tile_precision::fp16};
  for (int64_t i = 0; i < nt; ++i)
    for (int64_t j = 0; j < i; ++j) {
      const double ratio = norm_a > 0 ? std::sqrt(norm2[static_cast<size_t>(i * nt + j)]) * double(nt) / norm_a : 0;
      tile_precision chosen = tile_precision::fp32;
      for (tile_precision q : order) {
        if (static_cast<int>(q) > static_cast<int>(lowest)) continue;  // less precise than allowed
        if (ratio < epsilon / unit_roundoff(q)) {
          chosen = q;
          break;
        }
      }
      m.p[static_cast<size_t>(i * nt + j)] = chosen;
    }
  return m;
}

int64_t tile_cyclic_width(int64_t n, int64_t tile, int rank, int ranks) {
  PMX_EXPECTS(n >= 0 && tile > 0 && ranks > 0 && rank >= 0 && rank < ranks, "tile-cyclic layout");
  const int64_t nt = (n + tile - 1) / tile;
  int64_t width = 0;
  for (int64_t j = rank; j < nt; j += ranks) width += detail::tile_rows(n, tile, j);
  return width;
}

namespace {

tile_precision_map choose_over(const executor& exec, const double* A, int64_t lda, int64_t n, double shift,
                               int64_t tile, double epsilon, tile_precision lowest, int rank, int ranks) {
  PMX_EXPECTS(epsilon > 0 && std::isfinite(epsilon), "tile accuracy must be positive and finite");
  PMX_EXPECTS(tile > 0, "tile size must be positive");
  PMX_EXPECTS(lda >= std::max<int64_t>(n, 1) && (tile_cyclic_width(n, tile, rank, ranks) == 0 || A),
              "matrix and leading dimension");
  std::vector<double> norm2 = exec.kind() == backend::cuda
                                  ? kernels::cuda::tile_norms2(exec, A, lda, n, tile, shift, rank, ranks)
                                  : detail::tile_norms2_host(A, lda, n, tile, shift, exec.threads(), rank, ranks);
  // Each tile's norm comes from one rank (the others add zeros): the same bits on every rank.
  if (ranks > 1) exec.comm().sum(norm2.data(), static_cast<int64_t>(norm2.size()));
  return detail::precisions_from_norms(n, tile, norm2, epsilon, lowest);
}

}  // namespace

tile_precision_map choose_tile_precisions(const executor& exec, const double* A, int64_t lda, int64_t n,
                                          double shift, int64_t tile, double epsilon, tile_precision lowest) {
  return choose_over(exec, A, lda, n, shift, tile, epsilon, lowest, 0, 1);
}

tile_precision_map choose_tile_precisions(const executor& exec, over_ranks_t, const double* A, int64_t lda, int64_t n,
                                          double shift, int64_t tile, double epsilon, tile_precision lowest) {
  return choose_over(exec, A, lda, n, shift, tile, epsilon, lowest, exec.comm().rank(), exec.comm().size());
}

int detail::precision_scale_shift(float amax, tile_precision p) {
  if (!(amax > 0)) return 0;
  int e = 0;
  std::frexp(format_of(p).scale_top / amax, &e);  // top/amax in [2^(e-1), 2^e): amax·2^(e-1) in (top/2, top]
  return e - 1;
}

double detail::precision_scale_top(tile_precision p) { return format_of(p).scale_top; }

float detail::block_amax(const float* src, int64_t ld, int64_t rows, int64_t cols) {
  float amax = 0;
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < rows; ++r) amax = std::max(amax, std::fabs(src[c * ld + r]));
  return amax;
}

void detail::round_tile(const float* src, int64_t ld_src, int64_t rows, int64_t cols, tile_precision p, float* dst,
                        int64_t ld_dst, float amax) {
  if (p == tile_precision::fp32) {
    if (dst != src)
      for (int64_t c = 0; c < cols; ++c) std::copy_n(src + c * ld_src, rows, dst + c * ld_dst);
    return;
  }
  const format f = format_of(p);
  if (amax < 0) amax = block_amax(src, ld_src, rows, cols);
  const int shift = precision_scale_shift(amax, p);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < rows; ++r) {
      const double scaled = std::ldexp(double(src[c * ld_src + r]), shift);
      dst[c * ld_dst + r] = static_cast<float>(std::ldexp(round_in_format(scaled, f), -shift));
    }
}

void detail::throw_not_positive_definite(int64_t row, int64_t tile, int64_t n) {
  throw numeric_error("mixed-precision Cholesky: pivot " + std::to_string(row + 1) + " of " + std::to_string(n) +
                      " (diagonal tile " + std::to_string(row / tile + 1) +
                      ") is not positive: the matrix, at these tile precisions, is not positive definite");
}

namespace {

// A + shift·I's lower triangle in FP32, off-diagonal tiles rounded to their precision.
void load_rounded(const double* A, int64_t lda, double shift, const tile_precision_map& map, float* L, int threads) {
  const int64_t n = map.n, tile = map.tile, nt = map.tiles;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int64_t t = 0; t < nt * nt; ++t) {
    const int64_t i = t / nt, j = t % nt;
    if (j > i) continue;
    const int64_t r0 = i * tile, c0 = j * tile;
    const int64_t rows = detail::tile_rows(n, tile, i), cols = detail::tile_rows(n, tile, j);
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < rows; ++r)
        L[(c0 + c) * n + r0 + r] = static_cast<float>(A[(c0 + c) * lda + r0 + r] + (i == j && r == c ? shift : 0.0));
    if (i != j) detail::round_tile(L + c0 * n + r0, n, rows, cols, map.at(i, j), L + c0 * n + r0, n);
  }
}

using host_factor_fn = void (*)(const executor&, const tile_precision_map&, float*);
using host_solve_fn = void (*)(const executor&, int64_t, const float*, double*, int64_t, int64_t);

// The reference and cpu backends' factor: L in FP32 on the host; residuals with the caller's A
// through dense_gemm on the same executor (BLAS on cpu, loops on reference).
class host_factor final : public tile_cholesky::factor {
 public:
  host_factor(const executor& exec, int64_t n, const double* A, int64_t lda, double shift,
              const tile_precision_map& map, host_factor_fn factorise, host_solve_fn solve)
      : exec_(exec), n_(n), A_(A), lda_(lda), shift_(shift), solve_(solve), L_(static_cast<size_t>(n * n)) {
    const auto t0 = std::chrono::steady_clock::now();
    load_rounded(A, lda, shift, map, L_.data(), exec.threads());
    factorise(exec, map, L_.data());
    stages.emplace_back("factorisation", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  void solve(double* B, int64_t ldb, int64_t m) const override { solve_(exec_, n_, L_.data(), B, ldb, m); }
  void residual(const double* W, const double* Y, double* R, int64_t m) const override {
    std::copy_n(Y, n_ * m, R);
    dense_gemm(exec_, false, false, n_, m, n_, -1.0, A_, lda_, W, n_, 1.0, R, n_);
    for (int64_t i = 0; i < n_ * m; ++i) R[i] -= shift_ * W[i];
  }
  double norm_inf() const override {
    double worst = 0;
#pragma omp parallel for reduction(max : worst) num_threads(exec_.threads())
    for (int64_t i = 0; i < n_; ++i) {
      double s = 0;  // row i = column i (symmetric)
      for (int64_t j = 0; j < n_; ++j) s += std::fabs(A_[i * lda_ + j] + (i == j ? shift_ : 0.0));
      worst = std::max(worst, s);
    }
    return worst;
  }

 private:
  executor exec_;
  int64_t n_;
  const double* A_;
  int64_t lda_;
  double shift_;
  host_solve_fn solve_;
  std::vector<float> L_;
};

}  // namespace

namespace {

void check_factor_inputs(int64_t n, const double* A, int64_t lda, double shift, const tile_precision_map& map,
                         bool empty_part) {
  PMX_EXPECTS(n > 0 && map.n == n && map.tile > 0 && map.tiles == (n + map.tile - 1) / map.tile &&
                  static_cast<int64_t>(map.p.size()) == map.tiles * map.tiles,
              "tile precision map does not fit the matrix");
  PMX_EXPECTS(lda >= n && (empty_part || A), "matrix and leading dimension");
  PMX_EXPECTS(std::isfinite(shift), "finite shift");
}

std::unique_ptr<tile_cholesky::factor> one_process_factor(const executor& exec, int64_t n, const double* A, int64_t lda,
                                                          double shift, const tile_precision_map& map) {
  switch (exec.kind()) {
    case backend::reference:
      return std::make_unique<host_factor>(exec, n, A, lda, shift, map, kernels::reference::tile_cholesky_factor,
                                           kernels::reference::tile_cholesky_solve);
    case backend::cpu:
      return std::make_unique<host_factor>(exec, n, A, lda, shift, map, kernels::cpu::tile_cholesky_factor,
                                           kernels::cpu::tile_cholesky_solve);
    case backend::cuda: return kernels::cuda::tile_cholesky_factor(exec, n, A, lda, shift, map, false);
  }
  throw logic_error("tile_cholesky: unknown backend");
}

}  // namespace

tile_cholesky::tile_cholesky(const executor& exec, int64_t n, const double* A, int64_t lda, double shift,
                             const tile_precision_map& map)
    : map_(map) {
  check_factor_inputs(n, A, lda, shift, map, false);
  f_ = one_process_factor(exec, n, A, lda, shift, map);
}

tile_cholesky::tile_cholesky(const executor& exec, over_ranks_t, int64_t n, const double* A, int64_t lda,
                             double shift, const tile_precision_map& map)
    : map_(map) {
  const communicator& comm = exec.comm();
  check_factor_inputs(n, A, lda, shift, map,
                      map.tile > 0 && tile_cyclic_width(n, map.tile, comm.rank(), comm.size()) == 0);
  if (!comm.distributed()) {
    f_ = one_process_factor(exec, n, A, lda, shift, map);
    return;
  }
  if (exec.kind() != backend::cuda)
    throw unsupported_error("the mixed-precision Cholesky over " + std::to_string(comm.size()) +
                            " ranks runs on GPUs (--device cuda); on CPUs solve in FP64 (ScaLAPACK)");
  f_ = kernels::cuda::tile_cholesky_factor(exec, n, A, lda, shift, map, true);
}

tile_cholesky::~tile_cholesky() = default;

void tile_cholesky::solve(double* B, int64_t ldb, int64_t m) const {
  PMX_EXPECTS(m >= 0 && ldb >= map_.n && (m == 0 || B), "right-hand sides");
  if (m > 0) f_->solve(B, ldb, m);
}

void tile_cholesky::residual(const double* W, const double* Y, double* R, int64_t m) const {
  PMX_EXPECTS(m >= 0 && (m == 0 || (W && Y && R)), "residual operands");
  if (m > 0) f_->residual(W, Y, R, m);
}

double tile_cholesky::norm_inf() const { return f_->norm_inf(); }
int64_t tile_cholesky::n() const { return map_.n; }
const tile_precision_map& tile_cholesky::map() const { return map_; }
const std::vector<std::pair<std::string, double>>& tile_cholesky::stage_seconds() const { return f_->stages; }

}  // namespace pmx
