// Fisher scoring for the Matérn mixed model's ML/REML estimates (matern_fit.hpp).
#include "panoramix/matern_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/number_text.hpp"
#include "panoramix/error.hpp"
#include "panoramix/matern.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx {
namespace {

using theta = std::array<double, 4>;  // log σ², log ρ, log ν, log σ²_ε
constexpr const char* theta_names[4] = {"sigma2", "rho", "nu", "sigma2_e"};

matern_params params_of(const theta& t) { return {std::exp(t[0]), std::exp(t[1]), std::exp(t[2])}; }

std::string describe(const theta& t) {
  std::string s;
  for (int k = 0; k < 4; ++k) s += std::string(k ? ", " : "") + theta_names[k] + " = " + detail::number_text(std::exp(t[k]), 10);
  return s;
}

// Score, expected information and GLS quantities at θ (see the header for the formulas).
struct scoring_terms {
  std::vector<double> g, F;           // free parameters: m, m × m
  std::vector<double> beta, beta_var;  // β̂ and diag (XᵀV⁻¹X)⁻¹
  std::vector<double> u;               // V⁻¹(y − Xβ̂)
};

scoring_terms score(const executor& exec, const double* h, int64_t n, const double* y, const double* X, int64_t p,
                    const theta& t, const std::vector<int>& free, matern_criterion crit) {
  const size_t nn = static_cast<size_t>(n * n);
  const matern_params prm = params_of(t);
  const double s2e = std::exp(t[3]);
  const bool need_nu = std::find(free.begin(), free.end(), 2) != free.end();
  std::vector<double> C(nn), dR(nn), dN(need_nu ? nn : 0);
  {
    // The op on the upper triangle only (the matrices are symmetric), then mirrored.
    const size_t nu_ = static_cast<size_t>(n * (n + 1) / 2);
    std::vector<double> hu(nu_), Cu(nu_), dRu(nu_), dNu(need_nu ? nu_ : 0);
    size_t q = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i; j < n; ++j) hu[q++] = h[i * n + j];
    matern_covariance(exec, prm, matern_method::quadrature, hu.data(), static_cast<int64_t>(nu_),
                      {.C = Cu.data(), .drho = dRu.data(), .dnu = need_nu ? dNu.data() : nullptr});
    q = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i; j < n; ++j, ++q) {
        C[i * n + j] = C[j * n + i] = Cu[q];
        dR[i * n + j] = dR[j * n + i] = dRu[q];
        if (need_nu) dN[i * n + j] = dN[j * n + i] = dNu[q];
      }
  }
  // W = V⁻¹ from the Cholesky factor of V = C + σ²_ε I (column-major; V is symmetric).
  std::vector<double> W(nn, 0.0);
  {
    std::vector<double> A(C);
    for (int64_t i = 0; i < n; ++i) A[i * n + i] += s2e, W[i * n + i] = 1;
    try {
      cholesky_solve(exec, n, A.data(), n, n, W.data(), n);
    } catch (const numeric_error& e) {
      throw numeric_error("Matérn fit: V = C(D) + sigma2_e I is not positive definite at " + describe(t) + " (" +
                          e.what() + ")");
    }
  }
  scoring_terms T;
  // GLS: VX = V⁻¹X (n × p), XᵀV⁻¹X, β̂; X row-major n × p is Xᵀ column-major (ld p).
  std::vector<double> VX(static_cast<size_t>(n * p)), XVX(static_cast<size_t>(p * p)), Vy(static_cast<size_t>(n));
  dense_gemm(exec, false, false, n, 1, n, 1.0, W.data(), n, y, n, 0.0, Vy.data(), n);
  T.u = Vy;
  if (p > 0) {
    dense_gemm(exec, false, true, n, p, n, 1.0, W.data(), n, X, p, 0.0, VX.data(), n);
    dense_gemm(exec, false, false, p, p, n, 1.0, X, p, VX.data(), n, 0.0, XVX.data(), p);
    // [XᵀV⁻¹y | I] solved at once: β̂ and (XᵀV⁻¹X)⁻¹.
    std::vector<double> rhs(static_cast<size_t>(p * (p + 1)), 0.0);
    // rhs[0..p) = Xᵀ V⁻¹ y = (V⁻¹X)ᵀ y.
    dense_gemm(exec, true, false, p, 1, n, 1.0, VX.data(), n, y, n, 0.0, rhs.data(), p);
    for (int64_t a = 0; a < p; ++a) rhs[(a + 1) * p + a] = 1;
    std::vector<double> A(XVX);
    try {
      cholesky_solve(exec.host(), p, A.data(), p, p + 1, rhs.data(), p);
    } catch (const numeric_error& e) {
      throw numeric_error(std::string("Matérn fit: X'V^-1 X is singular (collinear fixed effects?) (") + e.what() + ")");
    }
    T.beta.assign(rhs.begin(), rhs.begin() + p);
    for (int64_t a = 0; a < p; ++a) T.beta_var.push_back(rhs[(a + 1) * p + a]);
    // u = V⁻¹y − V⁻¹X β̂.
    dense_gemm(exec, false, false, n, 1, p, -1.0, VX.data(), n, T.beta.data(), p, 1.0, T.u.data(), n);
    if (crit == matern_criterion::reml) {
      // W ← P = V⁻¹ − VX (XᵀV⁻¹X)⁻¹ VXᵀ.
      std::vector<double> VXA(static_cast<size_t>(n * p));
      dense_gemm(exec, false, false, n, p, p, 1.0, VX.data(), n, rhs.data() + p, p, 0.0, VXA.data(), n);
      dense_gemm(exec, false, true, n, n, p, -1.0, VXA.data(), n, VX.data(), n, 1.0, W.data(), n);
    }
  }
  // V_k = ∂V/∂θ_k on the log scale: C, ρ ∂C/∂ρ, ν ∂C/∂ν, σ²_ε I; M_k = W V_k.
  const size_t m = free.size();
  std::vector<std::vector<double>> M(m);
  std::vector<double> Vu(static_cast<size_t>(n));
  T.g.assign(m, 0.0);
  for (size_t a = 0; a < m; ++a) {
    const int k = free[a];
    double quad = 0, trace = 0;
    if (k == 3) {
      M[a].resize(nn);
      for (size_t i = 0; i < nn; ++i) M[a][i] = s2e * W[i];
      for (int64_t i = 0; i < n; ++i) quad += s2e * T.u[i] * T.u[i];
    } else {
      std::vector<double>& Vk = k == 0 ? C : k == 1 ? dR : dN;
      const double scale = k == 0 ? 1.0 : k == 1 ? prm.rho : prm.nu;
      if (scale != 1.0)
        for (double& v : Vk) v *= scale;
      M[a].resize(nn);
      dense_gemm(exec, false, false, n, n, n, 1.0, W.data(), n, Vk.data(), n, 0.0, M[a].data(), n);
      dense_gemm(exec, false, false, n, 1, n, 1.0, Vk.data(), n, T.u.data(), n, 0.0, Vu.data(), n);
      for (int64_t i = 0; i < n; ++i) quad += T.u[i] * Vu[i];
    }
    for (int64_t i = 0; i < n; ++i) trace += M[a][i * n + i];
    T.g[a] = -0.5 * trace + 0.5 * quad;
  }
  T.F.assign(m * m, 0.0);
  for (size_t a = 0; a < m; ++a)
    for (size_t b = a; b < m; ++b) {
      double s = 0;
      const double *Ma = M[a].data(), *Mb = M[b].data();
#pragma omp parallel for reduction(+ : s) schedule(static) num_threads(exec.host().threads())
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) s += Ma[j * n + i] * Mb[i * n + j];
      T.F[a * m + b] = T.F[b * m + a] = 0.5 * s;
    }
  for (double v : T.g)
    if (!std::isfinite(v)) throw numeric_error("Matérn fit: the score is not finite at " + describe(t));
  return T;
}

