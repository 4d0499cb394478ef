// Associate: one factorisation of K + αI for every phenotype, at the asked precision, refined in
// FP64 (kernel_ridge.hpp).
#include "panoramix/kernel_ridge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx {
namespace {

// R = Y − (K + αI) W, all n × t column-major; K symmetric (row- or column-major alike).
void residual(const executor& host, int64_t n, const double* K, double alpha, int64_t t, const double* W,
              const double* Y, double* R) {
  std::copy_n(Y, n * t, R);
  dense_gemm(host, false, false, n, t, n, -1.0, K, n, W, n, 1.0, R, n);
  for (int64_t i = 0; i < n * t; ++i) R[i] -= alpha * W[i];
}

double max_abs(const double* x, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

// ‖K + αI‖∞ (max absolute row sum).
double norm_inf(const executor& host, int64_t n, const double* K, double alpha) {
  double m = 0;
#pragma omp parallel for reduction(max : m) num_threads(host.threads())
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += std::fabs(K[i * n + j] + (i == j ? alpha : 0.0));
    m = std::max(m, s);
  }
  return m;
}

double backward_error(int64_t n, int64_t t, double a_norm, const double* W, const double* Y, const double* R) {
  double worst = 0;
  for (int64_t c = 0; c < t; ++c) {
    const double den = a_norm * max_abs(W + c * n, n) + max_abs(Y + c * n, n);
    const double r = max_abs(R + c * n, n);
    worst = std::max(worst, den > 0 ? r / den : (r > 0 ? std::numeric_limits<double>::infinity() : 0.0));
  }
  return worst;
}

void solve_fp64(const executor& exec, int64_t n, const double* K, double alpha, int64_t t, double* W) {
  matrix_buffer<double> A(static_cast<size_t>(n * n));
  std::copy_n(K, n * n, A.data());
  for (int64_t i = 0; i < n; ++i) A[i * n + i] += alpha;
  try {
    cholesky_solve(exec, n, A.data(), n, t, W, n);
  } catch (const numeric_error& e) {
    throw numeric_error(std::string("K + alpha I is not positive definite (raise --alpha): ") + e.what());
  }
}

}  // namespace

const char* solve_precision_name(solve_precision p) {
  switch (p) {
    case solve_precision::fp64: return "fp64";
    case solve_precision::fp32: return "fp32";
    case solve_precision::adaptive: return "adaptive";
  }
  return "?";
}

void check_kernel_ridge_options(const kernel_ridge_options& o) {
  if (!(o.accuracy > 0 && o.accuracy < 1))
    throw input_error("--accuracy must be in (0, 1) (got " + std::to_string(o.accuracy) + ")");
  if (!(o.tile_accuracy > 0 && o.tile_accuracy < 1))
    throw input_error("--tile-accuracy must be in (0, 1) (got " + std::to_string(o.tile_accuracy) + ")");
  if (o.tile < 16) throw input_error("--tile must be at least 16 rows (got " + std::to_string(o.tile) + ")");
  if (o.max_refinements < 1) throw input_error("refinement steps must be at least 1");
}

double kernel_ridge_backward_error(const executor& exec, int64_t n, const double* K, double alpha, int64_t traits,
                                   const double* W, const double* Y) {
  const executor host = exec.host();
  matrix_buffer<double> R(static_cast<size_t>(n * traits));
  residual(host, n, K, alpha, traits, W, Y, R.data());
  return backward_error(n, traits, norm_inf(host, n, K, alpha), W, Y, R.data());
}

