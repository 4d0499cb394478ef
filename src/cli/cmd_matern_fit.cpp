// panoramix matern-fit: ML/REML estimates of the Matérn mixed model on genotype distances and the
// BLUP of the genetic values (thesis chapter 5).
#include <cmath>

#include "cli/cmd_matern.hpp"
#include "cli/common.hpp"
#include "core/number_text.hpp"
#include "panoramix/matern_fit_analysis.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::cli {
namespace {

struct matern_fit_cli {
  common_options common;
  matern_fit_analysis_options a;
  bool ml = false, reml = false;
  double fix_nu = 0;
};

std::string num(double v) { return detail::number_text(v, 17, "NA"); }

void write_outputs(const std::string& prefix, const matern_fit_analysis& r) {
  const matern_fit_result& f = r.fit;
  output_group out;
  auto& fit = out.add(prefix + ".fit");
  fit.write("parameter\testimate\tse\n");
  const double est[4] = {f.params.sigma2, f.params.rho, f.params.nu, f.sigma2_e};
  const char* names[4] = {"sigma2", "rho", "nu", "sigma2_e"};
  for (int k = 0; k < 4; ++k) fit.printf("%s\t%s\t%s\n", names[k], num(est[k]).c_str(), num(f.se[k]).c_str());
  for (size_t a = 0; a < f.beta.size(); ++a)
    fit.printf("beta_%s\t%s\t%s\n", r.fixed_effects[a].c_str(), num(f.beta[a]).c_str(), num(f.beta_se[a]).c_str());
  fit.printf("logL\t%s\tNA\niterations\t%d\tNA\nconverged\t%d\tNA\n", num(f.logL).c_str(), f.iterations,
             f.converged ? 1 : 0);
  auto& blup = out.add(prefix + ".blup");
  blup.write("FID\tIID\tBLUP\n");
  for (size_t i = 0; i < r.fid.size(); ++i)
    blup.printf("%s\t%s\t%s\n", r.fid[i].c_str(), r.iid[i].c_str(), num(r.blup[i]).c_str());
  out.commit_all();
}

}  // namespace

void add_matern_fit_command(CLI::App& app, int argc, char** argv, int& status) {
  auto c = std::make_shared<matern_fit_cli>();
  auto* cmd = app.add_subcommand("matern-fit", "ML/REML fit of the Matern mixed model on genotype distances");
  cmd->footer(
      "Model: y = Xb + g + e, Cov(g) = C(D; sigma2, rho, nu) (the Matern covariance of `matern`) on the\n"
      "samples' genotype distances (--standardize: VanRaden GRM units), e ~ N(0, sigma2_e I);\n"
      "X = intercept + covariates. Samples are matched by FID and IID; those with a missing phenotype\n"
      "or covariate are left out of the fit but get a BLUP.\n"
      "Estimation: Fisher scoring on the log parameters with the analytic dC/dsigma2, dC/drho, dC/dnu\n"
      "(the information matrix refined by BFGS updates from the exact scores), b by GLS, step halving\n"
      "when logL decreases; converged when the Fisher step moves no log parameter by --tol. A variance\n"
      "going to 0 or nu to infinity (150) stops the fit with a named error (fix nu).\n"
      "  --reml (default) REML; --ml maximum likelihood. --fix-nu V keeps nu at V.\n"
      "  SEs from the expected (Fisher) information, by the delta method from the log scale; those of\n"
      "  b from (X'V^-1 X)^-1.\n"
      "logL: ML -1/2[n log 2pi + log|V| + r'V^-1 r]; REML -1/2[(n-p) log 2pi + log|V| + log|X'V^-1 X|\n"
      "      + r'V^-1 r], r = y - Xb (matern.hpp).\n"
      "Outputs: PREFIX.fit (parameter estimate se: sigma2 rho nu sigma2_e beta_*, then logL, iterations,\n"
      "         converged), PREFIX.blup (FID IID BLUP, every genotyped sample: C(h_i,fit) V^-1 (y - Xb)).\n"
      "Example: panoramix matern-fit --bfile mice --pheno bw.txt --pheno-name BW --standardize --out bw");
  add_common_options(cmd, c->common, true);
  cmd->add_option("--pheno", c->a.pheno, "phenotype FILE (FID IID values..., header optional)")->required();
  cmd->add_option("--pheno-name", c->a.pheno_name, "phenotype column by name or number (default 1)");
  cmd->add_option("--covar", c->a.covar, "covariate FILE (FID IID values..., header optional)");
  cmd->add_option("--covar-name", c->a.covar_names, "covariate columns by name or number (A,B,...; default all)")
      ->delimiter(',');
  cmd->add_flag("--ml", c->ml, "maximum likelihood");
  cmd->add_flag("--reml", c->reml, "restricted maximum likelihood (the default)");
  auto* fix_nu = cmd->add_option("--fix-nu", c->fix_nu, "keep nu at this value (0 < nu <= 150)");
  cmd->add_flag("--standardize", c->a.standardize, "genotype distances in VanRaden GRM units");
  cmd->add_option("--tol", c->a.fit.tolerance, "largest log-parameter step at convergence (default 1e-8)");
  cmd->add_option("--max-iter", c->a.fit.max_iterations, "scoring iterations at most (default 200)");
  cmd->callback([c, fix_nu, argc, argv, &status] {
    status = run_command(c->common.out, argc, argv, [&](run_log& log) {
      check_common_options(c->common);
      if (c->ml && c->reml) throw input_error("give at most one of --ml and --reml");
      c->a.fit.criterion = c->ml ? matern_criterion::ml : matern_criterion::reml;
      if (fix_nu->count() > 0) c->a.fit.fixed_nu = c->fix_nu;
      check_matern_fit_options(c->a);  // before any file is read
      if (c->common.bfile.empty()) throw input_error("--bfile/--vcf/--bcf is required");
      check_output_prefix(c->common.out);
      forwarding_analysis_log<run_log> to_log(log);
      // The genotypes as `matern` reads them (every chromosome), so the distances are the same.
      const analysis_context ctx{.log = &to_log,
                                 .make_executor = [&] { return make_executor(c->common, log); },
                                 .open_genotypes = [&]() -> std::unique_ptr<genotype_source> {
                                   return open_input(c->common, log);
                                 }};
      const matern_fit_analysis r = run_matern_fit_analysis(c->a, ctx);
      log.begin("write");
      write_outputs(c->common.out, r);
      log.end();
      log.message("Written: " + c->common.out + ".fit, " + c->common.out + ".blup");
    });
  });
}

}  // namespace pmx::cli
