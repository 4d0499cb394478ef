// The gBLUP analysis from files to results (gblup_analysis.hpp).
#include "panoramix/gblup_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/checked_number.hpp"
#include "core/number_text.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm_files.hpp"
#include "panoramix/phenotypes.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx {
namespace {

// %.17g, or NA for a NaN (an SE that does not exist).
std::string num(double v) { return detail::number_text(v, 17, "NA"); }

std::string method_name(grm_method m) { return m == grm_method::vanraden ? "vanraden" : "standardized"; }

// G read from a GCTA GRM, reduced to the --keep samples' rows and columns (in the GRM's order).
gblup_relationship read_grm(const gblup_analysis_options& opt, analysis_log& log) {
  gblup_relationship r;
  log.begin("read GRM");
  grm_file g = read_gcta_grm(opt.grm);
  log.end();
  r.n = g.n;
  r.fid = std::move(g.fid);
  r.iid = std::move(g.iid);
  r.G = std::move(g.G);
  log.message("GRM of " + std::to_string(r.n) + " samples read from " + opt.grm + ".grm.bin");
  if (opt.keep.empty()) return r;
  const sample_list keep = read_sample_list(opt.keep);
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < r.n; ++i)
    if (keep.contains(r.fid[i], r.iid[i])) kept.push_back(i);
  if (kept.empty()) throw input_error("--keep file '" + opt.keep + "': no listed sample is in the GRM");
  const int64_t m = static_cast<int64_t>(kept.size());
  matrix_buffer<double> K(static_cast<size_t>(m * m));
  std::vector<std::string> kf(m), ki(m);
  for (int64_t a = 0; a < m; ++a) {
    for (int64_t b = 0; b < m; ++b) K[a * m + b] = r.G[kept[a] * r.n + kept[b]];
    kf[a] = std::move(r.fid[kept[a]]);
    ki[a] = std::move(r.iid[kept[a]]);
  }
  log.message("--keep " + opt.keep + ": " + std::to_string(m) + " of the " + std::to_string(r.n) +
              " samples of the GRM kept");
  r.G = std::move(K), r.fid = std::move(kf), r.iid = std::move(ki), r.n = m;
  return r;
}

void require_pcs_within(const gblup_analysis_options& opt, int64_t n) {
  if (opt.pc.pcs > n)
    throw input_error("--pcs " + std::to_string(opt.pc.pcs) + " exceeds the number of samples (" + std::to_string(n) + ")");
}

// The phenotype and covariates of --pheno/--covar matched to G's samples by FID + IID.
gblup_records match_records(const gblup_analysis_options& opt, const gblup_relationship& rel, analysis_log& log) {
  const int64_t n = rel.n;
  const phenotype_table pt = read_phenotype_table(opt.pheno, "--pheno");
  const int64_t pcol =
      pt.column(opt.pheno_name.empty() ? std::to_string(opt.mpheno) : opt.pheno_name, "--pheno");
  int64_t matched = 0;
  gblup_records r;
  r.y = match_column(pt, pcol, rel.fid, rel.iid, &matched);
  r.trait = pt.names[pcol];
  r.pheno_source = "--pheno " + opt.pheno;
  log.message("--pheno " + opt.pheno + ": trait '" + pt.names[pcol] + "', " +
              std::to_string(pt.rows()) + " rows, " + std::to_string(matched) +
              " matched to the " + std::to_string(n) + " genotyped samples, " +
              std::to_string(pt.rows() - matched) + " not in the genotype data (ignored)");
  if (!opt.covar.empty()) {
    const phenotype_table ct = read_phenotype_table(opt.covar, "--covar");
    std::vector<int64_t> cols;
    if (opt.covar_names.empty())
      for (int64_t j = 0; j < static_cast<int64_t>(ct.names.size()); ++j) cols.push_back(j);
    for (const auto& name : opt.covar_names) cols.push_back(ct.column(name, "--covar"));
    int64_t cm = 0;  // samples of the file matched (the same for every column)
    for (int64_t j : cols) {
      r.covariates.push_back(match_column(ct, j, rel.fid, rel.iid, &cm));
      r.covariate_names.push_back(ct.has_header ? ct.names[j] : "covar" + ct.names[j]);
    }
    r.covar_source = "--covar " + opt.covar;
    log.message("--covar " + opt.covar + ": " + std::to_string(cols.size()) + " covariate(s), " +
                std::to_string(cm) + " samples matched");
  } else if (!opt.covar_names.empty()) {
    throw input_error("--covar-name needs --covar FILE");
  }
  return r;
}