// OLS residual variance of y on X (the start's scale).
double residual_variance(const executor& exec, const double* y, int64_t n, const double* X, int64_t p) {
  std::vector<double> r(y, y + n);
  if (p > 0) {
    std::vector<double> XtX(static_cast<size_t>(p * p)), b(static_cast<size_t>(p));
    dense_gemm(exec, false, true, p, p, n, 1.0, X, p, X, p, 0.0, XtX.data(), p);
    dense_gemm(exec, false, false, p, 1, n, 1.0, X, p, y, n, 0.0, b.data(), p);
    try {
      cholesky_solve(exec.host(), p, XtX.data(), p, 1, b.data(), p);
    } catch (const numeric_error& e) {
      throw numeric_error(std::string("Matérn fit: X'X is singular (collinear fixed effects?) (") + e.what() + ")");
    }
    dense_gemm(exec, true, false, n, 1, p, -1.0, X, p, b.data(), p, 1.0, r.data(), n);
  }
  double ss = 0;
  for (double v : r) ss += v * v;
  return ss / double(n - p);
}

double median_positive_distance(const double* h, int64_t n) {
  std::vector<double> d;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      if (h[i * n + j] > 0) d.push_back(h[i * n + j]);
  if (d.empty()) return 1;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

}  // namespace

