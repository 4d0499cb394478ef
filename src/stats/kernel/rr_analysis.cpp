// The ridge regression analysis from files to results (rr_analysis.hpp).
#include "panoramix/rr_analysis.hpp"

#include <cmath>
#include <memory>

#include "core/checked_number.hpp"
#include "core/number_text.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ridge_regression.hpp"
#include "stats/kernel/training_records.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 6, "NA"); }

}  // namespace

void check_rr_options(const rr_analysis_options& o) {
  if (o.pheno.empty()) throw input_error("--pheno FILE is required");
  if (o.pheno_names.empty() == !o.all_pheno)
    throw input_error("give the phenotypes with exactly one of --pheno-name A,B,... and --all-pheno");
  detail::require_number(o.lambda, "--lambda", detail::number_range::at_least(0));
  if (o.covar.empty() && !o.covar_names.empty()) throw input_error("--covar-name needs --covar FILE");
  check_kernel_ridge_options(o.solve);
}

rr_analysis run_rr_analysis(const rr_analysis_options& opt, const analysis_context& ctx) {
  null_analysis_log quiet;
  analysis_log& log = ctx.log ? *ctx.log : quiet;
  check_rr_options(opt);
  if (!ctx.make_executor || !ctx.open_genotypes) throw logic_error("run_rr_analysis: incomplete context");
  const executor exec = ctx.make_executor();
  const std::unique_ptr<genotype_source> train = ctx.open_genotypes();
  const int64_t m = train->n_variants();
  if (m == 0) throw input_error(opt.bfile + ": no autosomal variants left for the regression");
  rr_analysis r;
  r.n_variants = m;
  for (int64_t j = 0; j < m; ++j) r.variant_ids.push_back(train->variant(j).id), r.variant_a1.push_back(train->variant(j).a1);

  // ---- phenotypes and covariates of the training samples (krr's rules)
  const std::vector<std::string> fid = detail::sample_ids(*train, true), iid = detail::sample_ids(*train, false);
  const detail::record_files files{opt.pheno, opt.pheno_names, opt.all_pheno, opt.covar, opt.covar_names};
  const detail::training_records tr = detail::read_training_records(files, fid, iid, log);
  const int64_t n = tr.n(), t = tr.traits(), nc = tr.n_covariates();
  r.traits = tr.phenotypes.names;
  r.trait_means = tr.means;
  r.covariate_names = tr.covariates.names;
  r.n_covariates = nc;
  for (int64_t i : tr.fitted) r.train_fid.push_back(fid[i]), r.train_iid.push_back(iid[i]);

  // ---- TEST: the training variants, centred with the training frequencies
  std::unique_ptr<genotype_source> test;
  if (!opt.predict.empty()) {
    log.begin("read TEST");
    test = detail::open_test_genotypes(opt.predict, opt.open_predict, *train);
    log.end();
    log.message("--predict " + opt.predict + ": " + std::to_string(test->n_samples()) + " samples on the " +
                std::to_string(m) + " training variants");
    for (int64_t i = 0; i < test->n_samples(); ++i)
      r.test_fid.push_back(test->sample(i).fid), r.test_iid.push_back(test->sample(i).iid);
  }
  const int64_t n_test = test ? test->n_samples() : 0;

  // ---- standardised covariates: fitted training samples and TEST samples (NaN where missing)
  std::vector<double> cov_train(static_cast<size_t>(n * nc)), cov_test(static_cast<size_t>(n_test * nc));
  if (nc > 0) {
    std::vector<std::vector<double>> test_cov;
    if (test)
      test_cov = detail::match_columns(*tr.covar, opt.covar_names, opt.covar_names.empty(), "--covar", r.test_fid,
                                       r.test_iid)
                     .values;
    const detail::covariate_scaling sc = detail::scale_covariates(tr, opt.covar);
    for (int64_t k = 0; k < nc; ++k) {
      for (int64_t i = 0; i < n; ++i) cov_train[i * nc + k] = (tr.covariates.values[k][tr.fitted[i]] - sc.mean[k]) / sc.sd[k];
      for (int64_t i = 0; i < n_test; ++i) cov_test[i * nc + k] = (test_cov[k][i] - sc.mean[k]) / sc.sd[k];
    }
    log.message("--covar " + opt.covar + ": " + std::to_string(nc) +
                " covariate(s), standardised on the fitted samples, after the variants in X");
  }

  // ---- frequencies over every training sample
  log.begin("frequencies");
  frequency_options fo;
  fo.nonfounders = true;
  fo.chromosomes = opt.chromosomes;
  const allele_frequencies af = compute_allele_frequencies(exec, *train, fo, &log);
  std::vector<double> p(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) p[j] = grm_frequency(af.a1[j]);
  log.end();

  // ---- XᵀX and XᵀY
  log.begin("normal equations");
  const ridge_normal_equations ne = compute_ridge_normal_equations(exec, *train, p, tr.fitted, nc ? cov_train.data() : nullptr,
                                                                   nc, tr.Y.data(), t, &log);
  for (const auto& [name, seconds] : ne.stage_seconds) log.substage(name, seconds);
  log.end();
  const int64_t dim = m + nc;
  log.message("X'X of " + std::to_string(dim) + " columns (" + std::to_string(m) + " variants" +
              (nc ? ", " + std::to_string(nc) + " covariates" : std::string()) + ") over " + std::to_string(n) +
              " fitted samples; X'Y for " + std::to_string(t) + " phenotype(s)");

  // ---- Associate: one factorisation of XᵀX + λI for every phenotype
  log.begin("associate");
  try {
    r.solution = solve_kernel_ridge(exec, dim, ne.XtX.data(), opt.lambda, t, ne.XtY.data(), opt.solve);
  } catch (const numeric_error& e) {  // the solver names KRR's matrix and option: say which ours are
    std::string what = e.what();
    const std::string krr_words = "K + alpha I is not positive definite (raise --alpha): ";
    if (what.rfind(krr_words, 0) == 0) what.erase(0, krr_words.size());
    throw numeric_error("X'X + lambda I is not positive definite (raise --lambda; with lambda 0, X'X is singular when "
                        "fewer samples are fitted than X has columns): " + what);
  }
  log.end();
  const auto& s = r.solution;
  if (!s.fallback.empty())
    log.message("Warning: " + std::string(solve_precision_name(opt.solve.precision)) + " solve fell back to fp64: " +
                s.fallback);
  const std::string how = detail::describe_solve(s, opt.solve);
  log.message("(X'X + lambda I) beta = X'Y, lambda " + num(opt.lambda) + ", " + std::to_string(t) + " phenotype(s): " +
              how + "; backward error " + num(s.backward_error));

  // ---- Predict
  if (test) {
    log.begin("predict");
    r.predictions.assign(static_cast<size_t>(n_test * t), 0.0);
    ridge_predict(exec, *test, p, nc ? cov_test.data() : nullptr, nc, s.W.data(), dim, t, r.predictions.data(), n_test,
                  &log);
    for (int64_t c = 0; c < t; ++c)
      for (int64_t i = 0; i < n_test; ++i) r.predictions[c * n_test + i] += r.trait_means[c];
    r.accuracy =
        detail::measure_test_predictions(tr.pheno, opt.pheno, r.traits, r.test_fid, r.test_iid, r.predictions.data(), log);
    log.end();
  }
  return r;
}

}  // namespace pmx