// The fitted samples (a phenotype and every covariate) of `r` into d, refused by name when
// nothing can be fitted.
void select_fitted(const gblup_records& r, int64_t n, gblup_data& d, analysis_log& log) {
  if (static_cast<int64_t>(r.y.size()) != n)
    throw logic_error("gblup records: " + std::to_string(r.y.size()) + " phenotype values for " + std::to_string(n) +
                      " samples");
  for (const auto& cv : r.covariates)
    if (static_cast<int64_t>(cv.size()) != n)
      throw logic_error("gblup records: a covariate with " + std::to_string(cv.size()) + " values for " +
                        std::to_string(n) + " samples");
  d.covariates.resize(r.covariates.size());
  d.covariate_names = r.covariate_names;
  int64_t missing_y = 0, missing_cov = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(r.y[i])) {
      ++missing_y;
      continue;
    }
    bool ok = true;
    for (const auto& cv : r.covariates) ok = ok && !std::isnan(cv[i]);
    if (!ok) {
      ++missing_cov;
      continue;
    }
    d.fitted.push_back(i);
    d.y.push_back(r.y[i]);
    for (size_t j = 0; j < r.covariates.size(); ++j) d.covariates[j].push_back(r.covariates[j][i]);
  }
  log.message(std::to_string(d.fitted.size()) + " samples fitted; " + std::to_string(missing_y) +
              " without a phenotype and " + std::to_string(missing_cov) +
              " without every covariate get predictions only");
  if (d.fitted.empty())
    throw input_error(r.pheno_source + ": no genotyped sample has a non-missing value of '" + r.trait + "'" +
                      (r.covariates.empty() ? "" : " and every covariate"));
  // A constant trait (or covariate) leaves nothing to fit: say so by name before the fit fails
  // on yᵀPy = 0 (or on collinear fixed effects) without naming the file.
  const std::string fitted = std::to_string(d.fitted.size()) + " fitted sample(s)";
  if (std::all_of(d.y.begin(), d.y.end(), [&](double v) { return v == d.y.front(); }))
    throw input_error(r.pheno_source + ": phenotype '" + r.trait + "' has no variance: all " + fitted +
                      " have the value " + num(d.y.front()));
  for (size_t j = 0; j < d.covariates.size(); ++j) {
    const auto& c = d.covariates[j];
    if (std::all_of(c.begin(), c.end(), [&](double v) { return v == c.front(); }))
      throw input_error(r.covar_source + ": covariate '" + r.covariate_names[j] + "' is constant (" + num(c.front()) +
                        ") over the " + fitted + ": it duplicates the intercept; " + r.covar_hint);
  }
  // Sums of squares must stay finite (yᵀy, XᵀX in double precision): values near 1e308 are
  // refused here rather than turning into an infinite likelihood.
  auto squares_overflow = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x * x;
    return !std::isfinite(s);
  };
  if (squares_overflow(d.y))
    throw input_error(r.pheno_source + ": phenotype '" + r.trait +
                      "' has values too large to square in double precision (rescale it)");
  for (size_t j = 0; j < d.covariates.size(); ++j)
    if (squares_overflow(d.covariates[j]))
      throw input_error(r.covar_source + ": covariate '" + r.covariate_names[j] +
                        "' has values too large to square in double precision (rescale it)");
}

}  // namespace

void check_gblup_options(const gblup_analysis_options& o) {
  using detail::number_range;
  if (o.bfile.empty() == o.grm.empty())
    throw input_error("give exactly one of --bfile (compute the GRM) and --grm (read one)");
  if (!o.grm.empty() && !o.extract.empty())
    throw input_error("--extract selects variants and cannot apply to a precomputed --grm");
  if (o.reml && o.h2) throw input_error("--h2 and --reml exclude each other");
  // h² = 1 makes H = G singular for a centred G; NaN would otherwise read as "not given".
  if (o.h2) detail::require_number(*o.h2, "--h2", number_range::half_open(0, 1));
  if (o.pheno_name.empty()) detail::require_integer(o.mpheno, "--mpheno", 1);
  detail::require_integer(o.pc.pcs, "--pcs", 0);
  if (o.pc.pcs > 0) {
    detail::require_number(o.pc.tolerance, "--pc-tol", number_range::above(0));
    detail::require_integer(o.pc.max_iterations, "--pc-max-iter", 1);
    detail::require_integer(o.pc.oversample, "--pc-oversample", 0);
  }
  if (o.grm_repair.bend && o.grm_repair.add_diagonal)
    throw input_error("give at most one of --grm-bend and --grm-add-diagonal");
  if (o.grm_repair.add_diagonal)
    detail::require_number(*o.grm_repair.add_diagonal, "--grm-add-diagonal", number_range::above(0));
}

