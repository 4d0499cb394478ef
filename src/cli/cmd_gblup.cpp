// panoramix gblup: genomic BLUP with variance components by REML or from a given h².
#include <cmath>
#include <cstdio>
#include <optional>

#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/gblup.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/grm_files.hpp"
#include "panoramix/grm_pcs.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/pca_files.hpp"
#include "panoramix/phenotypes.hpp"

namespace pmx::cli {
namespace {

struct gblup_cli {
  std::string pheno, pheno_name, covar, grm, method = "standardized", evaluator = "auto";
  int mpheno = 1;
  std::vector<std::string> covar_names;
  double h2 = std::nan("");  // NaN: not given
  bool reml = false;
  bool no_pev = false;
  grm_pcs_options pc{.pcs = 0};  // --pcs 0: none
};

// %.17g, or NA for a NaN (an SE that does not exist).
std::string num(double v) {
  if (std::isnan(v)) return "NA";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void run_gblup(const common_options& o, const gblup_cli& c, run_log& log) {
  if (o.bfile.empty() == c.grm.empty())
    throw input_error("give exactly one of --bfile (compute the GRM) and --grm (read one)");
  if (!c.grm.empty() && !o.extract.empty())
    throw input_error("--extract selects variants and cannot apply to a precomputed --grm");
  if (c.reml && !std::isnan(c.h2)) throw input_error("--h2 and --reml exclude each other");
  if (c.pc.pcs < 0) throw input_error("--pcs must not be negative (got " + std::to_string(c.pc.pcs) + ")");
  if (c.pc.pcs > 0 && !(c.pc.tolerance > 0)) throw input_error("--pc-tol must be positive");
  if (c.pc.pcs > 0 && c.pc.max_iterations < 1) throw input_error("--pc-max-iter must be at least 1");
  if (c.pc.pcs > 0 && c.pc.oversample < 0) throw input_error("--pc-oversample must not be negative");
  const executor exec = make_executor(o, log);
  // ---- G and its samples
  std::vector<std::string> fid, iid;
  matrix_buffer<double> G;
  int64_t n = 0;
  if (!c.grm.empty()) {
    log.begin("read GRM");
    grm_file g = read_gcta_grm(c.grm);
    log.end();
    n = g.n;
    fid = std::move(g.fid);
    iid = std::move(g.iid);
    G = std::move(g.G);
    log.message("GRM of " + std::to_string(n) + " samples read from " + c.grm + ".grm.bin");
    if (!o.keep.empty()) {  // the kept rows and columns of G, in the GRM's order
      const sample_list keep = read_sample_list(o.keep);
      std::vector<int64_t> kept;
      for (int64_t i = 0; i < n; ++i)
        if (keep.contains(fid[i], iid[i])) kept.push_back(i);
      if (kept.empty()) throw input_error("--keep file '" + o.keep + "': no listed sample is in the GRM");
      const int64_t m = static_cast<int64_t>(kept.size());
      matrix_buffer<double> K(static_cast<size_t>(m * m));
      std::vector<std::string> kf(m), ki(m);
      for (int64_t a = 0; a < m; ++a) {
        for (int64_t b = 0; b < m; ++b) K[a * m + b] = G[kept[a] * n + kept[b]];
        kf[a] = std::move(fid[kept[a]]);
        ki[a] = std::move(iid[kept[a]]);
      }
      log.message("--keep " + o.keep + ": " + std::to_string(m) + " of the " + std::to_string(n) +
                  " samples of the GRM kept");
      G = std::move(K), fid = std::move(kf), iid = std::move(ki), n = m;
    }
  } else {
    auto data = open_input(o, log);
    const auto chroms = chromosomes(o);
    drop_non_autosomal(*data, chroms, log);
    if (data->n_variants() == 0) throw input_error(o.bfile + ": no autosomal variants left");
    grm_options go;
    go.method = c.method == "vanraden" ? grm_method::vanraden : grm_method::standardized;
    go.nonfounders = o.nonfounders;
    go.chromosomes = chroms;
    go.pair_counts = false;
    log.begin("relationship matrix");
    grm_result r = compute_grm(exec, *data, go, &log);
    log.end();
    for (const auto& [name, seconds] : r.stage_seconds) log.substage(name, seconds);
    log.message("GRM (" + c.method + ") of " + std::to_string(r.n) + " samples from " +
                std::to_string(r.n_variants) + " variants");
    n = r.n;
    G = std::move(r.G);
    for (int64_t i = 0; i < n; ++i) {
      fid.push_back(data->sample(i).fid);
      iid.push_back(data->sample(i).iid);
    }
  }
  if (c.pc.pcs > n)
    throw input_error("--pcs " + std::to_string(c.pc.pcs) + " exceeds the number of samples (" + std::to_string(n) + ")");
  // ---- phenotype and covariates, matched by FID + IID
  const phenotype_table pt = read_phenotype_table(c.pheno, "--pheno");
  const int64_t pcol = pt.column(c.pheno_name.empty() ? std::to_string(c.mpheno) : c.pheno_name,
                                 "--pheno");
  int64_t matched = 0;
  const std::vector<double> y_all = match_column(pt, pcol, fid, iid, &matched);
  log.message("--pheno " + c.pheno + ": trait '" + pt.names[pcol] + "', " +
              std::to_string(pt.rows()) + " rows, " + std::to_string(matched) +
              " matched to the " + std::to_string(n) + " genotyped samples, " +
              std::to_string(pt.rows() - matched) + " not in the genotype data (ignored)");
  std::vector<std::vector<double>> cov_all;
  std::vector<std::string> cov_names;
  if (!c.covar.empty()) {
    const phenotype_table ct = read_phenotype_table(c.covar, "--covar");
    std::vector<int64_t> cols;
    if (c.covar_names.empty())
      for (int64_t j = 0; j < static_cast<int64_t>(ct.names.size()); ++j) cols.push_back(j);
    for (const auto& name : c.covar_names) cols.push_back(ct.column(name, "--covar"));
    int64_t cm = 0;  // samples of the file matched (the same for every column)
    for (int64_t j : cols) {
      cov_all.push_back(match_column(ct, j, fid, iid, &cm));
      cov_names.push_back(ct.has_header ? ct.names[j] : "covar" + ct.names[j]);
    }
    log.message("--covar " + c.covar + ": " + std::to_string(cols.size()) + " covariate(s), " +
                std::to_string(cm) + " samples matched");
  } else if (!c.covar_names.empty()) {
    throw input_error("--covar-name needs --covar FILE");
  }
  gblup_data d;
  d.n = n;
  d.G = G.data();
  d.covariates.resize(cov_all.size());
  d.covariate_names = cov_names;
  int64_t missing_y = 0, missing_cov = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(y_all[i])) {
      ++missing_y;
      continue;
    }
    bool ok = true;
    for (const auto& cv : cov_all) ok = ok && !std::isnan(cv[i]);
    if (!ok) {
      ++missing_cov;
      continue;
    }
    d.fitted.push_back(i);
    d.y.push_back(y_all[i]);
    for (size_t j = 0; j < cov_all.size(); ++j) d.covariates[j].push_back(cov_all[j][i]);
  }
  log.message(std::to_string(d.fitted.size()) + " samples fitted; " + std::to_string(missing_y) +
              " without a phenotype and " + std::to_string(missing_cov) +
              " without every covariate get predictions only");
  if (d.fitted.empty())
    throw input_error("--pheno " + c.pheno + ": no genotyped sample has a non-missing value of '" +
                      pt.names[pcol] + "'" + (c.covar.empty() ? "" : " and every covariate"));
  // ---- fit
  gblup_options go;
  if (!std::isnan(c.h2)) go.h2 = c.h2;
  // auto: one eigendecomposition pays when REML needs dozens of evaluations and n is small; beyond
  // (and for a given h², two factorisations) one Cholesky per evaluation is cheaper (measured with
  // bench_dense_linalg: cuSOLVER eigen 8.8 s vs Cholesky 0.6 s at n = 20,000; 68 s vs 3.5 s at 50,000).
  const int64_t nf = static_cast<int64_t>(d.fitted.size());
  const int64_t eigen_max = exec.kind() == backend::cuda ? 25000 : 5000;
  const bool use_eigen = c.evaluator == "eigen" || (c.evaluator == "auto" && !go.h2 && nf <= eigen_max);
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
  go.pev = !c.no_pev;
  // ---- G prepared once on the executor (cuda: uploaded, resident) for the PCs, the Cholesky
  // evaluator (when every sample is fitted) and ĝ. Not for the eigen evaluator alone (it copies G
  // for its own decomposition) nor when only a subset is fitted and no PCs are asked for.
  const bool all_fitted = static_cast<int64_t>(d.fitted.size()) == n;
  if (c.pc.pcs > 0 || (!use_eigen && all_fitted)) {
    log.begin(exec.kind() == backend::cuda ? "G to the device" : "G as an operand");
    d.resident = std::make_shared<const shifted_operand>(exec, n, G.data(), n);
    log.end();
  }
  grm_pcs_result pcs;
  if (c.pc.pcs > 0) {
    log.begin("principal components of G");
    pcs = grm_top_eigenpairs(*d.resident, c.pc, &log);
    log.end();
    char line[320];
    std::snprintf(line, sizeof line,
                  "%lld PCs of the fitted GRM itself (%s), not of `pca`'s matrix (PLINK's standardized GRM with "
                  "pairwise called counts) unless that is the GRM here: %d filter steps, %lld products G*X, max Ritz "
                  "residual %.2e of the largest eigenvalue%s",
                  static_cast<long long>(pcs.pcs), c.grm.empty() ? ("--method " + c.method).c_str() : ("--grm " + c.grm).c_str(),
                  pcs.iterations, static_cast<long long>(pcs.products), pcs.max_residual,
                  pcs.converged ? "" : " (NOT CONVERGED: raise --pc-max-iter or --pc-tol)");
    log.message(line);
    if (!all_fitted && !use_eigen) d.resident.reset();  // the evaluator holds G_ff: free the device
  }
  log.begin(go.h2 ? "gBLUP at the given h2" : "REML and gBLUP");
  const gblup_result r = fit_gblup(exec, d, go);
  log.end();
  for (const auto& [name, seconds] : r.stage_seconds) log.substage(name, seconds);
  const auto& vc = r.vc;
  log.message("Evaluator: " + r.evaluator + ", " + std::to_string(vc.evaluations) +
              " likelihood evaluations");
  log.message(std::string(vc.estimated ? "REML" : "Given") + " h2 = " + num(vc.h2) +
              (vc.estimated ? " (SE " + num(vc.se_h2) + ")" : "") + ", sigma2_g = " +
              num(vc.sigma2_g) + ", sigma2_e = " + num(vc.sigma2_e) + ", REML logL = " +
              num(vc.logl) + (vc.boundary ? "  [on the boundary of the search]" : ""));
  // ---- outputs, together
  log.begin("write");
  output_group out;
  auto& fg = out.add(o.out + ".gebv");
  fg.write("FID\tIID\tGEBV\tPEV\n");
  for (int64_t i = 0; i < n; ++i)
    fg.printf("%s\t%s\t%s\t%s\n", fid[i].c_str(), iid[i].c_str(), num(r.gebv[i]).c_str(),
              c.no_pev ? "NA" : num(r.pev[i]).c_str());
  auto& ff = out.add(o.out + ".fixef");
  for (size_t j = 0; j < r.beta.size(); ++j)
    ff.printf("%s\t%s\t%s\n", r.fixed_names[j].c_str(), num(r.beta[j]).c_str(),
              num(r.se_beta[j]).c_str());
  auto& fv = out.add(o.out + ".vc");
  fv.printf("sigma2_g\t%s\t%s\n", num(vc.sigma2_g).c_str(), num(vc.se_sigma2_g).c_str());
  fv.printf("sigma2_e\t%s\t%s\n", num(vc.sigma2_e).c_str(), num(vc.se_sigma2_e).c_str());
  fv.printf("h2\t%s\t%s\n", num(vc.h2).c_str(), num(vc.se_h2).c_str());
  fv.printf("logL\t%s\tNA\n", num(vc.logl).c_str());
  if (c.pc.pcs > 0) write_pca(out, o.out, fid, iid, pcs.values, pcs.vectors);
  out.commit_all();
  log.end();
  log.message("Written: " + o.out + ".gebv, " + o.out + ".fixef, " + o.out + ".vc" +
              (c.pc.pcs > 0 ? ", " + o.out + ".eigenval, " + o.out + ".eigenvec" : ""));
}

}  // namespace

