// gBLUP from the variance components: GLS β̂, BLUP ĝ for every sample of G, PEV.
#include "panoramix/gblup.hpp"


#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/stage_clock.hpp"
#include "panoramix/error.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/dense_linalg.hpp"

namespace pmx {
namespace {

using detail::stage_clock;

// PEV_i = σ²_g [G_ii − h²(G_{i,f} H⁻¹ G_{f,i} − uᵢᵀ M⁻¹ uᵢ)], uᵢ = Xᵀ H⁻¹ G_{f,i}, M⁻¹ =
// cov(β̂)/σ². Columns of G_{f,all} in blocks of at most ~1 GiB of right-hand sides.
void prediction_error_variances(const executor& exec, const gblup_data& d, const std::vector<double>& A,
                                const h2_evaluator& ev, gblup_result& res) {
  const int64_t n = d.n, nf = static_cast<int64_t>(d.fitted.size());
  const int64_t p = static_cast<int64_t>(res.beta.size());
  const double h2 = res.vc.h2;
  res.pev.assign(n, 0.0);
  if (h2 == 0) return;
  std::vector<double> Minv(p * p);
  for (int64_t i = 0; i < p * p; ++i) Minv[i] = res.vc.at.cov_beta[i] / res.vc.at.sigma2;
  const int64_t block = std::clamp<int64_t>((int64_t{1} << 27) / std::max<int64_t>(nf, 1), 1, n);
  std::vector<double> B, U(p * block);
  for (int64_t c0 = 0; c0 < n; c0 += block) {
    const int64_t m = std::min(block, n - c0);
    B.assign(nf * m, 0.0);
#pragma omp parallel for schedule(static) num_threads(std::max(1, exec.threads()))
    for (int64_t c = 0; c < m; ++c)
      for (int64_t k = 0; k < nf; ++k) B[c * nf + k] = d.G[(c0 + c) * n + d.fitted[k]];
    std::vector<double> Gcols(B);
    ev.solve(h2, m, B.data(), nf);
    // U = Xᵀ (H⁻¹ G_{f,cols}) (p × m)
    dense_gemm(exec.host(), true, false, p, m, nf, 1.0, A.data(), nf, B.data(), nf,
                0.0, U.data(), p);
#pragma omp parallel for schedule(static) num_threads(std::max(1, exec.threads()))
    for (int64_t c = 0; c < m; ++c) {
      long double t1 = 0;
      for (int64_t k = 0; k < nf; ++k)
        t1 += static_cast<long double>(Gcols[c * nf + k]) * B[c * nf + k];
      double t2 = 0;
      for (int64_t x = 0; x < p; ++x)
        for (int64_t y = 0; y < p; ++y) t2 += U[c * p + x] * Minv[x * p + y] * U[c * p + y];
      const int64_t i = c0 + c;
      res.pev[i] = res.vc.sigma2_g * (d.G[i * n + i] - h2 * (static_cast<double>(t1) - t2));
    }
  }
}

}  // namespace

gblup_result fit_gblup(const executor& exec, const gblup_data& d, const gblup_options& opt) {
  const int64_t n = d.n, nf = static_cast<int64_t>(d.fitted.size());
  const int64_t p = 1 + static_cast<int64_t>(d.covariates.size()), q = p + 1;
  if (nf == 0) throw input_error("no sample has a phenotype (and every covariate) to fit");
  if (nf < p + 2)
    throw input_error(std::to_string(nf) + " phenotyped samples are too few for " +
                      std::to_string(p) + " fixed effects and a variance component");
  PMX_EXPECTS(static_cast<int64_t>(d.y.size()) == nf, "one phenotype per fitted sample");
  // Callers of the library (not only the command line, whose readers refuse them) can pass NaN or
  // infinite data; every later step would carry it into the results or the optimiser.
  for (int64_t i = 0; i < nf; ++i)
    if (!std::isfinite(d.y[i]))
      throw input_error("phenotype of fitted sample " + std::to_string(i + 1) + " is not finite");
  for (size_t c = 0; c < d.covariates.size(); ++c)
    for (int64_t i = 0; i < nf; ++i)
      if (!std::isfinite(d.covariates[c][i]))
        throw input_error("covariate " + std::to_string(c + 1) + " of fitted sample " + std::to_string(i + 1) +
                          " is not finite");
  // A = [1 covariates y − ȳ] (nf × q, column-major). Centring y changes only β̂₀ and keeps
  // yᵀH⁻¹y − (XᵀH⁻¹y)ᵀβ̂ free of cancellation when the mean is large.
  long double sum = 0;
  for (double v : d.y) sum += v;
  const double ybar = static_cast<double>(sum / nf);
  std::vector<double> A(nf * q);
  for (int64_t i = 0; i < nf; ++i) {
    A[i] = 1.0;
    for (int64_t c = 1; c < p; ++c) A[c * nf + i] = d.covariates[c - 1][i];
    A[p * nf + i] = d.y[i] - ybar;
  }
  gblup_result res;
  stage_clock clock(res.stage_seconds);
  // G_ff: G itself when every sample is fitted (no n² copy: 20 GB at n = 50,000).
  const bool all_fitted = nf == n;
  matrix_buffer<double> Gff;
  std::unique_ptr<h2_evaluator> ev;
  clock.time("evaluator set-up", [&] {
    if (!all_fitted) {
      Gff.resize(static_cast<size_t>(nf * nf));
#pragma omp parallel for schedule(static) num_threads(std::max(1, exec.threads()))
      for (int64_t a = 0; a < nf; ++a)
        for (int64_t b = 0; b < nf; ++b) Gff[a * nf + b] = d.G[d.fitted[a] * n + d.fitted[b]];
    }
    const double* G_fit = all_fitted ? d.G : Gff.data();
    if (opt.evaluator == h2_evaluator_kind::eigen)
      ev = make_eigen_evaluator(exec, nf, G_fit, q, A.data());
    else if (all_fitted && d.resident)
      ev = make_cholesky_evaluator(d.resident, q, A.data());
    else
      ev = make_cholesky_evaluator(exec, nf, G_fit, q, A.data());
  });
  res.evaluator = ev->name();
  clock.time(opt.h2 ? "fit at the given h2" : "REML", [&] {
    res.vc = opt.h2 ? fit_known_h2(*ev, *opt.h2) : fit_reml(*ev, opt.reml);
  });
  const double h2 = res.vc.h2;
  res.fixed_names.push_back("intercept");
  for (const auto& s : d.covariate_names) res.fixed_names.push_back(s);
  res.beta = res.vc.at.beta;
  for (int64_t j = 0; j < p; ++j) res.se_beta.push_back(std::sqrt(res.vc.at.cov_beta[j * p + j]));
  // r = y − Xβ̂ (centred y, centred β̂₀), a = H⁻¹ r, ĝ_all = h² G_{all,f} a.
  std::vector<double> a(nf);
  for (int64_t i = 0; i < nf; ++i) {
    double s = A[p * nf + i];
    for (int64_t j = 0; j < p; ++j) s -= A[j * nf + i] * res.beta[j];
    a[i] = s;
  }
  res.beta[0] += ybar;
  clock.time("BLUP", [&] {
    ev->solve(h2, 1, a.data(), nf);
    // ĝ = h² G ã, ã = α on the fitted samples and 0 elsewhere: one product with the whole G (on
    // the device when G is resident there, else BLAS on the host).
    std::vector<double> a_all(static_cast<size_t>(n), 0.0);
    for (int64_t k = 0; k < nf; ++k) a_all[d.fitted[k]] = a[k];
    res.gebv.assign(n, 0.0);
    if (d.resident) {
      shifted_multiply(*d.resident, h2, 0.0, 1, a_all.data(), n, res.gebv.data(), n);
    } else {
      const shifted_operand G_host(exec.host(), n, d.G, n);
      shifted_multiply(G_host, h2, 0.0, 1, a_all.data(), n, res.gebv.data(), n);
    }
  });
  if (opt.pev) clock.time("PEV", [&] { prediction_error_variances(exec, d, A, *ev, res); });
  return res;
}

}  // namespace pmx
