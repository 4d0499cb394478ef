// panoramix ssblup: pedigree BLUP and single-step genomic evaluations (ssGBLUP, ssSNPBLUP,
// ssGTABLUP), univariate or multi-trait, solved by PCG.
#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/single_step_analysis.hpp"
#include "panoramix/single_step_files.hpp"

namespace pmx::cli {
namespace {

struct ssblup_cli {
  single_step_analysis_options a;
  std::string model;
};

void run_ssblup(const common_options& o, const ssblup_cli& c, run_log& log) {
  single_step_analysis_options a = c.a;
  a.model = parse_single_step_model(c.model);
  a.bfile = o.bfile;
  check_single_step_options(a);  // before the log's first line of work
  // PCG history while it runs, in PREFIX.iter.part (a run that is stopped keeps it); the finished
  // PREFIX.iter replaces it.
  pcg_progress_file part(o.out);
  a.on_iteration = [&](const pcg_iteration& h, double gs, double ps) { part.add(h, gs, ps); };
  forwarding_analysis_log<run_log> to_log(log);
  const analysis_context ctx = genotype_analysis_context(o, log, to_log, chromosomes(o));
  const single_step_analysis r = run_single_step_analysis(a, ctx);
  log.begin("write");
  output_group out;
  write_single_step(out, o.out, r, o.threads);
  out.commit_all();
  if (!r.solution.pcg.converged) throw error(single_step_not_converged(r, o.out));
  log.end();
  log.message("Written: " + o.out + ".sol, .ebv" + (r.solution.snp.empty() ? "" : ", .snp") + ", .iter");
}

}  // namespace

void add_ssblup_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto c = std::make_shared<ssblup_cli>();
  auto* cmd = app.add_subcommand("ssblup", "pedigree BLUP and single-step genomic BLUP (PCG), 1 or more traits");
  cmd->footer(
      "Model: y = Xb + Wg + e, Var(g) = H (x) G0, Var(e) = R0 per record (observed traits only),\n"
      "  H = A (pblup) or the single-step H with G~ = (1-w)G + wA_gg, G = ZZ'/(2 sum p(1-p))\n"
      "  (VanRaden 1; Z centred by the A1 frequencies of the genotyped animals or --freq; missing\n"
      "  calls 0). Models (the genomic ones give the same EBVs):\n"
      "  pblup      A^-1 only (no --bfile needed)\n"
      "  ssgblup    explicit dense G~^-1 - A_gg^-1 (k_g x k_g: small/medium data)\n"
      "  sssnpblup  Liu et al. 2014: SNP effects as extra unknowns (PREFIX.snp), needs 0 < w < 1\n"
      "  ssgtablup  Woodbury form of G~^-1; set-up forms and factorises Z'A_gg^-1 Z (k_snp^2)\n"
      "Inputs:\n"
      "  --ped     animal sire dam (as `panoramix pedigree`)\n"
      "  --pheno   header line, then one record per line: ID (first column) and the columns named\n"
      "            by --traits/--class/--covar (comma or whitespace separated; NA, '.' or empty =\n"
      "            missing). A record with a missing class/covariate or no trait is left out\n"
      "            (counted in the log). A record of an animal not in --ped is an error.\n"
      "  --vc      line 'genetic', t rows of G0; line 'residual', t rows of R0 (t = traits)\n"
      "  --bfile   genotyped animals matched by .fam IID to pedigree IDs; an animal not in --ped\n"
      "            is an error unless --allow-unpedigreed (added as a founder). X/Y/MT dropped.\n"
      "Fixed effects per trait: intercept, class effects (levels sorted, numerically when all are\n"
      "  numbers; the first level with a record of the trait is set to 0, the constraint; levels\n"
      "  without a record of the trait are dropped, logged), covariate slopes.\n"
      "PCG: block-diagonal preconditioner (t x t per animal and SNP, dense block for the fixed\n"
      "  effects); stops when ||r||^2/||b||^2 < --tol (Euclidean norms of the residual and the\n"
      "  right-hand side, squared; BLUPF90's criterion). The log also gives the recomputed\n"
      "  ||b - Cx||^2/||b||^2 and the estimated relative error of the solutions, k sqrt(r'M^-1r /\n"
      "  b'M^-1b) with k the condition number of M^-1 C estimated from PCG's coefficients: the\n"
      "  number of right digits. --solution-tol E stops on that estimate instead (E = 1e-8 gives\n"
      "  EBVs that agree between the genomic models to about 1e-8). The default --tol 1e-12 can leave\n"
      "  EBV errors of 1e-4 relative or more (the log says how much).\n"
      "Outputs: PREFIX.sol (effect level trait value; reference levels 0), PREFIX.ebv (ID + one\n"
      "  column per trait, every pedigree animal, in the pedigree's parents-first order as\n"
      "  `panoramix pedigree` writes PREFIX.ids), PREFIX.snp (sssnpblup: SNP A1 p + effects),\n"
      "  PREFIX.iter (iteration, relative residual, cumulative seconds: all, genotype products,\n"
      "  pedigree terms), PREFIX.log (set-up stages; per-iteration split). Without convergence\n"
      "  the run fails and only PREFIX.iter is written. While PCG runs, PREFIX.iter.part holds\n"
      "  the history so far (left behind only by a run that was stopped).\n"
      "Example: panoramix ssblup --ped herd.ped --bfile geno --pheno herd.pheno --traits milk,fat\n"
      "         --class herd,lact --covar dim --vc herd.vc --model sssnpblup --w 0.2 --out ev");
  add_common_options(cmd, *opt, true);
  cmd->get_option("--bfile")->required(false);
  cmd->add_option("--ped", c->a.ped, "pedigree FILE (animal sire dam)")->required();
  cmd->add_option("--pheno", c->a.pheno, "records FILE (header; ID first)")->required();
  cmd->add_option("--traits", c->a.traits, "trait columns (A,B,...)")->required()->delimiter(',');
  cmd->add_option("--class", c->a.classes, "class (factor) columns (A,B,...)")->delimiter(',');
  cmd->add_option("--covar", c->a.covariates, "covariate columns (A,B,...)")->delimiter(',');
  cmd->add_option("--vc", c->a.vc, "variance components FILE (genetic, residual matrices)")->required();
  cmd->add_option("--model", c->model, "pblup|ssgblup|sssnpblup|ssgtablup")
      ->required()
      ->check(CLI::IsMember({"pblup", "ssgblup", "sssnpblup", "ssgtablup"}));
  cmd->add_option("--w", c->a.w, "share of residual polygenic variance in G~ (default 0.2)");
  cmd->add_option("--tol", c->a.tol, "PCG stops when ||r||^2/||b||^2 < TOL (default 1e-12)");
  cmd->add_option("--solution-tol", c->a.solution_tol,
                  "stop instead when the estimated relative error of the solutions is <= E (e.g. 1e-8)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-iter", c->a.max_iterations, "PCG iteration limit (default 10000)");
  cmd->add_option("--freq", c->a.freq, "A1 frequencies for centring (PLINK .frq or .afreq), default observed");
  cmd->add_flag("--allow-unpedigreed", c->a.allow_unpedigreed, "add genotyped animals missing from --ped as founders");
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      run_ssblup(*opt, *c, log);
    });
  });
}

}  // namespace pmx::cli
