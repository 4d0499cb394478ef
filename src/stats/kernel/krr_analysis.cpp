// The KRR analysis from files to results (krr_analysis.hpp).
#include "panoramix/krr_analysis.hpp"

#include <cmath>
#include <memory>

#include "core/number_text.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/concatenated_samples.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/phenotypes.hpp"
#include "stats/kernel/training_records.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 6, "NA"); }

// Shared with rr (stats/kernel/training_records.hpp).
using detail::matched_columns;
using detail::match_columns;

// TEST restricted to the training variants (by ID), then checked to be the same variants.
std::unique_ptr<plink_fileset> open_test(const krr_analysis_options& opt, const genotype_source& train) {
  return detail::open_test_fileset(opt.predict, train);
}

}  // namespace

void check_krr_options(const krr_analysis_options& o) {
  if (o.pheno.empty()) throw input_error("--pheno FILE is required");
  if (o.pheno_names.empty() == !o.all_pheno)
    throw input_error("give the phenotypes with exactly one of --pheno-name A,B,... and --all-pheno");
  if (o.kernel == kernel_type::gaussian && !(o.gamma > 0 && std::isfinite(o.gamma)))
    throw input_error("--gamma must be positive and finite for the Gaussian kernel (got " + num(o.gamma) + ")");
  if (!(o.alpha >= 0 && std::isfinite(o.alpha)))
    throw input_error("--alpha must be finite and not negative (got " + num(o.alpha) + ")");
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
  std::unique_ptr<plink_fileset> test;
  std::unique_ptr<concatenated_samples> both;
  if (!opt.predict.empty()) {
    log.begin("read TEST");
    test = open_test(opt, *train);
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
  log.begin("kernel");
  const genotype_gram g = compute_genotype_gram(exec, all, opt.kernel, p, &log);
  for (const auto& [name, seconds] : g.stage_seconds) log.substage(name, seconds);
  matrix_buffer<double> K(static_cast<size_t>(n * n));
  kernel_block(g, opt.gamma, nc ? cov.data() : nullptr, nc, fitted, fitted, K.data(), n, exec.threads());
  log.end();
  log.message(std::string(kernel_name(opt.kernel)) + " kernel of " + std::to_string(n) + " training samples over " +
              std::to_string(m) + " variants" +
              (opt.kernel == kernel_type::gaussian ? ", gamma " + num(opt.gamma) : std::string()) +
              (test ? " (one Gram matrix with the " + std::to_string(n_test) + " TEST samples)" : ""));

  // ---- Associate
  log.begin("associate");
  r.solution = solve_kernel_ridge(exec, n, K.data(), opt.alpha, t, Y.data(), opt.solve);
  log.end();
  for (const auto& [name, seconds] : r.solution.stage_seconds) log.substage(name, seconds);
  const auto& s = r.solution;
  if (!s.fallback.empty())
    log.message("Warning: " + std::string(solve_precision_name(opt.solve.precision)) + " solve fell back to fp64: " +
                s.fallback);
  const std::string how = detail::describe_solve(s, opt.solve);
  log.message("(K + alpha I) W = Y, alpha " + num(opt.alpha) + ", " + std::to_string(t) + " phenotype(s): " + how +
              "; backward error " + num(s.backward_error));

  // ---- Predict
  if (test) {
    log.begin("predict");
    std::vector<int64_t> rows(static_cast<size_t>(n_test));
    for (int64_t i = 0; i < n_test; ++i) rows[i] = n_train + i;
    matrix_buffer<double> Kc(static_cast<size_t>(n_test * n));
    kernel_block(g, opt.gamma, nc ? cov.data() : nullptr, nc, rows, fitted, Kc.data(), n, exec.threads());
    r.predictions.assign(static_cast<size_t>(n_test * t), 0.0);
    // Kc is row-major n_test × n, i.e. column-major n × n_test: predictions = Kcᵀ-as-stored · W.
    dense_gemm(exec.host(), true, false, n_test, t, n, 1.0, Kc.data(), n, s.W.data(), n, 0.0, r.predictions.data(),
               n_test);
    for (int64_t c = 0; c < t; ++c)
      for (int64_t i = 0; i < n_test; ++i) r.predictions[c * n_test + i] += r.trait_means[c];
    matched_columns obs;
    try {
      obs = match_columns(pt, r.traits, false, "--pheno", r.test_fid, r.test_iid);
    } catch (const input_error&) {  // no TEST sample in the phenotype file: predictions only
      log.message("No TEST sample has a phenotype in " + opt.pheno + ": no prediction accuracy");
    }
    for (int64_t c = 0; c < t && !obs.values.empty(); ++c) {
      std::vector<double> pred(r.predictions.begin() + c * n_test, r.predictions.begin() + (c + 1) * n_test);
      r.accuracy.push_back(measure_prediction(obs.values[c], pred));
      const auto& a = r.accuracy.back();
      if (a.n > 0)
        log.message("TEST '" + r.traits[c] + "': " + std::to_string(a.n) + " samples with a phenotype, MSPE " +
                    num(a.mspe) + ", Pearson r " + num(a.pearson));
    }
    log.end();
  }
  return r;
}

}  // namespace pmx