const char* matern_criterion_name(matern_criterion c) { return c == matern_criterion::ml ? "ML" : "REML"; }

matern_fit_result fit_matern(const executor& exec, const double* h, int64_t n, const double* y, const double* X,
                             int64_t p, const matern_fit_options& opt, analysis_log* log) {
  PMX_EXPECTS(n > 0 && h && y && p >= 0 && (p == 0 || X) && p < n, "fit operands");
  PMX_EXPECTS(opt.tolerance > 0 && opt.max_iterations >= 0, "tolerance > 0, max_iterations >= 0");
  PMX_EXPECTS(!opt.fixed_nu || (*opt.fixed_nu > 0 && *opt.fixed_nu <= matern_max_nu), "fixed nu in (0, 150]");
  std::vector<int> free = {0, 1, 3};
  if (!opt.fixed_nu) free = {0, 1, 2, 3};
  const size_t m = free.size();

  theta t;
  const double s2 = residual_variance(exec, y, n, X, p);
  if (!(s2 > 0) || !std::isfinite(s2)) throw numeric_error("Matérn fit: y has no residual variance to fit");
  const matern_params start = opt.start.value_or(matern_params{s2 / 2, median_positive_distance(h, n), 1.0});
  t = {std::log(start.sigma2), std::log(start.rho), std::log(opt.fixed_nu.value_or(start.nu)),
       std::log(opt.start_sigma2_e.value_or(s2 / 2))};
  for (double v : t) PMX_EXPECTS(std::isfinite(v), "start values finite and > 0");

  auto log_likelihood = [&](const theta& at) {
    const matern_likelihood L = matern_log_likelihood(exec, h, n, y, X, p, params_of(at), std::exp(at[3]));
    return opt.criterion == matern_criterion::ml ? L.ml : L.reml;
  };
  auto say = [&](const std::string& line) {
    if (log) log->message(line);
  };
  double L = log_likelihood(t);
  say(std::string("Matérn fit (") + matern_criterion_name(opt.criterion) + "): start " + describe(t) +
      ", logL = " + detail::number_text(L, 12));

  matern_fit_result r;
  scoring_terms T;
  std::vector<double> delta(m), B, g_prev;
  theta t_prev = t;
  for (;;) {
    T = score(exec, h, n, y, X, p, t, free, opt.criterion);
    // The curvature: F at the first iterate, then BFGS updates of it from the exact scores (the
    // expected information alone converges only linearly where it differs from the observed);
    // back to the current F where an update would lose positive definiteness.
    if (r.iterations == 0) {
      B = T.F;
    } else {
      std::vector<double> sv(m), yv(m), Bs(m, 0.0);
      double ys = 0, sBs = 0, ss = 0, yy = 0;
      for (size_t a = 0; a < m; ++a) sv[a] = t[free[a]] - t_prev[free[a]], yv[a] = g_prev[a] - T.g[a];
      for (size_t a = 0; a < m; ++a)
        for (size_t b = 0; b < m; ++b) Bs[a] += B[a * m + b] * sv[b];
      for (size_t a = 0; a < m; ++a) ys += yv[a] * sv[a], sBs += sv[a] * Bs[a], ss += sv[a] * sv[a], yy += yv[a] * yv[a];
      if (ys > 1e-10 * std::sqrt(ss * yy) && sBs > 0) {
        for (size_t a = 0; a < m; ++a)
          for (size_t b = 0; b < m; ++b) B[a * m + b] += yv[a] * yv[b] / ys - Bs[a] * Bs[b] / sBs;
      } else {
        B = T.F;
      }
    }
    // Δ = B⁻¹ g (the solve destroys its copy).
    std::vector<double> F(B);
    delta = T.g;
    try {
      cholesky_solve(exec.host(), static_cast<int64_t>(m), F.data(), static_cast<int64_t>(m), 1, delta.data(),
                     static_cast<int64_t>(m));
    } catch (const numeric_error& e) {
      throw numeric_error("Matérn fit: the information matrix is singular at " + describe(t) + " (" + e.what() + ")");
    }
    double step = 0;
    for (double v : delta) step = std::max(step, std::fabs(v));
    if (!std::isfinite(step)) throw numeric_error("Matérn fit: the scoring step is not finite at " + describe(t));
    // Converged: the step of the expected information itself is below the tolerance.
    if (B != T.F) {
      std::vector<double> Fc(T.F), df(T.g);
      cholesky_solve(exec.host(), static_cast<int64_t>(m), Fc.data(), static_cast<int64_t>(m), 1, df.data(),
                     static_cast<int64_t>(m));
      double fstep = 0;
      for (double v : df) fstep = std::max(fstep, std::fabs(v));
      if (fstep < opt.tolerance) step = fstep;
    }
    if (step < opt.tolerance) {
      r.converged = true;
      break;
    }
    if (r.iterations >= opt.max_iterations) break;
    t_prev = t, g_prev = T.g;
    const double cap = std::min(1.0, 1.0 / step);  // at most a factor e per iteration
    // Step halving: the full (capped) step first, halved while logL would drop or V fails.
    bool accepted = false;
    int halvings = 0;
    for (double s = cap; halvings <= 40; s /= 2, ++halvings) {
      theta next = t;
      for (size_t a = 0; a < m; ++a) next[free[a]] += s * delta[a];
      if (std::exp(next[2]) > matern_max_nu) continue;
      double Ln = -std::numeric_limits<double>::infinity();
      try {
        Ln = log_likelihood(next);
      } catch (const numeric_error&) {
        continue;  // V not positive definite there: a shorter step
      }
      // Rounding of logL allows a drop of a few ulps near the optimum.
      if (std::isfinite(Ln) && Ln >= L - 1e-13 * (1 + std::fabs(L))) {
        t = next, L = Ln, accepted = true;
        break;
      }
    }
    ++r.iterations;
    say("iteration " + std::to_string(r.iterations) + ": logL = " + detail::number_text(L, 15) + ", " + describe(t) +
        ", step " + detail::number_text(step, 3) + (halvings ? ", halved " + std::to_string(halvings) + "x" : ""));
    // A variance on its way to 0 (the optimum on the boundary) never meets the tolerance: stop.
    // Likewise ν at the quadrature's limit (the optimum is the Gaussian kernel, ν → ∞).
    const bool boundary = std::exp(t[0]) < 1e-10 * s2 || std::exp(t[3]) < 1e-10 * s2;
    const bool nu_limit = std::exp(t[2]) > 0.999 * matern_max_nu;
    if (!accepted || boundary || nu_limit) {
      if (boundary) say("stopped: a variance fell below 1e-10 times the phenotypic variance (a boundary optimum)");
      if (nu_limit) say("stopped: nu reached the quadrature's limit of 150 (the optimum is at nu -> infinity; fix nu)");
      T = score(exec, h, n, y, X, p, t, free, opt.criterion);
      break;
    }
  }

  r.params = params_of(t);
  r.sigma2_e = std::exp(t[3]);
  r.logL = L;
  r.beta = T.beta;
  for (double v : T.beta_var) r.beta_se.push_back(std::sqrt(v));
  r.u = T.u;
  // SEs: Cov(log θ) = F⁻¹, se(θ_k) = θ_k √(F⁻¹)_kk.
  std::vector<double> Finv(m * m, 0.0), F(T.F);
  for (size_t a = 0; a < m; ++a) Finv[a * m + a] = 1;
  try {
    cholesky_solve(exec.host(), static_cast<int64_t>(m), F.data(), static_cast<int64_t>(m), static_cast<int64_t>(m),
                   Finv.data(), static_cast<int64_t>(m));
  } catch (const numeric_error& e) {
    throw numeric_error("Matérn fit: the information matrix is singular at the estimate (" + std::string(e.what()) + ")");
  }
  r.se.fill(std::numeric_limits<double>::quiet_NaN());
  for (size_t a = 0; a < m; ++a) r.se[free[a]] = std::exp(t[free[a]]) * std::sqrt(Finv[a * m + a]);
  return r;
}

}  // namespace pmx
