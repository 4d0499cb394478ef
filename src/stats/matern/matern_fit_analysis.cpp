// The Matérn mixed-model fit from files to results (matern_fit_analysis.hpp).
#include "panoramix/matern_fit_analysis.hpp"

#include <cmath>
#include <memory>

#include "core/checked_number.hpp"
#include "core/number_text.hpp"
#include "panoramix/error.hpp"
#include "panoramix/matern.hpp"
#include "stats/kernel/training_records.hpp"

namespace pmx {

void check_matern_fit_options(const matern_fit_analysis_options& o) {
  if (o.pheno.empty()) throw input_error("--pheno FILE is required");
  if (o.covar.empty() && !o.covar_names.empty()) throw input_error("--covar-name needs --covar FILE");
  if (o.fit.fixed_nu)
    detail::require_number(*o.fit.fixed_nu, "--fix-nu", detail::number_range{0, matern_max_nu, true, false});
  detail::require_number(o.fit.tolerance, "--tol", detail::number_range::above(0));
  detail::require_integer(o.fit.max_iterations, "--max-iter", 1);
}

matern_fit_analysis run_matern_fit_analysis(const matern_fit_analysis_options& opt, const analysis_context& ctx) {
  null_analysis_log quiet;
  analysis_log& log = ctx.log ? *ctx.log : quiet;
  check_matern_fit_options(opt);
  if (!ctx.make_executor || !ctx.open_genotypes) throw logic_error("run_matern_fit_analysis: incomplete context");
  const executor exec = ctx.make_executor();
  const std::unique_ptr<genotype_source> data = ctx.open_genotypes();
  matern_fit_analysis a;
  a.fid = detail::sample_ids(*data, true), a.iid = detail::sample_ids(*data, false);

  // ---- the phenotype and covariates, with krr's and rr's rules
  const std::vector<std::string> names = {opt.pheno_name.empty() ? std::string("1") : opt.pheno_name};
  const detail::record_files files{opt.pheno, names, false, opt.covar, opt.covar_names};
  const detail::training_records tr = detail::read_training_records(files, a.fid, a.iid, log);
  detail::scale_covariates(tr, opt.covar);  // refuses a covariate without variance
  const int64_t nf = tr.n(), p = 1 + tr.n_covariates();
  a.fitted = tr.fitted;
  a.trait = tr.phenotypes.names[0];
  a.fixed_effects = {"intercept"};
  for (const auto& c : tr.covariates.names) a.fixed_effects.push_back(c);
  if (nf <= p) throw input_error("--pheno " + opt.pheno + ": " + std::to_string(nf) + " fitted samples for " +
                                 std::to_string(p) + " fixed effects");
  // y centred (training_records'); X = [1, covariates] row-major on the covariates' own scale.
  std::vector<double> y(tr.Y.data(), tr.Y.data() + nf), X(static_cast<size_t>(nf * p));
  for (int64_t k = 0; k < nf; ++k) {
    X[k * p] = 1;
    for (int64_t c = 1; c < p; ++c) X[k * p + c] = tr.covariates.values[c - 1][tr.fitted[k]];
  }

  // ---- distances of every sample, then those among the fitted ones
  log.begin("genotype distances");
  genotype_distance_result d = genotype_distances(exec, *data, opt.standardize, &log);
  log.end();
  a.n_variants = d.n_variants, a.distance_scale = d.scale;
  log.message("Distances between " + std::to_string(d.n) + " samples from " + std::to_string(d.n_variants) +
              " variants" + (opt.standardize ? " (D / " + detail::number_text(d.scale, 8) + ")" : ""));
  const int64_t n = d.n;
  std::vector<double> hf(static_cast<size_t>(nf * nf)), hi(static_cast<size_t>(n * nf));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < nf; ++k) hi[i * nf + k] = d.h[i * n + tr.fitted[k]];
  for (int64_t k = 0; k < nf; ++k)
    for (int64_t l = 0; l < nf; ++l) hf[k * nf + l] = hi[tr.fitted[k] * nf + l];
  d.h = {};

  // ---- the fit
  log.begin("Matern fit");
  a.fit = fit_matern(exec, hf.data(), nf, y.data(), X.data(), p, opt.fit, &log);
  log.end();
  const auto& f = a.fit;
  const std::string last = "sigma2 = " + detail::number_text(f.params.sigma2, 8) + ", rho = " +
                           detail::number_text(f.params.rho, 8) + ", nu = " + detail::number_text(f.params.nu, 8) +
                           ", sigma2_e = " + detail::number_text(f.sigma2_e, 8) + ", logL = " +
                           detail::number_text(f.logL, 12);
  if (!f.converged)
    throw numeric_error("the Matérn fit did not converge: " + std::to_string(f.iterations) + " iteration(s) (--max-iter " +
                        std::to_string(opt.fit.max_iterations) + ", --tol " + detail::number_text(opt.fit.tolerance) +
                        "); last " + last + " (see the log: a variance going to 0 or nu to infinity is a boundary optimum)");
  log.message("Converged after " + std::to_string(f.iterations) + " iteration(s): " + last);
  a.fit.beta[0] += tr.means[0];  // the intercept of the uncentred phenotype

  // ---- BLUP of every sample: ĝ_i = Σ_k C(h_ik) u_k
  std::vector<double> C(hi.size());
  matern_covariance(exec, f.params, matern_method::quadrature, hi.data(), static_cast<int64_t>(hi.size()), {.C = C.data()});
  a.blup.assign(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t k = 0; k < nf; ++k) s += C[i * nf + k] * f.u[k];
    a.blup[i] = s;
  }
  return a;
}

}  // namespace pmx
