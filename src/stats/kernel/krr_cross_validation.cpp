// K-fold cross-validation of KRR over (γ, α) (krr_cross_validation.hpp).
#include "panoramix/krr_cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/ops/tile_cholesky.hpp"
#include "stats/kernel/krr_gram_rows.hpp"

namespace pmx {

void check_krr_cv_options(const krr_cv_options& o, kernel_type type, int64_t n) {
  if (o.folds < 2) throw input_error("--cv needs at least 2 folds (got " + std::to_string(o.folds) + ")");
  if (o.folds > n)
    throw input_error("--cv " + std::to_string(o.folds) + " folds for " + std::to_string(n) + " fitted samples");
  if (o.alpha_grid.empty()) throw input_error("--cv needs --alpha-grid (or --alpha)");
  for (double a : o.alpha_grid)
    if (!(a >= 0 && std::isfinite(a))) throw input_error("--alpha-grid: every alpha must be finite and >= 0");
  if (type == kernel_type::gaussian) {
    if (o.gamma_grid.empty()) throw input_error("--cv with the Gaussian kernel needs --gamma-grid (or --gamma)");
    for (double g : o.gamma_grid)
      if (!(g > 0 && std::isfinite(g))) throw input_error("--gamma-grid: every gamma must be positive and finite");
  }
}

krr_cv_result cross_validate_krr(const executor& exec, const genotype_gram& g, const double* covariates,
                                 int64_t n_covariates, std::span<const int64_t> fitted, const double* Y, int64_t traits,
                                 const krr_cv_options& opt, const kernel_ridge_options& solve, analysis_log& log) {
  const int64_t n = static_cast<int64_t>(fitted.size());
  check_krr_cv_options(opt, g.type, n);
  krr_cv_result r;
  // Folds: a seeded shuffle dealt round-robin (sizes differ by at most one).
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(opt.seed);
  std::shuffle(order.begin(), order.end(), rng);
  r.fold.assign(static_cast<size_t>(n), 0);
  for (int64_t k = 0; k < n; ++k) r.fold[order[k]] = static_cast<int>(k % opt.folds);
  const std::vector<double> gammas = g.type == kernel_type::gaussian ? opt.gamma_grid : std::vector<double>{0.0};
  for (double gamma : gammas)
    for (double alpha : opt.alpha_grid) r.grid.push_back({gamma, alpha, {}});
  // Held-out predictions of every grid point, pooled over folds: pred[point][trait][sample].
  std::vector<std::vector<double>> pred(r.grid.size(), std::vector<double>(static_cast<size_t>(n * traits)));
  const int64_t n_alpha = static_cast<int64_t>(opt.alpha_grid.size());
  for (size_t gi = 0; gi < gammas.size(); ++gi)
    for (int f = 0; f < opt.folds; ++f) {
      std::vector<int64_t> train, held, train_at, held_at;  // gram indices, and positions among `fitted`
      for (int64_t k = 0; k < n; ++k) {
        (r.fold[k] == f ? held : train).push_back(fitted[k]);
        (r.fold[k] == f ? held_at : train_at).push_back(k);
      }
      const int64_t nt = static_cast<int64_t>(train.size()), nh = static_cast<int64_t>(held.size());
      // K (over ranks: this rank's tile-cyclic columns, solved over the ranks).
      const matrix_buffer<double> K = detail::tile_cyclic_kernel(exec, g, gammas[gi], covariates, n_covariates, train, solve.tile);
      matrix_buffer<double> Yt(static_cast<size_t>(nt * traits));
      std::vector<double> mean(static_cast<size_t>(traits), 0.0);
      for (int64_t c = 0; c < traits; ++c) {
        for (int64_t k = 0; k < nt; ++k) mean[c] += Y[c * n + train_at[k]];
        mean[c] /= double(nt);
        for (int64_t k = 0; k < nt; ++k) Yt[c * nt + k] = Y[c * n + train_at[k]] - mean[c];
      }
      for (int64_t ai = 0; ai < n_alpha; ++ai) {
        const kernel_ridge_solution s =
            solve_kernel_ridge(exec, over_ranks, nt, K.data(), opt.alpha_grid[ai], traits, Yt.data(), solve);
        matrix_buffer<double> P(static_cast<size_t>(nh * traits));
        detail::predict_from_gram(exec, g, gammas[gi], covariates, n_covariates, held, train, s.W.data(), traits, P.data());
        auto& out = pred[gi * n_alpha + ai];
        for (int64_t c = 0; c < traits; ++c)
          for (int64_t k = 0; k < nh; ++k) out[c * n + held_at[k]] = P[c * nh + k] + mean[c];
      }
      report(&log, "cross-validation", double(gi * opt.folds + f + 1) / double(gammas.size() * opt.folds));
    }
  r.best.assign(static_cast<size_t>(traits), 0);
  for (size_t p = 0; p < r.grid.size(); ++p)
    for (int64_t c = 0; c < traits; ++c) {
      const std::vector<double> obs(Y + c * n, Y + (c + 1) * n), got(pred[p].begin() + c * n, pred[p].begin() + (c + 1) * n);
      r.grid[p].accuracy.push_back(measure_prediction(obs, got));
    }
  for (int64_t c = 0; c < traits; ++c)
    for (size_t p = 1; p < r.grid.size(); ++p)
      if (r.grid[p].accuracy[c].mspe < r.grid[r.best[c]].accuracy[c].mspe) r.best[c] = static_cast<int64_t>(p);
  return r;
}

}  // namespace pmx