void add_gblup_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto c = std::make_shared<gblup_cli>();
  auto* cmd = app.add_subcommand("gblup", "genomic BLUP with REML variance components");
  cmd->footer(
      "Model: y = Xb + g + e, g ~ N(0, s2g G), e ~ N(0, s2e I); X = intercept + covariates.\n"
      "G from --bfile (as `panoramix grm`, X/Y/MT dropped) or a GCTA binary GRM (--grm PREFIX;\n"
      "--keep then keeps those samples' rows and columns of G).\n"
      "Samples are matched by FID and IID; those with a missing phenotype (-9/NA) or covariate\n"
      "are left out of the fit but get GEBV = s2g G[i,fit] V^-1 (y - Xb) and a PEV.\n"
      "Variance components:\n"
      "  --reml (default)  maximise the REML likelihood over h2 = s2g/(s2g+s2e) with the total\n"
      "                    variance profiled out; SEs of s2g, s2e from the average-information\n"
      "                    matrix (as GCTA), SE(h2) by the delta method.\n"
      "  --h2 H            h2 given: V = s2 (H G + (1-H) I), s2 = y'Py/(n-p) its REML (GLS)\n"
      "                    estimate at that h2; s2g = H s2, s2e = (1-H) s2 (as GEMMA/GCTA do for\n"
      "                    a fixed ratio). SEs of s2g, s2e from Var(s2) = 2 s2^2/(n-p).\n"
      "  h2 is on the scale of G (GEMMA's pve multiplies s2g by mean(diag G)).\n"
      "logL: REML log-likelihood of n-p contrasts, -1/2[(n-p)log 2pi + log|V| + log|X'V^-1X|\n"
      "      - log|X'X| + y'Py], the number GEMMA prints as 'REMLE log-likelihood'.\n"
      "Outputs: PREFIX.gebv (FID IID GEBV PEV, every sample), PREFIX.fixef (name estimate se,\n"
      "         intercept first), PREFIX.vc (sigma2_g, sigma2_e, h2, logL: name value se).\n"
      "--pcs N: also the top N eigenpairs of this G (one read, one upload: G stays on the GPU for\n"
      "         the fit), by Chebyshev-filtered subspace iteration on the dense G, to PREFIX.eigenval\n"
      "         and PREFIX.eigenvec as `pca` writes them. They are PCs of the GRM of --method (or\n"
      "         --grm): `pca` uses PLINK's standardized matrix (pairwise called counts), the same\n"
      "         matrix only with --method standardized. PCs are written, not used as covariates.\n"
      "Example: panoramix gblup --bfile mice --pheno bw.txt --pheno-name BW --covar sex.txt --out bw");
  add_common_options(cmd, *opt, true);
  cmd->get_option("--bfile")->required(false);
  cmd->add_option("--grm", c->grm, "precomputed GRM PREFIX (.grm.bin/.grm.id, GCTA) instead of --bfile");
  cmd->add_option("--pheno", c->pheno, "phenotype FILE (FID IID values..., header optional)")->required();
  cmd->add_option("--pheno-name", c->pheno_name, "phenotype column by header name");
  cmd->add_option("--mpheno", c->mpheno, "phenotype column number (default 1)");
  cmd->add_option("--covar", c->covar, "covariate FILE (FID IID values..., header optional)");
  cmd->add_option("--covar-name", c->covar_names, "covariate columns by name or number (A,B,...; default all)")
      ->delimiter(',');
  cmd->add_option("--h2", c->h2, "given heritability in [0, 1) instead of REML");
  cmd->add_flag("--reml", c->reml, "estimate the variance components by REML (the default)");
  cmd->add_option("--method", c->method, "GRM: standardized|vanraden (default standardized)")
      ->check(CLI::IsMember({"standardized", "vanraden"}));
  cmd->add_option("--reml-evaluator", c->evaluator,
                  "auto (default: eigen for REML up to 5,000 samples on cpu / 25,000 on cuda, else cholesky) | "
                  "eigen (one eigendecomposition) | cholesky (one factorisation per h2; beyond the auto limit "
                  "Brent without the Newton polish)")
      ->check(CLI::IsMember({"auto", "eigen", "cholesky"}));
  cmd->add_flag("--no-pev", c->no_pev, "skip the prediction error variances (column PEV written as NA)");
  cmd->add_option("--pcs", c->pc.pcs, "also write the top N eigenpairs of G (PREFIX.eigenval/.eigenvec)");
  cmd->add_option("--pc-tol", c->pc.tolerance,
                  "PCs: Ritz residual bound relative to the largest eigenvalue (default 1e-7)");
  cmd->add_option("--pc-max-iter", c->pc.max_iterations, "PCs: filter steps at most (default 500)");
  cmd->add_option("--pc-oversample", c->pc.oversample, "PCs: extra subspace columns (default 10)");
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) { run_gblup(*opt, *c, log); });
  });
}

}  // namespace pmx::cli