gblup_relationship compute_gblup_relationship(const executor& exec, const gblup_analysis_options& opt,
                                              const genotype_source& data, analysis_log* to_log) {
  null_analysis_log quiet;
  analysis_log& log = to_log ? *to_log : quiet;
  if (data.n_variants() == 0) throw input_error(opt.bfile + ": no autosomal variants left");
  grm_options go;
  go.method = opt.method;
  go.nonfounders = opt.nonfounders;
  go.chromosomes = opt.chromosomes;
  go.pair_counts = false;
  log.begin("relationship matrix");
  grm_result g = compute_grm(exec, data, go, &log);
  log.end();
  for (const auto& [name, seconds] : g.stage_seconds) log.substage(name, seconds);
  log.message("GRM (" + method_name(opt.method) + ") of " + std::to_string(g.n) + " samples from " +
              std::to_string(g.n_variants) + " variants");
  gblup_relationship r;
  r.n = g.n;
  r.G = std::move(g.G);
  for (int64_t i = 0; i < r.n; ++i) {
    r.fid.push_back(data.sample(i).fid);
    r.iid.push_back(data.sample(i).iid);
  }
  return r;
}

gblup_analysis run_gblup_analysis(const gblup_analysis_options& opt, const analysis_context& ctx) {
  null_analysis_log quiet;
  analysis_log& log = ctx.log ? *ctx.log : quiet;
  check_gblup_options(opt);
  if (!ctx.make_executor) throw logic_error("run_gblup_analysis: the context makes no executor");
  const executor exec = ctx.make_executor();
  // ---- G and its samples
  gblup_relationship rel;
  if (!opt.grm.empty()) {
    rel = read_grm(opt, log);
  } else {
    if (!ctx.open_genotypes) throw logic_error("run_gblup_analysis: the context opens no genotypes");
    const std::unique_ptr<genotype_source> data = ctx.open_genotypes();
    rel = compute_gblup_relationship(exec, opt, *data, &log);
  }
  require_pcs_within(opt, rel.n);  // before the phenotype files, as every option check
  // ---- phenotype and covariates, matched by FID + IID
  const gblup_records records = match_records(opt, rel, log);
  return fit_gblup_analysis(exec, opt, std::move(rel), records, &log);
}