kernel_ridge_solution solve_kernel_ridge(const executor& exec, int64_t n, const double* K, double alpha,
                                         int64_t traits, const double* Y, const kernel_ridge_options& opt) {
  check_kernel_ridge_options(opt);
  PMX_EXPECTS(n > 0 && traits > 0 && K && Y, "kernel ridge: empty system");
  PMX_EXPECTS(alpha >= 0 && std::isfinite(alpha), "alpha must be finite and >= 0");
  const executor host = exec.host();
  kernel_ridge_solution s;
  s.n = n, s.traits = traits;
  s.W.assign(Y, Y + n * traits);
  matrix_buffer<double> R(static_cast<size_t>(n * traits));
  auto finish_fp64 = [&](std::string why) {
    s.used = solve_precision::fp64;
    s.fallback = std::move(why);
    s.W.assign(Y, Y + n * traits);
    solve_fp64(exec, n, K, alpha, traits, s.W.data());
    residual(host, n, K, alpha, traits, s.W.data(), Y, R.data());
    s.backward_error = backward_error(n, traits, norm_inf(host, n, K, alpha), s.W.data(), Y, R.data());
    return s;
  };
  if (opt.precision == solve_precision::fp64) return finish_fp64("");

  s.used = opt.precision;
  // The tile factor of K + αI (the op adds α on the diagonal: K is neither copied nor changed).
  s.map = opt.precision == solve_precision::adaptive
              ? choose_tile_precisions(exec, K, n, n, alpha, opt.tile, opt.tile_accuracy, opt.lowest)
              : tile_precision_map::uniform(n, opt.tile);
  std::unique_ptr<tile_cholesky> factor;
  try {
    factor = std::make_unique<tile_cholesky>(exec, n, K, n, alpha, s.map);
  } catch (const numeric_error& e) {
    return finish_fp64(std::string("the low-precision factorisation failed (") + e.what() + ")");
  }
  const double a_norm_tiles = factor->norm_inf();
  factor->solve(s.W.data(), n, traits);
  matrix_buffer<double> D(static_cast<size_t>(n * traits));
  double previous[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::infinity()};
  for (int step = 0;; ++step) {
    factor->residual(s.W.data(), Y, R.data(), traits);
    s.backward_error = backward_error(n, traits, a_norm_tiles, s.W.data(), Y, R.data());
    if (!std::isfinite(s.backward_error)) return finish_fp64("refinement met a non-finite residual");
    if (s.backward_error <= opt.accuracy) return s;
    if (step >= opt.max_refinements)
      return finish_fp64("refinement did not reach the backward error " + std::to_string(opt.accuracy) + " in " +
                         std::to_string(opt.max_refinements) + " steps (reached " +
                         std::to_string(s.backward_error) + ")");
    if (step >= 3 && s.backward_error > 0.5 * previous[0])
      return finish_fp64("refinement stagnated at backward error " + std::to_string(s.backward_error) +
                         " above " + std::to_string(opt.accuracy) + " (the factor is too inaccurate for this matrix)");
    previous[0] = previous[1], previous[1] = previous[2], previous[2] = s.backward_error;
    std::copy_n(R.data(), n * traits, D.data());
    factor->solve(D.data(), n, traits);
    for (int64_t i = 0; i < n * traits; ++i) s.W[i] += D[i];
    s.refinements = step + 1;
  }
}

prediction_accuracy measure_prediction(const std::vector<double>& observed, const std::vector<double>& predicted) {
  PMX_EXPECTS(observed.size() == predicted.size(), "one prediction per observation");
  prediction_accuracy a;
  double sy = 0, sp = 0;
  for (size_t i = 0; i < observed.size(); ++i)
    if (!std::isnan(observed[i])) ++a.n, sy += observed[i], sp += predicted[i];
  if (a.n == 0) return {0, std::nan(""), std::nan("")};
  const double my = sy / double(a.n), mp = sp / double(a.n);
  double se = 0, cyy = 0, cpp = 0, cyp = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    if (std::isnan(observed[i])) continue;
    const double e = observed[i] - predicted[i], dy = observed[i] - my, dp = predicted[i] - mp;
    se += e * e, cyy += dy * dy, cpp += dp * dp, cyp += dy * dp;
  }
  a.mspe = se / double(a.n);
  a.pearson = (a.n >= 2 && cyy > 0 && cpp > 0) ? cyp / std::sqrt(cyy * cpp) : std::nan("");
  return a;
}

}  // namespace pmx
