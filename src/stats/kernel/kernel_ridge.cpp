// Associate: one factorisation of K + αI for every phenotype, at the asked precision, refined in
// FP64 (kernel_ridge.hpp).
#include "panoramix/kernel_ridge.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/distributed_cholesky.hpp"

namespace pmx {
namespace {

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2e", v);
  return b;
}

double max_abs(const double* x, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
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
  try {
    shifted_cholesky_solve(exec, n, K, n, alpha, t, W, n);  // K stays as it is (host or device memory)
  } catch (const numeric_error& e) {
    throw numeric_error(std::string("K + alpha I is not positive definite (raise --alpha): ") + e.what());
  }
}

// One GMRES-IR correction: D ≈ A⁻¹R by GMRES on the left-preconditioned system M⁻¹A D = M⁻¹R
// (M = L Lᵀ, the low-precision factor), all columns in lockstep so that each Krylov step is one
// FP64 product A·V and one solve for the `t` columns together. Stops when every column's
// preconditioned residual has fallen by `tau` or after `max_steps` steps. Returns the steps.
int gmres_correction(const tile_cholesky& M, int64_t n, int64_t t, const double* R, double* D, double tau,
                     int max_steps) {
  const size_t nt = static_cast<size_t>(n * t);
  std::vector<matrix_buffer<double>> V;
  V.emplace_back(R, R + nt);
  M.solve(V[0].data(), n, t);
  const auto k = static_cast<size_t>(max_steps);
  std::vector<double> beta(t), g(t * (k + 1), 0.0), cs(t * k), sn(t * k), H(t * (k + 1) * k, 0.0);
  auto h = [&](int64_t c, size_t i, size_t j) -> double& { return H[(static_cast<size_t>(c) * (k + 1) + i) * k + j]; };
  for (int64_t c = 0; c < t; ++c) {
    double s2 = 0;
    for (int64_t i = 0; i < n; ++i) s2 += V[0][c * n + i] * V[0][c * n + i];
    beta[c] = std::sqrt(s2);
    g[c * (k + 1)] = beta[c];
    for (int64_t i = 0; i < n; ++i) V[0][c * n + i] = beta[c] > 0 ? V[0][c * n + i] / beta[c] : 0.0;
  }
  const matrix_buffer<double> zero(nt, 0.0);
  matrix_buffer<double> U(nt);
  size_t steps = 0;
  for (size_t j = 0; j < k; ++j) {
    M.residual(V[j].data(), zero.data(), U.data(), t);  // U = −A v_j
    for (double& u : U) u = -u;
    M.solve(U.data(), n, t);
    V.emplace_back(nt);
    bool done = true;
    for (int64_t c = 0; c < t; ++c) {
      double* u = U.data() + c * n;
      for (size_t i = 0; i <= j; ++i) {  // modified Gram–Schmidt
        const double* v = V[i].data() + c * n;
        double d = 0;
        for (int64_t r = 0; r < n; ++r) d += u[r] * v[r];
        h(c, i, j) = d;
        for (int64_t r = 0; r < n; ++r) u[r] -= d * v[r];
      }
      double s2 = 0;
      for (int64_t r = 0; r < n; ++r) s2 += u[r] * u[r];
      h(c, j + 1, j) = std::sqrt(s2);
      double* next = V[j + 1].data() + c * n;
      const double hn = h(c, j + 1, j);
      for (int64_t r = 0; r < n; ++r) next[r] = hn > 0 ? u[r] / hn : 0.0;
      for (size_t i = 0; i < j; ++i) {  // earlier rotations on the new column
        const double a = h(c, i, j), b = h(c, i + 1, j);
        h(c, i, j) = cs[c * k + i] * a + sn[c * k + i] * b;
        h(c, i + 1, j) = -sn[c * k + i] * a + cs[c * k + i] * b;
      }
      const double a = h(c, j, j), b = h(c, j + 1, j), r = std::hypot(a, b);
      cs[c * k + j] = r > 0 ? a / r : 1.0, sn[c * k + j] = r > 0 ? b / r : 0.0;
      h(c, j, j) = r, h(c, j + 1, j) = 0;
      g[c * (k + 1) + j + 1] = -sn[c * k + j] * g[c * (k + 1) + j];
      g[c * (k + 1) + j] = cs[c * k + j] * g[c * (k + 1) + j];
      done = done && (beta[c] == 0 || std::fabs(g[c * (k + 1) + j + 1]) <= tau * beta[c]);
    }
    steps = j + 1;
    if (done) break;
  }
  // y = H⁻¹ g (upper triangular, steps × steps) per column; D = V y.
  std::fill(D, D + nt, 0.0);
  for (int64_t c = 0; c < t; ++c) {
    std::vector<double> y(steps);
    for (size_t i = steps; i-- > 0;) {
      double v = g[c * (k + 1) + i];
      for (size_t l = i + 1; l < steps; ++l) v -= h(c, i, l) * y[l];
      y[i] = h(c, i, i) != 0 ? v / h(c, i, i) : 0.0;
    }
    for (size_t i = 0; i < steps; ++i)
      for (int64_t r = 0; r < n; ++r) D[c * n + r] += y[i] * V[i][c * n + r];
  }
  return static_cast<int>(steps);
}

}  // namespace

