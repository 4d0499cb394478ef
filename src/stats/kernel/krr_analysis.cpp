// The KRR analysis from files to results (krr_analysis.hpp).
#include "panoramix/krr_analysis.hpp"

#include <cmath>
#include <memory>

#include "core/number_text.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/concatenated_samples.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/krr_cross_validation.hpp"
#include "panoramix/phenotypes.hpp"
#include "stats/kernel/krr_gram_rows.hpp"
#include "stats/kernel/resident_krr.hpp"
#include "stats/kernel/training_records.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 6, "NA"); }

// Shared with rr (stats/kernel/training_records.hpp).
using detail::matched_columns;
using detail::match_columns;


// --cv's options with a missing grid taken from the single --gamma / --alpha.
krr_cv_options cv_options(const krr_analysis_options& o) {
  krr_cv_options c = o.cv;
  if (c.gamma_grid.empty() && o.gamma > 0) c.gamma_grid = {o.gamma};
  if (c.alpha_grid.empty() && !std::isnan(o.alpha)) c.alpha_grid = {o.alpha};
  return c;
}

// Why K cannot stay in device memory for this run (empty: it can; resident_krr.hpp).
std::string resident_refusal(const krr_analysis_options& o, const executor& exec, int64_t train_missing,
                             const genotype_source* test) {
  if (o.kernel != kernel_type::gaussian) return "the device path builds the Gaussian kernel only";
  if (o.cv.folds != 0) return "--cv cuts every fold's kernel from one host Gram matrix";
  return detail::resident_krr_refusal(exec, o.solve, train_missing, test);
}

// Build, Associate and Predict with K in device memory, results into r as the host path leaves them.
void run_resident(const krr_analysis_options& o, const executor& exec, const genotype_source& train,
                  const genotype_source* test, const std::vector<double>& cov, int64_t nc,
                  const detail::training_records& tr, krr_analysis& r, analysis_log& log) {
  const int64_t t = tr.traits();
  detail::resident_krr_problem p;
  p.train = &train, p.fitted = tr.fitted, p.test = test;
  p.gamma = o.gamma, p.alpha = o.alpha;
  p.covariates = nc ? cov.data() : nullptr, p.nc = nc;
  p.Y = tr.Y.data(), p.traits = t, p.solve = o.solve;
  r.gamma.assign(static_cast<size_t>(t), o.gamma), r.alpha.assign(static_cast<size_t>(t), o.alpha);
  log.begin("kernel on the device, associate, predict");
  detail::resident_krr_result res = detail::run_resident_krr(exec, p, log);
  log.end();
  for (const auto& [name, seconds] : res.build_seconds) log.substage("build: " + name, seconds);
  for (const auto& [name, seconds] : res.solution.stage_seconds) log.substage("associate: " + name, seconds);
  for (const auto& [name, seconds] : res.predict_seconds) log.substage("predict: " + name, seconds);
  if (!res.solution.fallback.empty())
    log.message("Warning: " + std::string(solve_precision_name(o.solve.precision)) + " solve fell back to fp64: " +
                res.solution.fallback);
  log.message("(K + alpha I) W = Y, gamma " + num(o.gamma) + ", alpha " + num(o.alpha) + ", " + std::to_string(t) +
              " phenotype(s): " + detail::describe_solve(res.solution, o.solve) + "; backward error " +
              num(res.solution.backward_error));
  r.solution = std::move(res.solution);
  r.predictions = std::move(res.predictions);
  const int64_t n_test = test ? test->n_samples() : 0;
  for (int64_t c = 0; c < t; ++c)
    for (int64_t i = 0; i < n_test; ++i) r.predictions[c * n_test + i] += r.trait_means[c];
}

}  // namespace

