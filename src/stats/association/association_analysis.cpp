// `panoramix assoc --glm` from files to results (association_analysis.hpp).
#include "panoramix/association_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include <unordered_map>

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/grm_files.hpp"
#include "panoramix/phenotypes.hpp"
#include "panoramix/selected_genotypes.hpp"
#include "stats/kernel/training_records.hpp"

namespace pmx {
namespace {

// The variants the GRM uses (as `grm`): X dropped (the data here keeps it for its tests).
std::unique_ptr<selected_genotypes> without_x(const genotype_source& data, const chromosome_set& chroms) {
  auto s = std::make_unique<selected_genotypes>(borrow(data));
  s->filter_variants([&](const variant_record& v) { return chroms.diploid(v.chrom); });
  if (s->n_variants() == 0) throw input_error("--lmm: no autosomal variants for the relationship matrix");
  return s;
}

// K over the samples of the data (n × n): a --grm file's entries matched by FID and IID (NaN rows
// for samples it does not have), or the standardised GRM of the genotypes (as `grm`).
std::vector<double> relationship_matrix(const association_options& o, const executor& exec,
                                        const genotype_source& data, analysis_log& log) {
  const int64_t n = data.n_samples();
  std::vector<double> K(static_cast<size_t>(n * n), std::nan(""));
  if (!o.grm.empty()) {
    log.begin("read GRM");
    const grm_file g = read_gcta_grm(o.grm);
    log.end();
    std::unordered_map<std::string, int64_t> row;
    for (int64_t a = 0; a < g.n; ++a) row.emplace(g.fid[a] + '\t' + g.iid[a], a);
    std::vector<int64_t> at(static_cast<size_t>(n), -1);
    int64_t found = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto it = row.find(data.sample(i).fid + '\t' + data.sample(i).iid);
      if (it != row.end()) at[i] = it->second, ++found;
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (at[i] >= 0 && at[j] >= 0) K[i * n + j] = g.G[at[i] * g.n + at[j]];
    log.message("--grm " + o.grm + ": " + std::to_string(g.n) + " samples, " + std::to_string(found) + " of the " +
                std::to_string(n) + " genotyped samples among them (the others are not analysed)");
    if (found == 0) throw input_error("--grm " + o.grm + ": none of its samples is in the genotype data");
    return K;
  }
  grm_options go;
  go.chromosomes = o.chromosomes;
  go.pair_counts = false;
  log.begin("relationship matrix");
  grm_result g = compute_grm(exec, *without_x(data, o.chromosomes), go, &log);
  log.end();
  log.message("GRM (standardized, as `grm`) of " + std::to_string(n) + " samples from " + std::to_string(g.n_variants) +
              " variants");
  std::copy(g.G.data(), g.G.data() + n * n, K.begin());
  return K;
}

void log_null_model(analysis_log& log, const std::string& trait, const lmm_association& a, const std::string& where) {
  log.message("--lmm '" + trait + "'" + where + ": " + std::to_string(a.samples) +
              " samples; null model REML lambda = " + std::to_string(a.null.lambda) + ", vg = " +
              std::to_string(a.null.vg) + ", ve = " + std::to_string(a.null.ve) +
              ", pve = " + std::to_string(a.null.pve));
  for (const auto& [stage, seconds] : a.stage_seconds) log.substage(stage, seconds);
}

// Copies the results of `part` (the variants `index` of the whole) into `whole`.
void scatter(const lmm_association& part, const std::vector<int64_t>& index, lmm_association& whole) {
  for (size_t k = 0; k < index.size(); ++k) {
    const auto j = static_cast<size_t>(index[k]);
    whole.miss_ct[j] = part.miss_ct[k], whole.alt_freq[j] = part.alt_freq[k], whole.error[j] = part.error[k];
    whole.beta[j] = part.beta[k], whole.se[j] = part.se[k], whole.p[j] = part.p[k];
    whole.lambda[j] = part.lambda[k], whole.logl[j] = part.logl[k];
  }
}

// --lmm --loco: each chromosome's variants under K of the others, K_c = (S − S_c)/(N − N_c) with
// S = G∘N the sums and N the jointly called counts of the standardised GRM.
std::vector<lmm_association> leave_one_chromosome_out(const association_options& o, const executor& exec,
                                                      const genotype_source& data,
                                                      const std::vector<std::vector<double>>& traits,
                                                      const std::vector<std::string>& names,
                                                      const std::vector<double>& cov, int64_t q, analysis_log& log) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  grm_options go;
  go.chromosomes = o.chromosomes;
  go.pair_counts = true;
  log.begin("relationship matrix");
  const std::unique_ptr<selected_genotypes> autosomes = without_x(data, o.chromosomes);
  const grm_result all = compute_grm(exec, *autosomes, go, &log);
  log.end();
  std::vector<std::string> chroms;
  for (int64_t j = 0; j < m; ++j)
    if (std::find(chroms.begin(), chroms.end(), data.variant(j).chrom) == chroms.end())
      chroms.push_back(data.variant(j).chrom);
  if (chroms.size() < 2) throw input_error("--loco needs variants on at least 2 chromosomes");
  log.message("--loco: GRM of " + std::to_string(n) + " samples from " + std::to_string(all.n_variants) +
              " variants; each of the " + std::to_string(chroms.size()) + " chromosomes tested under the GRM of the others");
  std::vector<lmm_association> out(traits.size());
  for (lmm_association& a : out) {
    a.miss_ct.assign(static_cast<size_t>(m), 0);
    a.error.assign(static_cast<size_t>(m), lmm_error::none);
    for (auto* v : {&a.alt_freq, &a.beta, &a.se, &a.p, &a.lambda, &a.logl}) v->assign(static_cast<size_t>(m), std::nan(""));
  }
  std::vector<double> K(static_cast<size_t>(n * n));
  for (const std::string& chrom : chroms) {
    selected_genotypes part(borrow(data));
    part.filter_variants([&](const variant_record& v) { return v.chrom == chrom; });
    log.begin("--loco chromosome " + chrom);
    if (!o.chromosomes.diploid(chrom)) {  // X: not in the GRM, tested under all of it
      std::copy(all.G.data(), all.G.data() + n * n, K.begin());
    } else {
      const grm_result one = compute_grm(exec, part, go, nullptr);
      for (int64_t i = 0; i < n * n; ++i) {
        const double N = double(all.N[i]) - double(one.N[i]);
        K[i] = N > 0 ? (all.G[i] * double(all.N[i]) - one.G[i] * double(one.N[i])) / N : std::nan("");
      }
    }
    for (size_t t = 0; t < traits.size(); ++t) {
      const lmm_association a =
          run_lmm_association(exec, part, traits[t], q ? cov.data() : nullptr, q, K.data(), o.lmm_fit, &log);
      scatter(a, part.variant_index(), out[t]);
      out[t].samples = a.samples;
      log_null_model(log, names[t], a, " without chromosome " + chrom);
    }
    log.end();
  }
  return out;
}

}  // namespace