gblup_analysis fit_gblup_analysis(const executor& exec, const gblup_analysis_options& opt, gblup_relationship rel,
                                  const gblup_records& records, analysis_log* to_log) {
  null_analysis_log quiet;
  analysis_log& log = to_log ? *to_log : quiet;
  const int64_t n = rel.n;
  require_pcs_within(opt, n);
  gblup_data d;
  d.n = n;
  d.G = rel.G.data();
  select_fitted(records, n, d, log);
  // ---- G fit for a covariance matrix (finite, not all zero, positive semi-definite), or
  // repaired as asked; before any factorisation, which could loop on a NaN or fit a bad G quietly.
  // A --grm that is not positive semi-definite is refused; one computed here (pairwise counts with
  // missing calls can make it indefinite) is noted in the log and REML bounds h² as before.
  log.begin("check G");
  const std::string source = opt.grm.empty() ? "G computed from --bfile " + opt.bfile
                                             : "--grm file '" + opt.grm + ".grm.bin'";
  const grm_indefinite indefinite = opt.grm.empty() ? grm_indefinite::note : grm_indefinite::refuse;
  for (const auto& line :
       check_grm_for_model(exec, n, rel.G.data(), rel.fid, rel.iid, opt.grm_repair, source, indefinite))
    log.message(line);
  log.end();
  // ---- fit
  gblup_options go;
  go.h2 = opt.h2;
  // auto: one eigendecomposition pays when REML needs dozens of evaluations and n is small; beyond
  // (and for a given h², two factorisations) one Cholesky per evaluation is cheaper (measured with
  // bench_dense_linalg: cuSOLVER eigen 8.8 s vs Cholesky 0.6 s at n = 20,000; 68 s vs 3.5 s at 50,000).
  const int64_t nf = static_cast<int64_t>(d.fitted.size());
  const int64_t eigen_max = exec.on_device() ? 25000 : 5000;
  const bool use_eigen = opt.evaluator == gblup_evaluator_choice::eigen ||
                         (opt.evaluator == gblup_evaluator_choice::automatic && !go.h2 && nf <= eigen_max);
  go.evaluator = use_eigen ? h2_evaluator_kind::eigen : h2_evaluator_kind::cholesky;
  if (!use_eigen && nf > eigen_max) {
    // Each Newton step would need H⁻¹ explicitly (n right-hand sides): Brent alone, on a coarser grid.
    // Brent's steps below |Δh²| ~ 1e-7 only chase rounding of logL (its differences there are
    // ~1e-12 of |logL|): tolerance 1e-7 instead of 1e-10 saves ~12 of ~37 factorisations and lands
    // as close to the Newton-polished ĥ² (test_gblup: BrentAloneMatchesNewtonPolish).
    go.reml.newton = false;
    go.reml.grid = 8;
    go.reml.tolerance = 1e-7;
  }
  go.pev = opt.pev;
  // ---- G prepared once on the executor (cuda: uploaded, resident) for the PCs, the Cholesky
  // evaluator (when every sample is fitted) and ĝ. Not for the eigen evaluator alone (it copies G
  // for its own decomposition) nor when only a subset is fitted and no PCs are asked for.
  const bool all_fitted = nf == n;
  if (opt.pc.pcs > 0 || (!use_eigen && all_fitted)) {
    log.begin(exec.on_device() ? "G to the device" : "G as an operand");
    d.resident = std::make_shared<const shifted_operand>(exec, n, rel.G.data(), n);
    log.end();
  }
  gblup_analysis res;
  if (opt.pc.pcs > 0) {
    log.begin("principal components of G");
    res.pcs = grm_top_eigenpairs(*d.resident, opt.pc, &log);
    log.end();
    const grm_pcs_result& pcs = res.pcs;
    char line[320];
    std::snprintf(line, sizeof line,
                  "%lld PCs of the fitted GRM itself (%s), not of `pca`'s matrix (PLINK's standardized GRM with "
                  "pairwise called counts) unless that is the GRM here: %d filter steps, %lld products G*X, max Ritz "
                  "residual %.2e of the largest eigenvalue%s",
                  static_cast<long long>(pcs.pcs),
                  opt.grm.empty() ? ("--method " + method_name(opt.method)).c_str() : ("--grm " + opt.grm).c_str(),
                  pcs.iterations, static_cast<long long>(pcs.products), pcs.max_residual,
                  pcs.converged ? "" : " (NOT CONVERGED: raise --pc-max-iter or --pc-tol)");
    log.message(line);
    if (!all_fitted && !use_eigen) d.resident.reset();  // the evaluator holds G_ff: free the device
  }
  log.begin(go.h2 ? "gBLUP at the given h2" : "REML and gBLUP");
  res.fit = fit_gblup(exec, d, go);
  log.end();
  for (const auto& [name, seconds] : res.fit.stage_seconds) log.substage(name, seconds);
  const auto& vc = res.fit.vc;
  log.message("Evaluator: " + res.fit.evaluator + ", " + std::to_string(vc.evaluations) +
              " likelihood evaluations");
  log.message(std::string(vc.estimated ? "REML" : "Given") + " h2 = " + num(vc.h2) +
              (vc.estimated ? " (SE " + num(vc.se_h2) + ")" : "") + ", sigma2_g = " +
              num(vc.sigma2_g) + ", sigma2_e = " + num(vc.sigma2_e) + ", REML logL = " +
              num(vc.logl) + (vc.boundary ? "  [on the boundary of the search]" : ""));
  res.fid = std::move(rel.fid);
  res.iid = std::move(rel.iid);
  res.pev = opt.pev;
  return res;
}

}  // namespace pmx