const char* refinement_name(refinement_method m) {
  switch (m) {
    case refinement_method::automatic: return "auto";
    case refinement_method::classical: return "classical";
    case refinement_method::gmres: return "gmres";
  }
  return "?";
}

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
  if (!(o.gmres_tolerance > 0 && o.gmres_tolerance < 1) || o.gmres_max_steps < 1)
    throw input_error("GMRES: tolerance in (0, 1) and at least 1 step");
}

double kernel_ridge_backward_error(const executor& exec, int64_t n, const double* K, double alpha, int64_t traits,
                                   const double* W, const double* Y) {
  matrix_buffer<double> R(static_cast<size_t>(n * traits));
  shifted_residual(exec, n, K, n, alpha, traits, W, Y, R.data());
  return backward_error(n, traits, shifted_norm_inf(exec, n, K, n, alpha), W, Y, R.data());
}

namespace {

// The system (K + αI) W = Y as the solver meets it: K in one process, or spread over ranks.
struct ridge_system {
  std::function<void(double* W)> solve_fp64;  // W ← (K + αI)⁻¹ W, in FP64
  std::function<void(const double* W, const double* Y, double* R)> residual_fp64;
  std::function<double()> norm_inf;  // ‖K + αI‖∞
  std::function<tile_precision_map()> precision_map;
  std::function<std::unique_ptr<tile_cholesky>(const tile_precision_map&)> factor;
  std::string no_low_precision;  // non-empty: the low precisions cannot run here (why)
};

kernel_ridge_solution solve_system(int64_t n, int64_t traits, const double* Y, const kernel_ridge_options& opt,
                                   const ridge_system& sys) {
  kernel_ridge_solution s;
  s.n = n, s.traits = traits;
  s.W.assign(Y, Y + n * traits);
  matrix_buffer<double> R(static_cast<size_t>(n * traits));
  std::unique_ptr<tile_cholesky> factor;
  // FP64 solve and its backward error, K read where it lives (host, or device on cuda).
  auto clock = std::chrono::steady_clock::now();
  auto lap = [&](const std::string& name) {  // time since the last lap, added to `name`
    const auto now = std::chrono::steady_clock::now();
    const double sec = std::chrono::duration<double>(now - clock).count();
    clock = now;
    for (auto& [n2, t] : s.stage_seconds)
      if (n2 == name) return void(t += sec);
    s.stage_seconds.emplace_back(name, sec);
  };
  auto finish_fp64 = [&](std::string why) {
    lap(s.stage_seconds.empty() ? "setup" : "low precision, discarded");
    s.used = solve_precision::fp64;
    s.fallback = std::move(why);
    s.W.assign(Y, Y + n * traits);
    sys.solve_fp64(s.W.data());
    sys.residual_fp64(s.W.data(), Y, R.data());
    s.backward_error = backward_error(n, traits, sys.norm_inf(), s.W.data(), Y, R.data());
    lap("fp64 Cholesky");
    return s;
  };
  if (opt.precision == solve_precision::fp64) return finish_fp64("");
  if (!sys.no_low_precision.empty()) return finish_fp64(sys.no_low_precision);

  s.used = opt.precision;
  // The tile factor of K + αI (the op adds α on the diagonal: K is neither copied nor changed).
  s.map = sys.precision_map();
  lap("precision map");
  try {
    factor = sys.factor(s.map);
    for (const auto& [name, sec] : factor->stage_seconds()) s.stage_seconds.emplace_back("factor: " + name, sec);
    clock = std::chrono::steady_clock::now();
  } catch (const numeric_error& e) {
    return finish_fp64(std::string("the low-precision factorisation failed (") + e.what() + ")");
  }
  const double a_norm_tiles = factor->norm_inf();
  factor->solve(s.W.data(), n, traits);
  matrix_buffer<double> D(static_cast<size_t>(n * traits));
  // Classical refinement while each step gains a factor 10 at least; beyond, GMRES-IR steps (the
  // factor as a preconditioner), which converge for far larger κ(A)·ε of the factor.
  bool gmres = opt.refinement == refinement_method::gmres;
  double last = std::numeric_limits<double>::infinity();
  int slow = 0;
  for (int step = 0;; ++step) {
    factor->residual(s.W.data(), Y, R.data(), traits);
    s.backward_error = backward_error(n, traits, a_norm_tiles, s.W.data(), Y, R.data());
    if (!std::isfinite(s.backward_error)) return finish_fp64("refinement met a non-finite residual");
    if (s.backward_error <= opt.accuracy) {
      lap("refinement");
      factor.reset();
      lap("release the factor");
      return s;
    }
    if (step >= opt.max_refinements)
      return finish_fp64("refinement did not reach the backward error " + sci(opt.accuracy) + " in " +
                         std::to_string(opt.max_refinements) + " steps (reached " + sci(s.backward_error) + ")");
    if (step > 0 && s.backward_error > 0.1 * last) {
      if (!gmres && opt.refinement == refinement_method::automatic) {
        gmres = true;
      } else if (s.backward_error > 0.5 * last && ++slow >= 2) {
        return finish_fp64("refinement stagnated at backward error " + sci(s.backward_error) + " above " +
                           sci(opt.accuracy) + " (the factor is too inaccurate for this matrix)");
      }
    }
    last = s.backward_error;
    if (gmres) {
      s.gmres_steps += gmres_correction(*factor, n, traits, R.data(), D.data(), opt.gmres_tolerance, opt.gmres_max_steps);
    } else {
      std::copy_n(R.data(), n * traits, D.data());
      factor->solve(D.data(), n, traits);
    }
    for (int64_t i = 0; i < n * traits; ++i) s.W[i] += D[i];
    s.refinements = step + 1;
  }
}

}  // namespace

