// panoramix krr: kernel ridge regression GWAS (Build, Associate, Predict of the KRR paper).
#include "cli/common.hpp"
#include "cli/solver_options.hpp"
#include "panoramix/krr_analysis.hpp"
#include "panoramix/krr_files.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::cli {
namespace {

struct krr_cli {
  krr_analysis_options a;
  std::string kernel = "gaussian";
  std::string kernel_on = "auto";
  solver_flags solver;
};

void run_krr(const common_options& o, const krr_cli& c, run_log& log) {
  check_common_options(o);
  krr_analysis_options a = c.a;
  a.bfile = o.bfile, a.extract = o.extract;
  a.open_predict = predict_reader(o, log);
  a.chromosomes = chromosomes(o);
  a.kernel = c.kernel == "ibs" ? kernel_type::ibs : kernel_type::gaussian;
  a.solve = solver_options(c.solver, a.solve);
  a.kernel_on = c.kernel_on == "host" ? kernel_residence::host
                : c.kernel_on == "device" ? kernel_residence::device : kernel_residence::automatic;
  check_krr_options(a);  // before reading anything
  forwarding_analysis_log<run_log> to_log(log);
  const analysis_context ctx = genotype_analysis_context(o, log, to_log, a.chromosomes);
  const krr_analysis r = run_krr_analysis(a, ctx);
  if (communicator::world().rank() != 0) return;  // over ranks every rank has the results: rank 0 writes
  log.begin("write");
  output_group out;
  const std::string names = write_krr(out, o.out, r);
  out.commit_all();
  log.end();
  log.message("Written: " + names);
}

}  // namespace

void add_krr_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto c = std::make_shared<krr_cli>();
  auto* cmd = app.add_subcommand("krr", "kernel ridge regression: weights for many phenotypes, predictions");
  cmd->footer(
      "Model: (K + alpha I) W = Y, Y = phenotypes centred on their training means (one column each);\n"
      "  predictions for TEST = K_test,train W + the training means.\n"
      "Kernels (missing calls imputed at 2p, p = A1 frequency over every --bfile sample):\n"
      "  gaussian  K_ij = exp(-gamma (||g_i - g_j||^2 + ||c_i - c_j||^2)), c = --covar columns\n"
      "            standardised on the fitted samples (scikit-learn's KernelRidge(kernel='rbf'))\n"
      "  ibs       K_ij = sum over variants of (2 - |g_i - g_j|) / (2 N_S) (no covariates)\n"
      "Fitted samples: those with every phenotype (and covariate); X/Y/MT variants are dropped.\n"
      "--predict TEST: genotypes with the training variants (same IDs, order and alleles; other\n"
      "  variants of TEST are ignored): a PLINK PREFIX (.bed, else .pgen), PREFIX.bed, PREFIX.pgen,\n"
      "  FILE.vcf[.gz], FILE.bcf or FILE.bgen (read with the same VCF/BGEN import flags as the\n"
      "  training genotypes). TEST samples found in --pheno give PREFIX.eval.\n"
      "Precision of the solve:\n"
      "  fp64      LAPACK / cuSOLVER Cholesky\n"
      "  fp32      tile Cholesky in FP32, then FP64 refinement to --accuracy (backward error)\n"
      "  adaptive  off-diagonal tile (i,j) at the least precise of FP8 (E4M3) / BF16 / FP16 / FP32\n"
      "            with ||A_ij||_F NT / ||A||_F < --tile-accuracy / u, then FP64 refinement; a solve\n"
      "            that cannot reach --accuracy is redone in fp64, with a warning in the log.\n"
      "  Refinement (--refinement): classical W += M^-1 r while each step gains 10x, then GMRES-IR\n"
      "  (GMRES in FP64 preconditioned by the low-precision factor M), which copes with far less\n"
      "  accurate factors (Carson & Higham).\n"
      "  On the CPU the low precisions are emulated (same numbers, no speed-up).\n"
      "--cv K: the fitted samples dealt into K folds (seeded shuffle); for every (gamma, alpha) of\n"
      "  --gamma-grid x --alpha-grid each fold is predicted from the others (phenotypes centred on\n"
      "  them); each phenotype is then fitted with its (gamma, alpha) of least pooled CV MSPE.\n"
      "  PREFIX.cv: trait gamma alpha n mspe pearson_r chosen (one line per trait and grid point).\n"
      "Outputs: PREFIX.weights (FID IID W per phenotype), PREFIX.pred, PREFIX.eval (trait n mspe\n"
      "  pearson_r), PREFIX.precision (tile map of fp32/adaptive), PREFIX.log.\n"
      "Over several processes: mpirun -np N panoramix krr ... splits the variants of the Gram\n"
      "  matrix over N ranks, each rank keeps its rows; K's tile-cyclic columns are made where those\n"
      "  rows lie and sent to their ranks, and (K + alpha I) W = Y (every --cv fold too) is solved\n"
      "  over the ranks (the tile Cholesky over GPUs with --device cuda, one each; ScaLAPACK on CPUs).\n"
      "Example: panoramix krr --bfile train --pheno y.txt --all-pheno --gamma 1e-4 --alpha 1\n"
      "           --predict test --out y");
  add_common_options(cmd, *opt, true);
  cmd->add_option("--pheno", c->a.pheno, "phenotype FILE (FID IID values..., header optional)")->required();
  cmd->add_option("--pheno-name", c->a.pheno_names, "phenotype columns by name or number (A,B,...)")->delimiter(',');
  cmd->add_flag("--all-pheno", c->a.all_pheno, "every column of --pheno");
  cmd->add_option("--covar", c->a.covar, "covariate FILE (Gaussian kernel: added to the distances)");
  cmd->add_option("--covar-name", c->a.covar_names, "covariate columns by name or number (default all)")
      ->delimiter(',');
  cmd->add_option("--kernel", c->kernel, "gaussian|ibs (default gaussian)")->check(CLI::IsMember({"gaussian", "ibs"}));
  cmd->add_option("--gamma", c->a.gamma, "Gaussian kernel bandwidth (> 0)");
  cmd->add_option("--alpha", c->a.alpha, "ridge added to the diagonal (>= 0)");
  cmd->add_option("--cv", c->a.cv.folds, "K-fold cross-validation of (gamma, alpha) per phenotype (K >= 2) -> PREFIX.cv");
  cmd->add_option("--gamma-grid", c->a.cv.gamma_grid, "--cv: gammas to try (G1,G2,...; default --gamma)")->delimiter(',');
  cmd->add_option("--alpha-grid", c->a.cv.alpha_grid, "--cv: alphas to try (A1,A2,...; default --alpha)")->delimiter(',');
  cmd->add_option("--cv-seed", c->a.cv.seed, "--cv: seed of the fold assignment (default 1)");
  cmd->add_option("--predict", c->a.predict, "TEST genotypes: PREFIX (.bed or .pgen), FILE.vcf[.gz], FILE.bcf or FILE.bgen");
  cmd->add_option("--kernel-on", c->kernel_on,
                  "auto|host|device: where K lives (auto: device memory with --device cuda, the Gaussian kernel, "
                  "no --cv, fp32/adaptive and no missing calls; else the host)")
      ->check(CLI::IsMember({"auto", "host", "device"}));
  add_solver_options(cmd, c->solver, c->a.solve);
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) { run_krr(*opt, *c, log); }, /*splits_over_ranks=*/true);
  });
}

}  // namespace pmx::cli