void check_krr_options(const krr_analysis_options& o) {
  if (o.pheno.empty()) throw input_error("--pheno FILE is required");
  if (o.pheno_names.empty() == !o.all_pheno)
    throw input_error("give the phenotypes with exactly one of --pheno-name A,B,... and --all-pheno");
  const bool cv = o.cv.folds != 0;
  const bool gamma_needed = o.kernel == kernel_type::gaussian && (!cv || o.cv.gamma_grid.empty());
  if ((gamma_needed || o.gamma != 0) && !(o.gamma > 0 && std::isfinite(o.gamma)))
    throw input_error("--gamma must be positive and finite for the Gaussian kernel (got " + num(o.gamma) +
                      "; or give --cv with --gamma-grid)");
  const bool alpha_needed = !cv || o.cv.alpha_grid.empty();
  if (alpha_needed && std::isnan(o.alpha))
    throw input_error("--alpha is required (or --cv with --alpha-grid)");
  if (!std::isnan(o.alpha) && !(o.alpha >= 0 && std::isfinite(o.alpha)))
    throw input_error("--alpha must be finite and not negative (got " + num(o.alpha) + ")");
  if (cv) check_krr_cv_options(cv_options(o), o.kernel, o.cv.folds);
  if (o.kernel == kernel_type::ibs && !o.covar.empty())
    throw input_error("--covar applies to the Gaussian kernel only (its distances); the IBS kernel takes none");
  if (o.covar.empty() && !o.covar_names.empty()) throw input_error("--covar-name needs --covar FILE");
  check_kernel_ridge_options(o.solve);
}

