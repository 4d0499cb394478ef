// tile_cholesky: rounding to the tile precisions, the precision rule, validation and dispatch
// (reference.cpp, cpu.cpp).
#include "panoramix/ops/tile_cholesky.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ops/tile_cholesky/kernels.hpp"
#include "panoramix/error.hpp"

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

tile_precision_map choose_tile_precisions(const double* A, int64_t lda, int64_t n, int64_t tile, double epsilon,
                                          tile_precision lowest) {
  PMX_EXPECTS(epsilon > 0 && std::isfinite(epsilon), "tile accuracy must be positive and finite");
  PMX_EXPECTS(lda >= std::max<int64_t>(n, 1) && (n == 0 || A), "matrix and leading dimension");
  tile_precision_map m = tile_precision_map::uniform(n, tile);
  const int64_t nt = m.tiles;
  // Squared Frobenius norms of the lower tiles; ‖A‖_F² counts each off-diagonal tile twice.
  std::vector<double> norm2(static_cast<size_t>(nt * nt), 0.0);
#pragma omp parallel for schedule(dynamic)
  for (int64_t t = 0; t < nt * nt; ++t) {
    const int64_t i = t / nt, j = t % nt;
    if (j > i) continue;
    const int64_t r0 = i * tile, c0 = j * tile;
    const int64_t rows = detail::tile_rows(n, tile, i), cols = detail::tile_rows(n, tile, j);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < rows; ++r) {
        if (i == j && r < c) continue;  // the upper half of a diagonal tile mirrors the lower
        const double v = A[(c0 + c) * lda + r0 + r];
        s += (i == j && r != c ? 2 : 1) * v * v;
      }
    norm2[static_cast<size_t>(t)] = s;
  }
  double total = 0;
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

void detail::round_tile(const float* src, int64_t ld_src, int64_t rows, int64_t cols, tile_precision p, float* dst,
                        int64_t ld_dst) {
  if (p == tile_precision::fp32) {
    if (dst != src)
      for (int64_t c = 0; c < cols; ++c) std::copy_n(src + c * ld_src, rows, dst + c * ld_dst);
    return;
  }
  const format f = format_of(p);
  float amax = 0;
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < rows; ++r) amax = std::max(amax, std::fabs(src[c * ld_src + r]));
  int shift = 0;  // scale 2^shift: amax·2^shift in (top/2, top]
  if (amax > 0) {
    int e = 0;
    std::frexp(f.scale_top / amax, &e);  // top/amax in [2^(e-1), 2^e)
    shift = e - 1;
  }
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < rows; ++r) {
      const double scaled = std::ldexp(double(src[c * ld_src + r]), shift);
      dst[c * ld_dst + r] = static_cast<float>(std::ldexp(round_in_format(scaled, f), -shift));
    }
}

void detail::load_rounded(const double* A, int64_t lda, const tile_precision_map& map, float* L, int threads) {
  const int64_t n = map.n, tile = map.tile, nt = map.tiles;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int64_t t = 0; t < nt * nt; ++t) {
    const int64_t i = t / nt, j = t % nt;
    if (j > i) continue;
    const int64_t r0 = i * tile, c0 = j * tile;
    const int64_t rows = tile_rows(n, tile, i), cols = tile_rows(n, tile, j);
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < rows; ++r) L[(c0 + c) * n + r0 + r] = static_cast<float>(A[(c0 + c) * lda + r0 + r]);
    if (i != j) round_tile(L + c0 * n + r0, n, rows, cols, map.at(i, j), L + c0 * n + r0, n);
  }
}

void detail::throw_not_positive_definite(int64_t row, int64_t tile, int64_t n) {
  throw numeric_error("mixed-precision Cholesky: pivot " + std::to_string(row + 1) + " of " + std::to_string(n) +
                      " (diagonal tile " + std::to_string(row / tile + 1) +
                      ") is not positive: the matrix, at these tile precisions, is not positive definite");
}

struct tile_cholesky::state {
  tile_precision_map map;
  std::vector<float> L;  // n × n column-major, lower triangle
  executor exec;
};

tile_cholesky::tile_cholesky(const executor& exec, int64_t n, const double* A, int64_t lda,
                             const tile_precision_map& map)
    : s_(std::make_unique<state>(state{map, {}, exec})) {
  PMX_EXPECTS(n >= 0 && map.n == n && map.tile > 0 && map.tiles == (n + map.tile - 1) / map.tile &&
                  static_cast<int64_t>(map.p.size()) == map.tiles * map.tiles,
              "tile precision map does not fit the matrix");
  PMX_EXPECTS(lda >= std::max<int64_t>(n, 1) && (n == 0 || A), "matrix and leading dimension");
  if (n == 0) return;
  s_->L.resize(static_cast<size_t>(n * n));
  detail::load_rounded(A, lda, map, s_->L.data(), exec.threads());
  switch (exec.kind()) {
    case backend::reference: kernels::reference::tile_cholesky_factor(exec, map, s_->L.data()); break;
    case backend::cpu: kernels::cpu::tile_cholesky_factor(exec, map, s_->L.data()); break;
    // No device kernel yet (issue #20): the host's, with the executor's threads.
    case backend::cuda: kernels::cpu::tile_cholesky_factor(exec.host(), map, s_->L.data()); break;
  }
}

tile_cholesky::~tile_cholesky() = default;

void tile_cholesky::solve(double* B, int64_t ldb, int64_t m) const {
  const int64_t n = s_->map.n;
  PMX_EXPECTS(m >= 0 && ldb >= std::max<int64_t>(n, 1) && (n == 0 || m == 0 || B), "right-hand sides");
  if (n == 0 || m == 0) return;
  switch (s_->exec.kind()) {
    case backend::reference: return kernels::reference::tile_cholesky_solve(s_->exec, n, s_->L.data(), B, ldb, m);
    case backend::cpu: return kernels::cpu::tile_cholesky_solve(s_->exec, n, s_->L.data(), B, ldb, m);
    case backend::cuda: return kernels::cpu::tile_cholesky_solve(s_->exec.host(), n, s_->L.data(), B, ldb, m);
  }
}

int64_t tile_cholesky::n() const { return s_->map.n; }
const tile_precision_map& tile_cholesky::map() const { return s_->map; }

}  // namespace pmx
