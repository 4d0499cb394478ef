// `panoramix assoc --glm` from files to results (association_analysis.hpp).
#include "panoramix/association_analysis.hpp"

#include <cmath>
#include <memory>

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/error.hpp"
#include "panoramix/phenotypes.hpp"
#include "stats/kernel/training_records.hpp"

namespace pmx {

void check_association_options(const association_options& o) {
  if (o.pheno.empty()) throw input_error("--pheno FILE is required");
  if (o.covar.empty() && !o.covar_names.empty()) throw input_error("--covar-name needs --covar FILE");
  if (o.covar.empty() && o.covar_variance_standardize)
    throw input_error("--covar-variance-standardize needs --covar FILE");
}

association_analysis run_association_analysis(const association_options& o, const analysis_context& ctx) {
  null_analysis_log quiet;
  analysis_log& log = ctx.log ? *ctx.log : quiet;
  check_association_options(o);
  if (!ctx.make_executor || !ctx.open_genotypes) throw logic_error("run_association_analysis: incomplete context");
  const executor exec = ctx.make_executor();
  const std::unique_ptr<genotype_source> data = ctx.open_genotypes();
  const int64_t n = data->n_samples(), m = data->n_variants();
  if (m == 0) throw input_error("no autosomal variants to test");
  const std::vector<std::string> fid = detail::sample_ids(*data, true), iid = detail::sample_ids(*data, false);

  // ---- phenotypes and covariates, matched by FID/IID (NaN where missing or absent)
  const phenotype_table pt = read_phenotype_table(o.pheno, "--pheno");
  const detail::matched_columns ph =
      detail::match_columns(pt, o.pheno_names, o.pheno_names.empty() || o.all_pheno, "--pheno", fid, iid);
  detail::matched_columns cv;
  if (!o.covar.empty()) {
    const phenotype_table ct = read_phenotype_table(o.covar, "--covar");
    cv = detail::match_columns(ct, o.covar_names, o.covar_names.empty(), "--covar", fid, iid);
  }
  const auto q = static_cast<int64_t>(cv.values.size());
  std::vector<double> cov(static_cast<size_t>(n * q));
  for (int64_t k = 0; k < q; ++k) {
    std::vector<double>& col = cv.values[k];
    if (o.covar_variance_standardize) {  // plink2: mean 0, variance 1 over the samples that have it
      double s = 0, s2 = 0;
      int64_t c = 0;
      for (double v : col)
        if (std::isfinite(v)) s += v, ++c;
      const double mean = c ? s / double(c) : 0;
      for (double v : col)
        if (std::isfinite(v)) s2 += (v - mean) * (v - mean);
      const double sd = c > 1 ? std::sqrt(s2 / double(c - 1)) : 0;
      if (!(sd > 0)) throw input_error("--covar " + o.covar + ": covariate '" + cv.names[k] + "' is constant");
      for (double& v : col) v = (v - mean) / sd;
    }
    for (int64_t i = 0; i < n; ++i) cov[i * q + k] = col[i];
  }
  log.message(std::to_string(ph.names.size()) + " phenotype(s) and " + std::to_string(q) + " covariate(s) loaded");

  // ---- A1: plink2's nonmajor allele, from the founders' frequencies
  log.begin("frequencies");
  frequency_options fo;
  fo.chromosomes = o.chromosomes;
  const allele_frequencies af = compute_allele_frequencies(exec, *data, fo, &log);
  log.end();

  association_analysis r;
  for (int64_t j = 0; j < m; ++j) r.variants.push_back(data->variant(j));
  for (size_t c = 0; c < ph.names.size(); ++c) {
    trait_association t;
    t.name = ph.names[c];
    // Case/control as plink2 reads a phenotype: only 1, 2 and the missing 0 (−9 and NA are NaN already).
    bool ones = false, twos = false, other = false;
    for (double v : ph.values[c])
      if (std::isfinite(v)) ones |= v == 1, twos |= v == 2, other |= v != 0 && v != 1 && v != 2;
    t.binary = ones && twos && !other;
    log.begin("--glm " + t.name);
    int64_t tested = 0;
    std::string model;
    if (t.binary) {
      std::vector<double> y01(ph.values[c].size());
      for (size_t i = 0; i < y01.size(); ++i) {
        const double v = ph.values[c][i];
        y01[i] = v == 1 ? 0.0 : v == 2 ? 1.0 : std::nan("");
      }
      t.logistic = run_logistic_association(exec, *data, y01, q ? cov.data() : nullptr, q, cv.names, af.a1, &log);
      for (glm_error e : t.logistic.error) tested += e == glm_error::none;
      int64_t firth = 0;
      for (uint8_t f : t.logistic.firth) firth += f;
      model = "logistic regression (Firth where it did not converge: " + std::to_string(firth) + " variants)";
    } else {
      t.linear = run_linear_association(exec, *data, ph.values[c], q ? cov.data() : nullptr, q, cv.names, af.a1, &log);
      for (glm_error e : t.linear.error) tested += e == glm_error::none;
      model = "linear regression";
    }
    log.end();
    log.message("--glm " + model + " of '" + t.name + "' on " +
                std::to_string(t.binary ? t.logistic.samples : t.linear.samples) + " samples: " +
                std::to_string(tested) + " of " + std::to_string(m) + " variants tested (the others NA)");
    r.traits.push_back(std::move(t));
  }
  return r;
}

}  // namespace pmx