krr_analysis run_krr_analysis(const krr_analysis_options& opt, const analysis_context& ctx) {
  null_analysis_log quiet;
  analysis_log& log = ctx.log ? *ctx.log : quiet;
  check_krr_options(opt);
  if (!ctx.make_executor || !ctx.open_genotypes) throw logic_error("run_krr_analysis: incomplete context");
  const executor exec = ctx.make_executor();
  // Over MPI ranks: the Gram matrix split by rows, K's tile-cyclic columns, the solve over ranks.
  const bool split = exec.comm().distributed();
  if (split && opt.kernel_on == kernel_residence::device)
    throw input_error("--kernel-on device: over MPI ranks each rank builds its kernel rows on the host");
  const std::unique_ptr<genotype_source> train = ctx.open_genotypes();
  const int64_t n_train = train->n_samples(), m = train->n_variants();
  if (m == 0) throw input_error(opt.bfile + ": no autosomal variants left for the kernel");
  krr_analysis r;
  r.n_variants = m;

  // ---- phenotypes and covariates of the training samples (shared with rr: training_records.hpp)
  const std::vector<std::string> fid = detail::sample_ids(*train, true), iid = detail::sample_ids(*train, false);
  detail::training_records tr = detail::read_training_records(
      {opt.pheno, opt.pheno_names, opt.all_pheno, opt.covar, opt.covar_names}, fid, iid, log);
  const phenotype_table& pt = tr.pheno;
  const matched_columns& ph = tr.phenotypes;
  const matched_columns& cv = tr.covariates;
  const std::unique_ptr<phenotype_table>& ct = tr.covar;
  const std::vector<int64_t>& fitted = tr.fitted;
  const int64_t n = tr.n(), t = tr.traits();
  r.traits = ph.names;
  for (int64_t i : fitted) r.train_fid.push_back(fid[i]), r.train_iid.push_back(iid[i]);
  matrix_buffer<double>& Y = tr.Y;
  r.trait_means = tr.means;

  // ---- TEST and the genotypes of the one Gram matrix
  std::unique_ptr<genotype_source> test;
  std::unique_ptr<concatenated_samples> both;
  if (!opt.predict.empty()) {
    log.begin("read TEST");
    test = detail::open_test_genotypes(opt.predict, opt.open_predict, *train);
    log.end();
    log.message("--predict " + opt.predict + ": " + std::to_string(test->n_samples()) + " samples on the " +
                std::to_string(m) + " training variants");
    both = std::make_unique<concatenated_samples>(*train, *test);
    for (int64_t i = 0; i < test->n_samples(); ++i)
      r.test_fid.push_back(test->sample(i).fid), r.test_iid.push_back(test->sample(i).iid);
  }
  const genotype_source& all = both ? static_cast<const genotype_source&>(*both) : *train;
  const int64_t n_all = all.n_samples(), n_test = n_all - n_train;

  // ---- standardised covariates over every sample of the Gram matrix (NaN where missing)
  const int64_t nc = static_cast<int64_t>(cv.values.size());
  std::vector<double> cov(static_cast<size_t>(n_all * nc), std::nan(""));
  if (nc > 0) {
    std::vector<std::vector<double>> test_cov;
    if (test) test_cov = match_columns(*ct, opt.covar_names, opt.covar_names.empty(), "--covar", r.test_fid, r.test_iid).values;
    const detail::covariate_scaling sc = detail::scale_covariates(tr, opt.covar);
    for (int64_t k = 0; k < nc; ++k) {
      const double mean = sc.mean[k], sd = sc.sd[k];
      for (int64_t i = 0; i < n_train; ++i) cov[i * nc + k] = (cv.values[k][i] - mean) / sd;
      for (int64_t i = 0; i < n_test; ++i) cov[(n_train + i) * nc + k] = (test_cov[k][i] - mean) / sd;
    }
    log.message("--covar " + opt.covar + ": " + std::to_string(nc) + " covariate(s), standardised on the fitted samples");
  }

  // ---- Build
  log.begin("frequencies");
  frequency_options fo;
  fo.nonfounders = true;
  fo.chromosomes = opt.chromosomes;
  const allele_frequencies af = compute_allele_frequencies(exec, *train, fo, &log);
  std::vector<double> p(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) p[j] = grm_frequency(af.a1[j]);
  log.end();
  if (opt.kernel_on != kernel_residence::host && !split) {
    const std::string why = resident_refusal(opt, exec, af.total_missing(), test.get());
    if (why.empty()) {
      run_resident(opt, exec, *train, test.get(), cov, nc, tr, r, log);
      if (test)
        r.accuracy = detail::measure_test_predictions(pt, opt.pheno, r.traits, r.test_fid, r.test_iid,
                                                      r.predictions.data(), log);
      return r;
    }
    if (opt.kernel_on == kernel_residence::device) throw input_error("--kernel-on device: " + why);
    if (exec.kind() == backend::cuda) log.message("Kernel matrix on the host: " + why);
  }
  log.begin("kernel");
  const genotype_gram g = compute_genotype_gram(exec, all, opt.kernel, p, &log);
  for (const auto& [name, seconds] : g.stage_seconds) log.substage(name, seconds);
  log.end();
  log.message(std::string(kernel_name(opt.kernel)) + " Gram matrix of " + std::to_string(n_all) + " samples over " +
              std::to_string(m) + " variants" +
              (test ? " (" + std::to_string(n_train) + " training and " + std::to_string(n_test) + " TEST samples)" : "") +
              (split ? ", its rows split over " + std::to_string(exec.comm().size()) +
                                " ranks; K's tile-cyclic columns (tile " + std::to_string(opt.solve.tile) +
                                ") made where the rows lie and sent to their ranks, solved over the ranks"
                          : ""));
  const double* covariates = nc ? cov.data() : nullptr;

  // ---- (γ, α) per phenotype: given, or chosen by K-fold cross-validation
  std::vector<double> gamma_of(static_cast<size_t>(t), opt.gamma), alpha_of(static_cast<size_t>(t), opt.alpha);
  if (opt.cv.folds > 0) {
    log.begin("cross-validation");
    r.cv = cross_validate_krr(exec, g, covariates, nc, fitted, Y.data(), t, cv_options(opt), opt.solve, log);
    log.end();
    for (int64_t c = 0; c < t; ++c) {
      const krr_cv_point& best = r.cv->grid[r.cv->best[c]];
      gamma_of[c] = best.gamma, alpha_of[c] = best.alpha;
      log.message(std::to_string(opt.cv.folds) + "-fold CV of '" + r.traits[c] + "' over " +
                  std::to_string(r.cv->grid.size()) + " (gamma, alpha): least MSPE " + num(best.accuracy[c].mspe) +
                  " (Pearson r " + num(best.accuracy[c].pearson) + ") at " +
                  (opt.kernel == kernel_type::gaussian ? "gamma " + num(best.gamma) + ", " : std::string()) + "alpha " +
                  num(best.alpha));
    }
  }
  r.gamma = gamma_of, r.alpha = alpha_of;

  // ---- Associate and Predict, once per distinct (γ, α) (every phenotype when given)
  matrix_buffer<double> W_all(static_cast<size_t>(n * t));
  if (test) r.predictions.assign(static_cast<size_t>(n_test * t), 0.0);
  std::vector<bool> done(static_cast<size_t>(t), false);
  for (int64_t c0 = 0; c0 < t; ++c0) {
    if (done[c0]) continue;
    std::vector<int64_t> group;
    for (int64_t c = c0; c < t; ++c)
      if (!done[c] && gamma_of[c] == gamma_of[c0] && alpha_of[c] == alpha_of[c0]) group.push_back(c), done[c] = true;
    const int64_t tg = static_cast<int64_t>(group.size());
    const double gamma = gamma_of[c0], alpha = alpha_of[c0];
    matrix_buffer<double> Yg(static_cast<size_t>(n * tg));
    for (int64_t k = 0; k < tg; ++k) std::copy_n(Y.data() + group[k] * n, n, Yg.data() + k * n);
    log.begin("kernel");
    const matrix_buffer<double> K = detail::tile_cyclic_kernel(exec, g, gamma, covariates, nc, fitted, opt.solve.tile);
    log.end();
    log.begin("associate");
    kernel_ridge_solution s = solve_kernel_ridge(exec, over_ranks, n, K.data(), alpha, tg, Yg.data(), opt.solve);
    log.end();
    for (const auto& [name, seconds] : s.stage_seconds) log.substage(name, seconds);
    if (!s.fallback.empty())
      log.message("Warning: " + std::string(solve_precision_name(opt.solve.precision)) + " solve fell back to fp64: " +
                  s.fallback);
    std::string names;
    for (int64_t c : group) names += (names.empty() ? "'" : ", '") + r.traits[c] + "'";
    log.message("(K + alpha I) W = Y, " + (opt.kernel == kernel_type::gaussian ? "gamma " + num(gamma) + ", " : std::string()) +
                "alpha " + num(alpha) + ", " + names + ": " + detail::describe_solve(s, opt.solve) + "; backward error " +
                num(s.backward_error));
    for (int64_t k = 0; k < tg; ++k) std::copy_n(s.W.data() + k * n, n, W_all.data() + group[k] * n);
    if (test) {
      log.begin("predict");
      std::vector<int64_t> rows(static_cast<size_t>(n_test));
      for (int64_t i = 0; i < n_test; ++i) rows[i] = n_train + i;
      matrix_buffer<double> P(static_cast<size_t>(n_test * tg));
      detail::predict_from_gram(exec, g, gamma, covariates, nc, rows, fitted, s.W.data(), tg, P.data());
      for (int64_t k = 0; k < tg; ++k)
        for (int64_t i = 0; i < n_test; ++i)
          r.predictions[group[k] * n_test + i] = P[k * n_test + i] + r.trait_means[group[k]];
      log.end();
    }
    if (c0 == 0) r.solution = std::move(s);  // the first group's map, refinements and backward error
    else r.solution.backward_error = std::max(r.solution.backward_error, s.backward_error);
  }
  r.solution.W = std::move(W_all);
  r.solution.traits = t;
  if (test)
    r.accuracy = detail::measure_test_predictions(pt, opt.pheno, r.traits, r.test_fid, r.test_iid, r.predictions.data(), log);
  return r;
}

}  // namespace pmx
