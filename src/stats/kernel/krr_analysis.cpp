// The KRR analysis from files to results (krr_analysis.hpp).
#include "panoramix/krr_analysis.hpp"

#include <cmath>
#include <memory>
#include <unordered_map>

#include "core/number_text.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/concatenated_samples.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/phenotypes.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 6, "NA"); }

std::vector<std::string> ids(const genotype_source& s, bool fid) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < s.n_samples(); ++i) v.push_back(fid ? s.sample(i).fid : s.sample(i).iid);
  return v;
}

// TEST restricted to the training variants (by ID), then checked to be the same variants.
std::unique_ptr<plink_fileset> open_test(const krr_analysis_options& opt, const genotype_source& train) {
  auto test = std::make_unique<plink_fileset>(opt.predict);
  std::unordered_map<std::string, int64_t> wanted;
  for (int64_t j = 0; j < train.n_variants(); ++j) wanted.emplace(train.variant(j).id, j);
  test->filter_variants([&](const variant_record& v) { return wanted.count(v.id) > 0; });
  check_same_variants(train, *test);
  return test;
}

// Columns of a phenotype/covariate table matched to the samples (fid, iid): values[column][sample].
struct matched_columns {
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;
};

matched_columns match_columns(const phenotype_table& t, const std::vector<std::string>& wanted, bool all,
                              const std::string& what, const std::vector<std::string>& fid,
                              const std::vector<std::string>& iid) {
  std::vector<int64_t> cols;
  if (all)
    for (int64_t j = 0; j < static_cast<int64_t>(t.names.size()); ++j) cols.push_back(j);
  for (const auto& name : wanted) cols.push_back(t.column(name, what));
  matched_columns m;
  for (int64_t j : cols) {
    m.names.push_back(t.names[j]);
    m.values.push_back(match_column(t, j, fid, iid, nullptr));
  }
  return m;
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

  // ---- phenotypes and covariates of the training samples
  const std::vector<std::string> fid = ids(*train, true), iid = ids(*train, false);
  const phenotype_table pt = read_phenotype_table(opt.pheno, "--pheno");
  const matched_columns ph = match_columns(pt, opt.pheno_names, opt.all_pheno, "--pheno", fid, iid);
  if (ph.values.empty()) throw input_error("--pheno " + opt.pheno + ": no phenotype column");
  matched_columns cv;
  std::unique_ptr<phenotype_table> ct;
  if (!opt.covar.empty()) {
    ct = std::make_unique<phenotype_table>(read_phenotype_table(opt.covar, "--covar"));
    cv = match_columns(*ct, opt.covar_names, opt.covar_names.empty(), "--covar", fid, iid);
  }
  std::vector<int64_t> fitted;
  for (int64_t i = 0; i < n_train; ++i) {
    bool ok = true;
    for (const auto& v : ph.values) ok = ok && !std::isnan(v[i]);
    for (const auto& v : cv.values) ok = ok && !std::isnan(v[i]);
    if (ok) fitted.push_back(i);
  }
  const int64_t n = static_cast<int64_t>(fitted.size()), t = static_cast<int64_t>(ph.values.size());
  log.message("--pheno " + opt.pheno + ": " + std::to_string(t) + " phenotype(s); " + std::to_string(n) + " of the " +
              std::to_string(n_train) + " training samples have every phenotype" +
              (cv.values.empty() ? "" : " and covariate") + " and are fitted");
  if (n < 2) throw input_error("--pheno " + opt.pheno + ": fewer than 2 training samples have every phenotype");
  r.traits = ph.names;
  for (int64_t i : fitted) r.train_fid.push_back(fid[i]), r.train_iid.push_back(iid[i]);
  matrix_buffer<double> Y(static_cast<size_t>(n * t));
  for (int64_t c = 0; c < t; ++c) {
    double mean = 0, ss = 0;
    for (int64_t i : fitted) mean += ph.values[c][i];
    mean /= double(n);
    for (int64_t k = 0; k < n; ++k) {
      Y[c * n + k] = ph.values[c][fitted[k]] - mean;
      ss += Y[c * n + k] * Y[c * n + k];
    }
    if (!(ss > 0))
      throw input_error("--pheno " + opt.pheno + ": phenotype '" + ph.names[c] + "' has no variance among the " +
                        std::to_string(n) + " fitted training samples");
    r.trait_means.push_back(mean);
  }

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
    for (int64_t k = 0; k < nc; ++k) {
      double mean = 0, ss = 0;
      for (int64_t i : fitted) mean += cv.values[k][i];
      mean /= double(n);
      for (int64_t i : fitted) ss += (cv.values[k][i] - mean) * (cv.values[k][i] - mean);
      const double sd = std::sqrt(ss / double(n - 1));
      if (!(sd > 0))
        throw input_error("--covar " + opt.covar + ": covariate '" + cv.names[k] + "' has no variance among the fitted samples");
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
  const auto& s = r.solution;
  if (!s.fallback.empty())
    log.message("Warning: " + std::string(solve_precision_name(opt.solve.precision)) + " solve fell back to fp64: " +
                s.fallback);
  std::string how = std::string(solve_precision_name(s.used)) + " Cholesky";
  if (s.used != solve_precision::fp64) {
    how += " in tiles of " + std::to_string(opt.solve.tile) + " (off-diagonal tiles: " +
           std::to_string(s.map.count(tile_precision::fp32)) + " fp32, " + std::to_string(s.map.count(tile_precision::fp16)) +
           " fp16, " + std::to_string(s.map.count(tile_precision::bf16)) + " bf16, " +
           std::to_string(s.map.count(tile_precision::fp8)) + " fp8), " + std::to_string(s.refinements) +
           " refinement step(s)" +
           (s.gmres_steps ? " with " + std::to_string(s.gmres_steps) + " GMRES-IR Krylov steps" : std::string());
  }
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