kernel_ridge_solution solve_kernel_ridge(const executor& exec, int64_t n, const double* K, double alpha,
                                         int64_t traits, const double* Y, const kernel_ridge_options& opt) {
  check_kernel_ridge_options(opt);
  PMX_EXPECTS(n > 0 && traits > 0 && K && Y, "kernel ridge: empty system");
  PMX_EXPECTS(alpha >= 0 && std::isfinite(alpha), "alpha must be finite and >= 0");
  ridge_system sys;
  sys.solve_fp64 = [&](double* W) { solve_fp64(exec, n, K, alpha, traits, W); };
  sys.residual_fp64 = [&](const double* W, const double* Yc, double* R) {
    shifted_residual(exec, n, K, n, alpha, traits, W, Yc, R);
  };
  sys.norm_inf = [&] { return shifted_norm_inf(exec, n, K, n, alpha); };
  sys.precision_map = [&] {
    return opt.precision == solve_precision::adaptive
               ? choose_tile_precisions(exec, K, n, n, alpha, opt.tile, opt.tile_accuracy, opt.lowest)
               : tile_precision_map::uniform(n, opt.tile);
  };
  sys.factor = [&](const tile_precision_map& map) { return std::make_unique<tile_cholesky>(exec, n, K, n, alpha, map); };
  return solve_system(n, traits, Y, opt, sys);
}

