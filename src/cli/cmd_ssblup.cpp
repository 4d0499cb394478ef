// panoramix ssblup: pedigree BLUP and single-step genomic evaluations (ssGBLUP, ssSNPBLUP,
// ssGTABLUP), univariate or multi-trait, solved by PCG.
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "cli/common.hpp"
#include "panoramix/breeding_records.hpp"
#include "panoramix/error.hpp"
#include "panoramix/frequency_file.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/single_step.hpp"

namespace pmx::cli {
namespace {

struct ssblup_cli {
  std::string ped, pheno, vc, model, freq;
  std::vector<std::string> traits, classes, covariates;
  double w = 0.2, tol = 1e-12, solution_tol = 0;
  int64_t max_iterations = 10000;
  bool allow_unpedigreed = false;
};

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

void run_ssblup(const common_options& o, const ssblup_cli& c, run_log& log) {
  check_output_prefix(o.out);
  const single_step_model model = parse_single_step_model(c.model);
  if (model != single_step_model::pblup && o.bfile.empty())
    throw input_error("--model " + c.model + " needs genotypes: give --bfile");
  // ---- pedigree
  log.begin("read pedigree");
  pedigree_notes notes;
  pedigree ped = read_pedigree_file(c.ped, pedigree_columns::automatic, &notes);
  log.end();
  for (const auto& line : notes.lines) log.message("Note: " + line);
  log.message("--ped " + c.ped + ": " + std::to_string(notes.records) + " records, " +
              std::to_string(ped.size()) + " animals (" + std::to_string(notes.added_founders) +
              " parents added as founders)");
  // ---- records and variance components
  log.begin("read records");
  const breeding_records rec = read_breeding_records(c.pheno, c.traits, c.classes, c.covariates);
  log.end();
  log.message("--pheno " + c.pheno + ": " + std::to_string(rec.size()) + " records used; " +
              std::to_string(rec.skipped_missing_effect) + " left out for a missing class or covariate, " +
              std::to_string(rec.skipped_no_trait) + " without any trait");
  const int t = rec.traits_count();
  const variance_components vc = read_variance_components(c.vc, t);
  // ---- genotypes
  std::unique_ptr<plink_fileset> data;
  packed_genotypes geno;
  single_step_genotypes sg;
  if (!o.bfile.empty() && model != single_step_model::pblup) {
    data = open_input(o, log);
    drop_non_autosomal(*data, chromosomes(o), log);
    if (data->n_variants() == 0) throw input_error(o.bfile + ": no autosomal variants left");
    std::vector<std::string> absent;
    for (int64_t i = 0; i < data->n_samples(); ++i)
      if (ped.find(data->sample(i).iid) == pedigree::unknown) absent.push_back(data->sample(i).iid);
    if (!absent.empty()) {
      std::string list;
      for (size_t i = 0; i < absent.size() && i < 5; ++i) list += (i ? ", " : "") + absent[i];
      if (absent.size() > 5) list += ", ...";
      if (!c.allow_unpedigreed)
        throw input_error(o.bfile + ".fam: " + std::to_string(absent.size()) +
                          " genotyped animal(s) not in the pedigree (" + list +
                          "); add them to --ped or give --allow-unpedigreed to add them as founders");
      std::vector<pedigree_record> pr;
      for (int64_t i = 0; i < ped.size(); ++i)
        pr.push_back({ped.id(i), ped.sire(i) < 0 ? "" : ped.id(ped.sire(i)),
                      ped.dam(i) < 0 ? "" : ped.id(ped.dam(i)), ped.line(i)});
      for (const auto& a : absent) pr.push_back({a, "", "", 0});
      ped = pedigree::from_records(pr, c.ped);
      log.message("--allow-unpedigreed: " + std::to_string(absent.size()) +
                  " genotyped animal(s) added to the pedigree as founders (" + list + ")");
    }
    log.begin("read genotypes");
    geno = data->read_block(0, data->n_variants());
    log.end();
    sg.genotypes = geno.view();
    std::unordered_map<std::string, int64_t> seen;
    for (int64_t i = 0; i < data->n_samples(); ++i) {
      const auto& iid = data->sample(i).iid;
      if (!seen.emplace(iid, i).second)
        throw input_error(o.bfile + ".fam: animal '" + iid + "' is genotyped twice (samples " +
                          std::to_string(seen[iid] + 1) + " and " + std::to_string(i + 1) + ")");
      sg.animals.push_back(ped.index(iid));
    }
    if (!c.freq.empty()) sg.p = read_frequency_file(c.freq, *data);
    sg.w = c.w;
    log.message(std::to_string(sg.animals.size()) + " genotyped animals x " + std::to_string(data->n_variants()) +
                " variants; centring by " + (c.freq.empty() ? "frequencies of the genotyped animals" : "--freq " + c.freq) +
                "; w = " + num(c.w));
  } else if (!o.bfile.empty()) {
    log.message("--bfile ignored: --model pblup uses the pedigree only");
  }
  const executor exec = make_executor(o, log);
  // ---- solve
  single_step_options so;
  so.model = model;
  so.tol = c.tol;
  so.solution_tol = c.solution_tol;
  so.max_iterations = c.max_iterations;
  // PCG history while it runs, in PREFIX.iter.part (a run that is stopped keeps it); the finished
  // PREFIX.iter replaces it.
  struct progress_file {  // removed when this function returns or throws
    std::string path;
    std::FILE* f;
    ~progress_file() {
      if (f) std::fclose(f);
      std::remove(path.c_str());
    }
  } part{o.out + ".iter.part", nullptr};
  part.f = std::fopen(part.path.c_str(), "w");
  if (!part.f) throw io_error("cannot write " + part.path);
  std::fputs("iteration\trelative_residual\tseconds\tgenotype_seconds\tpedigree_seconds\n", part.f);
  so.on_iteration = [&](const pcg_iteration& h, double gs, double ps) {
    std::fprintf(part.f, "%lld\t%.6e\t%.6f\t%.6f\t%.6f\n", static_cast<long long>(h.iteration), h.relative_residual,
                 h.seconds, gs, ps);
    std::fflush(part.f);
  };
  log.begin("solve (" + c.model + ")");
  const single_step_solution s =
      solve_single_step(exec, ped, rec, vc, model == single_step_model::pblup ? nullptr : &sg, so, &log);
  log.end();
  for (const auto& [stage, sec] : s.setup_seconds) log.message("Set-up   " + stage + ": " + num(sec) + " s");
  for (const auto& line : s.notes) log.message("Note: " + line);
  const double per = s.products > 0 ? 1.0 / s.products : 0;
  const double total = s.pcg.history.empty() ? 0 : s.pcg.history.back().seconds;
  log.message(std::to_string(s.unknowns) + " unknowns; PCG " + std::to_string(s.pcg.iterations) +
              " iterations, " + (s.pcg.converged ? "converged" : "NOT converged") +
              ": ||r||^2/||b||^2 = " + num(s.pcg.history.back().relative_residual) + " (recursive), " +
              num(s.pcg.true_relative_residual) + " (recomputed, b - Cx), " +
              (c.solution_tol > 0 ? "--solution-tol " + num(c.solution_tol) : "--tol " + num(c.tol)) + "; " +
              num(total) + " s");
  // What the residual means for the solutions: their estimated relative error (energy norm).
  log.message("Estimated relative error of the solutions: " + num(s.pcg.estimated_error) +
              " (condition number of the preconditioned equations ~ " + num(s.pcg.condition_estimate) + ")");
  if (s.pcg.estimated_error > 1e-4)
    log.message("Note: at this stopping point the solutions (EBVs) are right to about " + num(s.pcg.estimated_error) +
                " relative; other models or programs stopped at the same ||r||^2/||b||^2 agree only to about that."
                " For more digits lower --tol (each factor 100 gives about one digit) or give --solution-tol");
  log.message("Per product (" + std::to_string(s.products) + " made): genotype products " +
              num(s.genotype_seconds * per * 1e3) + " ms, pedigree/A^-1 " + num(s.pedigree_seconds * per * 1e3) +
              " ms, records and rest " + num(s.other_seconds * per * 1e3) + " ms");
  // Per PCG iteration (iterations 1..n: products 1..n, wall time of the iteration loop): the
  // genotype products, the pedigree terms (A^-1, A_gg^-1) and the rest (records, preconditioner,
  // vector updates).
  if (s.pcg.iterations > 0 && s.genotype_seconds_after.size() > static_cast<size_t>(s.pcg.iterations)) {
    const int64_t it = s.pcg.iterations;
    const double wall = s.pcg.history[it].seconds - s.pcg.history[0].seconds;
    const double g = s.genotype_seconds_after[it] - s.genotype_seconds_after[0];
    const double p = s.pedigree_seconds_after[it] - s.pedigree_seconds_after[0];
    log.message("Per iteration (" + std::to_string(it) + "): genotype products " + num(g / it * 1e3) +
                " ms, pedigree (A^-1, A_gg^-1) " + num(p / it * 1e3) + " ms, rest " +
                num((wall - g - p) / it * 1e3) + " ms; total " + num(wall / it * 1e3) + " ms" +
                (exec.kind() == backend::cuda && model == single_step_model::sssnpblup
                     ? " (the GPU's products run while the CPU applies A^-1 or A_gg^-1: the parts may overlap)"
                     : ""));
  }
  // ---- outputs
  log.begin("write");
  output_group out;
  auto& fi = out.add(o.out + ".iter");
  // Cumulative seconds: all, in the genotype products, in the pedigree terms (A^-1, A_gg^-1).
  fi.write("iteration\trelative_residual\tseconds\tgenotype_seconds\tpedigree_seconds\n");
  for (const auto& h : s.pcg.history) {
    const size_t k = static_cast<size_t>(h.iteration);
    fi.printf("%lld\t%.6e\t%.6f\t%.6f\t%.6f\n", static_cast<long long>(h.iteration), h.relative_residual, h.seconds,
              k < s.genotype_seconds_after.size() ? s.genotype_seconds_after[k] : 0.0,
              k < s.pedigree_seconds_after.size() ? s.pedigree_seconds_after[k] : 0.0);
  }
  if (!s.pcg.converged) {
    out.commit_all();
    throw error("PCG did not converge in " + std::to_string(s.pcg.iterations) + " iterations (||r||^2/||b||^2 = " +
                num(s.pcg.history.back().relative_residual) + "); raise --max-iter or --tol. Only " + o.out +
                ".iter was written");
  }
  auto& fs = out.add(o.out + ".sol");
  fs.write("effect\tlevel\ttrait\tvalue\n");
  for (const auto& f : s.fixed)
    fs.printf("%s\t%s\t%s\t%.10g\n", f.effect.c_str(), f.level.empty() ? "-" : f.level.c_str(),
              rec.traits[f.trait].c_str(), f.value);
  auto& fe = out.add(o.out + ".ebv");
  fe.write("ID");
  for (const auto& tr : rec.traits) fe.printf("\t%s", tr.c_str());
  fe.write("\n");
  for (int64_t i = 0; i < ped.size(); ++i) {
    fe.write(ped.id(i));
    for (int k = 0; k < t; ++k) fe.printf("\t%.10g", s.ebv[i * t + k]);
    fe.write("\n");
  }
  if (!s.snp.empty()) {
    auto& fn = out.add(o.out + ".snp");
    fn.write("SNP\tA1\tp");
    for (const auto& tr : rec.traits) fn.printf("\t%s", tr.c_str());
    fn.write("\n");
    for (int64_t j = 0; j < data->n_variants(); ++j) {
      fn.printf("%s\t%s\t%.6f", data->variant(j).id.c_str(), data->variant(j).a1.c_str(), s.p[j]);
      for (int k = 0; k < t; ++k) fn.printf("\t%.10g", s.snp[j * t + k]);
      fn.write("\n");
    }
  }
  out.commit_all();
  log.end();
  log.message("Written: " + o.out + ".sol, .ebv" + (s.snp.empty() ? "" : ", .snp") + ", .iter");
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
  cmd->add_option("--ped", c->ped, "pedigree FILE (animal sire dam)")->required();
  cmd->add_option("--pheno", c->pheno, "records FILE (header; ID first)")->required();
  cmd->add_option("--traits", c->traits, "trait columns (A,B,...)")->required()->delimiter(',');
  cmd->add_option("--class", c->classes, "class (factor) columns (A,B,...)")->delimiter(',');
  cmd->add_option("--covar", c->covariates, "covariate columns (A,B,...)")->delimiter(',');
  cmd->add_option("--vc", c->vc, "variance components FILE (genetic, residual matrices)")->required();
  cmd->add_option("--model", c->model, "pblup|ssgblup|sssnpblup|ssgtablup")
      ->required()
      ->check(CLI::IsMember({"pblup", "ssgblup", "sssnpblup", "ssgtablup"}));
  cmd->add_option("--w", c->w, "share of residual polygenic variance in G~ (default 0.2)");
  cmd->add_option("--tol", c->tol, "PCG stops when ||r||^2/||b||^2 < TOL (default 1e-12)");
  cmd->add_option("--solution-tol", c->solution_tol,
                  "stop instead when the estimated relative error of the solutions is <= E (e.g. 1e-8)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-iter", c->max_iterations, "PCG iteration limit (default 10000)");
  cmd->add_option("--freq", c->freq, "A1 frequencies for centring (PLINK .frq or .afreq), default observed");
  cmd->add_flag("--allow-unpedigreed", c->allow_unpedigreed, "add genotyped animals missing from --ped as founders");
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) { run_ssblup(*opt, *c, log); });
  });
}

}  // namespace pmx::cli
