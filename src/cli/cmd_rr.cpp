// panoramix rr: ridge regression GWAS (the KRR paper's §V-A): β = (X'X + λI)⁻¹ X'Y.
#include "cli/common.hpp"
#include "cli/solver_options.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/rr_analysis.hpp"
#include "panoramix/rr_files.hpp"

namespace pmx::cli {
namespace {

struct rr_cli {
  rr_analysis_options a;
  solver_flags solver;
};

void run_rr(const common_options& o, const rr_cli& c, run_log& log) {
  check_common_options(o);
  rr_analysis_options a = c.a;
  a.bfile = o.bfile, a.extract = o.extract;
  a.open_predict = predict_reader(o, log);
  a.chromosomes = chromosomes(o);
  a.solve = solver_options(c.solver, a.solve);
  check_rr_options(a);  // before reading anything
  forwarding_analysis_log<run_log> to_log(log);
  const analysis_context ctx = genotype_analysis_context(o, log, to_log, a.chromosomes);
  const rr_analysis r = run_rr_analysis(a, ctx);
  log.begin("write");
  output_group out;
  const std::string names = write_rr(out, o.out, r);
  out.commit_all();
  log.end();
  log.message("Written: " + names);
}

}  // namespace

void add_rr_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto c = std::make_shared<rr_cli>();
  auto* cmd = app.add_subcommand("rr", "ridge regression: SNP effects for many phenotypes, predictions");
  cmd->footer(
      "Model: beta = (X'X + lambda I)^-1 X'Y, one column of Y per phenotype, centred on its mean over\n"
      "  the fitted training samples; X = [Z | C]: Z the A1 dosages centred by 2p (p = A1 frequency\n"
      "  over every --bfile sample; a missing call is 0, i.e. imputed at 2p), C the --covar columns\n"
      "  standardised on the fitted samples (scikit-learn's Ridge(alpha=lambda, fit_intercept=False)\n"
      "  on that X and Y). Predictions for TEST = X_test beta + the training means (TEST centred\n"
      "  with the training p). X'X: exact integer genotype crossproducts plus the centring terms.\n"
      "Fitted samples: those with every phenotype (and covariate); X/Y/MT variants are dropped.\n"
      "--predict TEST: genotypes with the training variants (same IDs, order and alleles; other\n"
      "  variants of TEST are ignored), in any format as krr's --predict. TEST samples found in\n"
      "  --pheno give PREFIX.eval.\n"
      "Precision of the solve (krr's): fp64 (LAPACK / cuSOLVER Cholesky), fp32 (tile Cholesky in\n"
      "  FP32), adaptive (off-diagonal tiles at FP8/BF16/FP16/FP32 by --tile-accuracy); fp32 and\n"
      "  adaptive refine in FP64 (--refinement: classical steps, then GMRES-IR) to --accuracy\n"
      "  (backward error), or are redone in fp64 with a warning.\n"
      "Outputs: PREFIX.beta (ID A1 then beta per phenotype; covariates after the variants, by name),\n"
      "  PREFIX.pred (FID IID per phenotype), PREFIX.eval (trait n mspe pearson_r), PREFIX.precision\n"
      "  (tile map of fp32/adaptive), PREFIX.log.\n"
      "Example: panoramix rr --bfile train --pheno y.txt --all-pheno --lambda 100 --predict test --out y");
  add_common_options(cmd, *opt, true);
  cmd->add_option("--pheno", c->a.pheno, "phenotype FILE (FID IID values..., header optional)")->required();
  cmd->add_option("--pheno-name", c->a.pheno_names, "phenotype columns by name or number (A,B,...)")->delimiter(',');
  cmd->add_flag("--all-pheno", c->a.all_pheno, "every column of --pheno");
  cmd->add_option("--covar", c->a.covar, "covariate FILE (standardised columns of X after the variants)");
  cmd->add_option("--covar-name", c->a.covar_names, "covariate columns by name or number (default all)")
      ->delimiter(',');
  cmd->add_option("--lambda", c->a.lambda, "ridge added to the diagonal of X'X (>= 0)")->required();
  cmd->add_option("--predict", c->a.predict, "TEST genotypes: PREFIX (.bed or .pgen), FILE.vcf[.gz], FILE.bcf or FILE.bgen");
  add_solver_options(cmd, c->solver, c->a.solve);
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) { run_rr(*opt, *c, log); });
  });
}

}  // namespace pmx::cli
