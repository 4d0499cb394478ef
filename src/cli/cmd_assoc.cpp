// panoramix assoc: genome-wide association (plink2 --glm's regressions, GEMMA -lmm 1's mixed model;
// issue #23).
#include "cli/common.hpp"
#include "panoramix/association_analysis.hpp"
#include "panoramix/association_files.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::cli {
namespace {

struct assoc_cli {
  association_options a;
  bool glm = false, hide_covar = false;
};

void run_assoc(const common_options& o, const assoc_cli& c, run_log& log) {
  check_common_options(o);
  check_association_options(c.a);  // before reading anything
  if (c.glm == c.a.lmm)
    throw input_error(c.glm ? "--glm and --lmm are separate runs: give one"
                            : "say which test: --glm (regression, as plink2 --glm) or --lmm (mixed model, as GEMMA -lmm 1)");
  if (c.a.lmm && c.hide_covar) throw input_error("--hide-covar is a --glm flag (--lmm writes only the variant's test)");
  association_options a = c.a;
  a.chromosomes = chromosomes(o);
  forwarding_analysis_log<run_log> to_log(log);
  const analysis_context ctx = genotype_analysis_context(o, log, to_log, a.chromosomes, true);
  const association_analysis r = run_association_analysis(a, ctx);
  log.begin("write");
  output_group out;
  const std::string names = write_association(out, o.out, r, c.hide_covar);
  out.commit_all();
  log.end();
  log.message("Written: " + names);
}

}  // namespace

void add_assoc_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto c = std::make_shared<assoc_cli>();
  auto* cmd = app.add_subcommand("assoc", "genome-wide association: linear regression per variant (plink2 --glm)");
  cmd->footer(
      "Model (--glm, quantitative phenotypes): for each variant, over the samples with the phenotype,\n"
      "  every covariate and a call there, y = b0 + b1 x + covariates + e by least squares; x counts\n"
      "  A1, plink2's nonmajor allele (ALT unless its founder frequency is above 1/2). One file per\n"
      "  phenotype: PREFIX.<trait>.glm.linear with plink2's columns #CHROM POS ID REF ALT A1 TEST\n"
      "  OBS_CT BETA SE T_STAT P ERRCODE (ADD, then each covariate unless --hide-covar); NA rows name\n"
      "  CONST_OMITTED_ALLELE, CORR_TOO_HIGH (|r| > 0.999 between predictors), VIF_TOO_HIGH (> 50).\n"
      "  Chromosome X as plink2: SEX (1 male, 2 female) is the last covariate there when both sexes\n"
      "  are present (samples of unknown sex are left out of X's regressions); Y and MT are not tested.\n"
      "Model (--lmm, every phenotype as quantitative): GEMMA -lmm 1. Over the samples with the phenotype,\n"
      "  every covariate and a row of K: y = W a + x b + g + e, g ~ N(0, vg K), e ~ N(0, ve I); x counts\n"
      "  ALT with missing calls mean-imputed; lambda = vg/ve by REML per variant (GEMMA's search on\n"
      "  [1e-5, 1e5]), then the Wald test of b. K: --grm PREFIX (GCTA .grm.bin/.grm.id, matched by\n"
      "  FID IID) or the standardized GRM of the genotypes (as `grm`). --lmm-null: the null model's\n"
      "  lambda for every variant (EMMAX style). --loco: the variants of each chromosome under the GRM\n"
      "  of the other chromosomes. PREFIX.<trait>.lmm: #CHROM POS ID REF ALT A1 A1_FREQ MISS_CT OBS_CT\n"
      "  BETA SE LOGL_H1 LAMBDA P ERRCODE (CONST_GENOTYPE; CORR_WITH_COVAR: r2 on the covariates > 0.9999).\n"
      "Examples: panoramix assoc --bfile data --pheno y.txt --covar pcs.txt --glm --out gwas\n"
      "          panoramix assoc --bfile data --pheno y.txt --lmm --loco --out gwas");
  add_common_options(cmd, *opt, true);
  cmd->add_option("--pheno", c->a.pheno, "phenotype FILE (FID IID values..., header optional)")->required();
  cmd->add_option("--pheno-name", c->a.pheno_names, "phenotype columns by name or number (default all)")
      ->delimiter(',');
  cmd->add_option("--covar", c->a.covar, "covariate FILE (FID IID values..., header optional)");
  cmd->add_option("--covar-name", c->a.covar_names, "covariate columns by name or number (default all)")
      ->delimiter(',');
  cmd->add_flag("--covar-variance-standardize", c->a.covar_variance_standardize,
                "scale each covariate to mean 0, variance 1 (plink2's flag)");
  cmd->add_flag("--glm", c->glm, "linear regression per variant (quantitative phenotypes)");
  cmd->add_flag("--lmm", c->a.lmm, "exact mixed model per variant (GEMMA -lmm 1)");
  cmd->add_flag("--lmm-null", c->a.lmm_fit.null_lambda, "--lmm with the null model's lambda for every variant");
  cmd->add_flag("--loco", c->a.loco, "--lmm: each chromosome under the GRM of the others");
  cmd->add_option("--grm", c->a.grm, "--lmm: relationship matrix PREFIX (GCTA .grm.bin/.grm.id)");
  cmd->add_flag("--hide-covar", c->hide_covar, "write only the ADD rows (plink2 --glm hide-covar)");
  cmd->callback(
      [=, &status] { status = run_command(opt->out, argc, argv, [&](run_log& log) { run_assoc(*opt, *c, log); }); });
}

}  // namespace pmx::cli
