// panoramix gblup: genomic BLUP with variance components by REML or from a given h².
#include <cmath>

#include "cli/common.hpp"
#include "panoramix/gblup_analysis.hpp"
#include "panoramix/gblup_files.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::cli {
namespace {

struct gblup_cli {
  gblup_analysis_options a;
  std::string method = "standardized", evaluator = "auto";
  double h2 = 0;         // taken only when --h2 was given (h2_given): a NaN is a value to refuse
  bool h2_given = false;
  double add_diagonal = 0;
  bool add_diagonal_given = false;
  bool no_pev = false;
};

void run_gblup(const common_options& o, const gblup_cli& c, run_log& log) {
  gblup_analysis_options a = c.a;
  a.bfile = o.bfile, a.keep = o.keep, a.extract = o.extract;
  a.method = c.method == "vanraden" ? grm_method::vanraden : grm_method::standardized;
  a.nonfounders = o.nonfounders;
  a.chromosomes = chromosomes(o);
  if (c.h2_given) a.h2 = c.h2;
  if (c.add_diagonal_given) a.grm_repair.add_diagonal = c.add_diagonal;
  check_gblup_options(a);  // before the log's first line of work
  a.evaluator = c.evaluator == "eigen"      ? gblup_evaluator_choice::eigen
                : c.evaluator == "cholesky" ? gblup_evaluator_choice::cholesky
                                            : gblup_evaluator_choice::automatic;
  a.pev = !c.no_pev;
  forwarding_analysis_log<run_log> to_log(log);
  const analysis_context ctx = genotype_analysis_context(o, log, to_log, a.chromosomes);
  const gblup_analysis r = run_gblup_analysis(a, ctx);
  log.begin("write");
  output_group out;
  write_gblup(out, o.out, r);
  out.commit_all();
  log.end();
  log.message("Written: " + o.out + ".gebv, " + o.out + ".fixef, " + o.out + ".vc" +
              (r.pcs.pcs > 0 ? ", " + o.out + ".eigenval, " + o.out + ".eigenvec" : ""));
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
      "G must be a covariance matrix: finite, not all zero, positive semi-definite (the Cholesky\n"
      "  factor of G + 1e-6 mean(diag G) I exists). A --grm that is not stops the run (exit 2)\n"
      "  naming the failing leading minor (and, up to 4,000 samples, the smallest eigenvalue),\n"
      "  unless a repair is asked for, which the log reports: --grm-add-diagonal X (G + X I) or\n"
      "  --grm-bend (G = U L U', eigenvalues below 1e-4 x their mean raised to it, then scaled to\n"
      "  keep the trace; one O(n^3) eigendecomposition). A G computed from --bfile with missing\n"
      "  calls (standardized: pairwise counts) can be indefinite: the log notes it and REML keeps\n"
      "  h2 below 1/(1 - smallest eigenvalue); the repairs apply to it too. A NaN/Inf or all-zero G,\n"
      "  a phenotype without variance over the fitted samples, or a constant covariate, is refused.\n"
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
  cmd->add_option("--grm", c->a.grm, "precomputed GRM PREFIX (.grm.bin/.grm.id, GCTA) instead of --bfile");
  cmd->add_option("--pheno", c->a.pheno, "phenotype FILE (FID IID values..., header optional)")->required();
  cmd->add_option("--pheno-name", c->a.pheno_name, "phenotype column by header name");
  cmd->add_option("--mpheno", c->a.mpheno, "phenotype column number (default 1)");
  cmd->add_option("--covar", c->a.covar, "covariate FILE (FID IID values..., header optional)");
  cmd->add_option("--covar-name", c->a.covar_names, "covariate columns by name or number (A,B,...; default all)")
      ->delimiter(',');
  auto* h2 = cmd->add_option("--h2", c->h2, "given heritability in [0, 1) instead of REML");
  cmd->add_flag("--grm-bend", c->a.grm_repair.bend,
                "repair a G that is not positive semi-definite: eigenvalues below 1e-4 x their mean raised "
                "to it, trace kept (logged)");
  auto* add_diagonal = cmd->add_option(
      "--grm-add-diagonal", c->add_diagonal,
      "repair a G that is not positive semi-definite: add X > 0 to its diagonal (logged)");
  cmd->add_flag("--reml", c->a.reml, "estimate the variance components by REML (the default)");
  cmd->add_option("--method", c->method, "GRM: standardized|vanraden (default standardized)")
      ->check(CLI::IsMember({"standardized", "vanraden"}));
  cmd->add_option("--reml-evaluator", c->evaluator,
                  "auto (default: eigen for REML up to 5,000 samples on cpu / 25,000 on cuda, else cholesky) | "
                  "eigen (one eigendecomposition) | cholesky (one factorisation per h2; beyond the auto limit "
                  "Brent without the Newton polish)")
      ->check(CLI::IsMember({"auto", "eigen", "cholesky"}));
  cmd->add_flag("--no-pev", c->no_pev, "skip the prediction error variances (column PEV written as NA)");
  cmd->add_option("--pcs", c->a.pc.pcs, "also write the top N eigenpairs of G (PREFIX.eigenval/.eigenvec)");
  cmd->add_option("--pc-tol", c->a.pc.tolerance,
                  "PCs: Ritz residual bound relative to the largest eigenvalue (default 1e-7)");
  cmd->add_option("--pc-max-iter", c->a.pc.max_iterations, "PCs: filter steps at most (default 500)");
  cmd->add_option("--pc-oversample", c->a.pc.oversample, "PCs: extra subspace columns (default 10)");
  cmd->callback([=, &status] {
    c->h2_given = h2->count() > 0;
    c->add_diagonal_given = add_diagonal->count() > 0;
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      run_gblup(*opt, *c, log);
    });
  });
}

}  // namespace pmx::cli