void check_association_options(const association_options& o) {
  if (o.pheno.empty()) throw input_error("--pheno FILE is required");
  if (o.covar.empty() && !o.covar_names.empty()) throw input_error("--covar-name needs --covar FILE");
  if (o.covar.empty() && o.covar_variance_standardize)
    throw input_error("--covar-variance-standardize needs --covar FILE");
  if (!o.lmm && (o.loco || o.lmm_fit.null_lambda || !o.grm.empty()))
    throw input_error(std::string(o.loco ? "--loco" : o.grm.empty() ? "--lmm-null" : "--grm") + " needs --lmm");
  if (o.loco && !o.grm.empty())
    throw input_error("--loco computes each chromosome's GRM from the genotypes: leave out --grm");
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

  association_analysis r;
  for (int64_t j = 0; j < m; ++j) r.variants.push_back(data->variant(j));
  if (o.lmm) {
    r.lmm = true;
    std::vector<lmm_association> fits;
    if (o.loco) {
      fits = leave_one_chromosome_out(o, exec, *data, ph.values, ph.names, cov, q, log);
    } else {
      const std::vector<double> K = relationship_matrix(o, exec, *data, log);
      for (size_t c = 0; c < ph.names.size(); ++c) {
        log.begin("--lmm " + ph.names[c]);
        fits.push_back(run_lmm_association(exec, *data, ph.values[c], q ? cov.data() : nullptr, q, K.data(), o.lmm_fit, &log));
        log.end();
        log_null_model(log, ph.names[c], fits.back(), "");
      }
    }
    for (size_t c = 0; c < ph.names.size(); ++c) {
      trait_association t;
      t.name = ph.names[c];
      t.lmm = std::move(fits[c]);
      int64_t tested = 0;
      for (lmm_error e : t.lmm.error) tested += e == lmm_error::none;
      log.message("--lmm" + std::string(o.lmm_fit.null_lambda ? " (null-model lambda)" : "") + " of '" + t.name +
                  "': " + std::to_string(tested) + " of " + std::to_string(m) + " variants tested (the others NA)");
      r.traits.push_back(std::move(t));
    }
    return r;
  }

  // ---- A1: plink2's nonmajor allele, from the founders' frequencies
  log.begin("frequencies");
  frequency_options fo;
  fo.chromosomes = o.chromosomes;
  const allele_frequencies af = compute_allele_frequencies(exec, *data, fo, &log);
  log.end();

  // ---- chromosome X apart (plink2): its regressions add SEX (1 male, 2 female; unknown sex:
  // not in them) as the last covariate when the samples have both sexes.
  std::vector<uint8_t> on_x(static_cast<size_t>(m));
  int64_t x_count = 0;
  for (int64_t j = 0; j < m; ++j)
    x_count += on_x[j] = o.chromosomes.classify(data->variant(j).chrom) == chromosome_set::kind::x;
  struct part {
    const genotype_source* data = nullptr;
    std::unique_ptr<selected_genotypes> own;
    std::vector<double> alt_freq, cov;
    std::vector<std::string> names;
    int64_t q = 0;
  };
  std::vector<part> parts(x_count > 0 && x_count < m ? 2 : 1);
  for (size_t k = 0; k < parts.size(); ++k) {
    part& pt = parts[k];
    const bool x = parts.size() == 2 ? k == 1 : x_count > 0;
    pt.data = data.get(), pt.alt_freq = af.a1, pt.cov = cov, pt.names = cv.names, pt.q = q;
    if (parts.size() == 2) {
      std::vector<uint8_t> keep(on_x);
      if (!x)
        for (auto& v : keep) v = !v;
      pt.own = std::make_unique<selected_genotypes>(borrow(*data));
      pt.own->keep_variants_where(keep);
      pt.data = pt.own.get();
      pt.alt_freq.clear();
      for (int64_t j : pt.own->variant_index()) pt.alt_freq.push_back(af.a1[j]);
      r.part_row.resize(static_cast<size_t>(m));
      for (size_t row = 0; row < pt.own->variant_index().size(); ++row) r.part_row[pt.own->variant_index()[row]] = int64_t(row);
    }
    if (!x) continue;
    r.on_x = on_x;
    bool male = false, female = false;
    for (int64_t i = 0; i < n; ++i) male |= data->sample(i).sex == 1, female |= data->sample(i).sex == 2;
    if (!(male && female)) continue;
    pt.q = q + 1;
    pt.cov.assign(static_cast<size_t>(n * pt.q), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k2 = 0; k2 < q; ++k2) pt.cov[i * pt.q + k2] = cov[i * q + k2];
      const int sex = data->sample(i).sex;
      pt.cov[i * pt.q + q] = sex == 1 || sex == 2 ? double(sex) : std::nan("");
    }
    pt.names.push_back("SEX");
    log.message(std::to_string(x_count) + " variants on chromosome X: SEX (1 male, 2 female) added as a covariate there");
  }

  for (size_t c = 0; c < ph.names.size(); ++c) {
    trait_association t;
    t.name = ph.names[c];
    // Case/control as plink2 reads a phenotype: only 1, 2 and the missing 0 (−9 and NA are NaN already).
    bool ones = false, twos = false, other = false;
    for (double v : ph.values[c])
      if (std::isfinite(v)) ones |= v == 1, twos |= v == 2, other |= v != 0 && v != 1 && v != 2;
    t.binary = ones && twos && !other;
    log.begin("--glm " + t.name);
    int64_t tested = 0, firth = 0, samples = 0;
    std::vector<double> y = ph.values[c];
    if (t.binary)
      for (double& v : y) v = v == 1 ? 0.0 : v == 2 ? 1.0 : std::nan("");
    for (size_t k = 0; k < parts.size(); ++k) {
      const part& pt = parts[k];
      const bool x = parts.size() == 2 ? k == 1 : x_count > 0;
      const double* pc = pt.q ? pt.cov.data() : nullptr;
      if (t.binary) {
        logistic_association& out = x ? t.logistic_x : t.logistic;
        out = run_logistic_association(exec, *pt.data, y, pc, pt.q, pt.names, pt.alt_freq, &log);
        for (glm_error e : out.error) tested += e == glm_error::none;
        for (uint8_t f : out.firth) firth += f;
        samples = std::max(samples, out.samples);
      } else {
        linear_association& out = x ? t.linear_x : t.linear;
        out = run_linear_association(exec, *pt.data, y, pc, pt.q, pt.names, pt.alt_freq, &log);
        for (glm_error e : out.error) tested += e == glm_error::none;
        samples = std::max(samples, out.samples);
      }
    }
    log.end();
    const std::string model =
        t.binary ? "logistic regression (Firth where it did not converge: " + std::to_string(firth) + " variants)"
                 : "linear regression";
    log.message("--glm " + model + " of '" + t.name + "' on " + std::to_string(samples) + " samples: " +
                std::to_string(tested) + " of " + std::to_string(m) + " variants tested (the others NA)");
    r.traits.push_back(std::move(t));
  }
  return r;
}

}  // namespace pmx