kernel_ridge_solution solve_kernel_ridge(const executor& exec, over_ranks_t, int64_t n, const double* K, double alpha,
                                         int64_t traits, const double* Y, const kernel_ridge_options& opt) {
  const communicator& comm = exec.comm();
  if (!comm.distributed()) return solve_kernel_ridge(exec, n, K, alpha, traits, Y, opt);
  check_kernel_ridge_options(opt);
  const int64_t width = tile_cyclic_width(n, opt.tile, comm.rank(), comm.size());
  PMX_EXPECTS(n > 0 && traits > 0 && (K || width == 0) && Y, "kernel ridge: empty system");
  PMX_EXPECTS(alpha >= 0 && std::isfinite(alpha), "alpha must be finite and >= 0");
  // This rank's global column of its local column lc (tile-cyclic layout).
  auto global = [&](int64_t lc) { return ((lc / opt.tile) * comm.size() + comm.rank()) * opt.tile + lc % opt.tile; };
  // The FP64 route on the CPUs (ScaLAPACK): this rank's columns on the host, read by the residuals
  // and copied for each factorisation (which destroys its input).
  executor host(backend::cpu, exec.threads());
  host.set_communicator(comm);
  std::vector<double> Kh;
  auto host_columns = [&]() -> const std::vector<double>& {
    if (Kh.empty() && width > 0) {
      Kh.resize(static_cast<size_t>(n * width));
      if (detail::points_to_device(K)) detail::executor_to_host(Kh.data(), K, Kh.size() * sizeof(double), true);
      else std::copy_n(K, Kh.size(), Kh.data());
    }
    return Kh;
  };
  ridge_system sys;
  sys.solve_fp64 = [&](double* W) {
    std::vector<double> A = host_columns();
    for (int64_t lc = 0; lc < width; ++lc) A[static_cast<size_t>(lc * n + global(lc))] += alpha;
    try {
      distributed_cholesky_solve(host, n, A.data(), traits, W, 0, opt.tile);
    } catch (const numeric_error& e) {
      throw numeric_error(std::string("K + alpha I is not positive definite (raise --alpha): ") + e.what());
    }
  };
  sys.residual_fp64 = [&](const double* W, const double* Yc, double* R) {
    std::fill_n(R, n * traits, 0.0);
    if (width > 0) {  // this rank's rows of K W: its columns, transposed
      std::vector<double> P(static_cast<size_t>(width * traits));
      dense_gemm(host, true, false, width, traits, n, 1.0, host_columns().data(), n, W, n, 0.0, P.data(), width);
      for (int64_t c = 0; c < traits; ++c)
        for (int64_t lc = 0; lc < width; ++lc) {
          const int64_t g = c * n + global(lc);
          R[g] = Yc[g] - P[static_cast<size_t>(c * width + lc)] - alpha * W[g];
        }
    }
    comm.sum(R, n * traits);  // each entry from one rank: exact
  };
  sys.norm_inf = [&] {
    double worst = 0;
    const std::vector<double>& A = host_columns();
    for (int64_t lc = 0; lc < width; ++lc) {
      double sum = 0;
      for (int64_t r = 0; r < n; ++r) sum += std::fabs(A[static_cast<size_t>(lc * n + r)] + (r == global(lc) ? alpha : 0.0));
      worst = std::max(worst, sum);
    }
    comm.max(&worst, 1);
    return worst;
  };
  sys.precision_map = [&] {
    return opt.precision == solve_precision::adaptive
               ? choose_tile_precisions(exec, over_ranks, K, n, n, alpha, opt.tile, opt.tile_accuracy, opt.lowest)
               : tile_precision_map::uniform(n, opt.tile);
  };
  sys.factor = [&](const tile_precision_map& map) {
    return std::make_unique<tile_cholesky>(exec, over_ranks, n, K, n, alpha, map);
  };
  if (exec.kind() != backend::cuda)
    sys.no_low_precision = std::string("the ") + solve_precision_name(opt.precision) +
                           " tile Cholesky over ranks runs on GPUs; solved in FP64 over the ranks' CPUs (ScaLAPACK)";
  return solve_system(n, traits, Y, opt, sys);
}

prediction_accuracy measure_prediction(const std::vector<double>& observed, const std::vector<double>& predicted) {
  PMX_EXPECTS(observed.size() == predicted.size(), "one prediction per observation");
  prediction_accuracy a;
  double sy = 0, sp = 0;
  for (size_t i = 0; i < observed.size(); ++i)
    if (!std::isnan(observed[i]) && !std::isnan(predicted[i])) ++a.n, sy += observed[i], sp += predicted[i];
  if (a.n == 0) return {0, std::nan(""), std::nan("")};
  const double my = sy / double(a.n), mp = sp / double(a.n);
  double se = 0, cyy = 0, cpp = 0, cyp = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    if (std::isnan(observed[i]) || std::isnan(predicted[i])) continue;
    const double e = observed[i] - predicted[i], dy = observed[i] - my, dp = predicted[i] - mp;
    se += e * e, cyy += dy * dy, cpp += dp * dp, cyp += dy * dp;
  }
  a.mspe = se / double(a.n);
  a.pearson = (a.n >= 2 && cyy > 0 && cpp > 0) ? cyp / std::sqrt(cyy * cpp) : std::nan("");
  return a;
}

}  // namespace pmx
