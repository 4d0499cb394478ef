// The pedigree / single-step evaluation from files to results (single_step_analysis.hpp).
#include "panoramix/single_step_analysis.hpp"

#include <cstdio>
#include <unordered_map>

#include "panoramix/breeding_records.hpp"
#include "core/checked_number.hpp"
#include "core/number_text.hpp"
#include "panoramix/error.hpp"
#include "panoramix/frequency_file.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 10); }

// Genotyped animals not in the pedigree: an error, or (allow_unpedigreed) added as founders.
void match_genotyped_to_pedigree(const single_step_analysis_options& opt, const genotype_source& data,
                                 pedigree& ped, analysis_log& log) {
  std::vector<std::string> absent;
  for (int64_t i = 0; i < data.n_samples(); ++i)
    if (ped.find(data.sample(i).iid) == pedigree::unknown) absent.push_back(data.sample(i).iid);
  if (absent.empty()) return;
  std::string list;
  for (size_t i = 0; i < absent.size() && i < 5; ++i) list += (i ? ", " : "") + absent[i];
  if (absent.size() > 5) list += ", ...";
  if (!opt.allow_unpedigreed)
    throw input_error(opt.bfile + ".fam: " + std::to_string(absent.size()) +
                      " genotyped animal(s) not in the pedigree (" + list +
                      "); add them to --ped or give --allow-unpedigreed to add them as founders");
  std::vector<pedigree_record> pr;
  for (int64_t i = 0; i < ped.size(); ++i)
    pr.push_back({ped.id(i), ped.sire(i) < 0 ? "" : ped.id(ped.sire(i)),
                  ped.dam(i) < 0 ? "" : ped.id(ped.dam(i)), ped.line(i)});
  for (const auto& a : absent) pr.push_back({a, "", "", 0});
  ped = pedigree::from_records(pr, opt.ped);
  log.message("--allow-unpedigreed: " + std::to_string(absent.size()) +
              " genotyped animal(s) added to the pedigree as founders (" + list + ")");
}

// The log lines that say how the solve went: set-up, convergence, accuracy, time per product and
// per iteration.
void log_solution(const single_step_analysis_options& opt, const executor& exec, const single_step_solution& s,
                  analysis_log& log) {
  for (const auto& [stage, sec] : s.setup_seconds) log.message("Set-up   " + stage + ": " + num(sec) + " s");
  for (const auto& line : s.notes) log.message("Note: " + line);
  const double per = s.products > 0 ? 1.0 / s.products : 0;
  const double total = s.pcg.history.empty() ? 0 : s.pcg.history.back().seconds;
  log.message(std::to_string(s.unknowns) + " unknowns; PCG " + std::to_string(s.pcg.iterations) +
              " iterations, " + (s.pcg.converged ? "converged" : "NOT converged") +
              ": ||r||^2/||b||^2 = " + num(s.pcg.history.back().relative_residual) + " (recursive), " +
              num(s.pcg.true_relative_residual) + " (recomputed, b - Cx), " +
              (opt.solution_tol > 0 ? "--solution-tol " + num(opt.solution_tol) : "--tol " + num(opt.tol)) + "; " +
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
                (exec.on_device() && opt.model == single_step_model::sssnpblup && !s.pcg_on_device
                     ? " (the GPU's products run while the CPU applies A^-1 or A_gg^-1: the parts may overlap)"
                     : ""));
  }
}

}  // namespace

void check_single_step_options(const single_step_analysis_options& o) {
  using detail::number_range;
  detail::require_number(o.w, "--w", number_range::closed(0, 1));
  detail::require_number(o.tol, "--tol", number_range::above(0));
  detail::require_number(o.solution_tol, "--solution-tol", number_range::at_least(0));
  detail::require_integer(o.max_iterations, "--max-iter", 1);
}

single_step_analysis run_single_step_analysis(const single_step_analysis_options& opt,
                                              const analysis_context& ctx) {
  null_analysis_log quiet;
  analysis_log& log = ctx.log ? *ctx.log : quiet;
  check_single_step_options(opt);
  const std::string model = model_name(opt.model);
  if (opt.model != single_step_model::pblup && opt.bfile.empty())
    throw input_error("--model " + model + " needs genotypes: give --bfile");
  single_step_analysis res;
  // ---- pedigree
  log.begin("read pedigree");
  pedigree_notes notes;
  res.ped = read_pedigree_file(opt.ped, pedigree_columns::automatic, &notes);
  log.end();
  pedigree& ped = res.ped;
  for (const auto& line : notes.lines) log.message("Note: " + line);
  log.message("--ped " + opt.ped + ": " + std::to_string(notes.records) + " records, " +
              std::to_string(ped.size()) + " animals (" + std::to_string(notes.added_founders) +
              " parents added as founders)");
  // ---- records and variance components
  log.begin("read records");
  const breeding_records rec = read_breeding_records(opt.pheno, opt.traits, opt.classes, opt.covariates);
  log.end();
  log.message("--pheno " + opt.pheno + ": " + std::to_string(rec.size()) + " records used; " +
              std::to_string(rec.skipped_missing_effect) + " left out for a missing class or covariate, " +
              std::to_string(rec.skipped_no_trait) + " without any trait");
  const variance_components vc = read_variance_components(opt.vc, rec.traits_count());
  // ---- genotypes
  packed_genotypes geno;
  single_step_genotypes sg;
  if (!opt.bfile.empty() && opt.model != single_step_model::pblup) {
    if (!ctx.open_genotypes) throw logic_error("run_single_step_analysis: the context opens no genotypes");
    res.genotypes = ctx.open_genotypes();
    const genotype_source& data = *res.genotypes;
    if (data.n_variants() == 0) throw input_error(opt.bfile + ": no autosomal variants left");
    match_genotyped_to_pedigree(opt, data, ped, log);
    log.begin("read genotypes");
    geno = data.read_block(0, data.n_variants());
    log.end();
    sg.genotypes = geno.view();
    std::unordered_map<std::string, int64_t> seen;
    for (int64_t i = 0; i < data.n_samples(); ++i) {
      const auto& iid = data.sample(i).iid;
      if (!seen.emplace(iid, i).second)
        throw input_error(opt.bfile + ".fam: animal '" + iid + "' is genotyped twice (samples " +
                          std::to_string(seen[iid] + 1) + " and " + std::to_string(i + 1) + ")");
      sg.animals.push_back(ped.index(iid));
    }
    if (!opt.freq.empty()) sg.p = read_frequency_file(opt.freq, data);
    sg.w = opt.w;
    log.message(std::to_string(sg.animals.size()) + " genotyped animals x " + std::to_string(data.n_variants()) +
                " variants; centring by " + (opt.freq.empty() ? "frequencies of the genotyped animals" : "--freq " + opt.freq) +
                "; w = " + num(opt.w));
  } else if (!opt.bfile.empty()) {
    log.message("--bfile ignored: --model pblup uses the pedigree only");
  }
  if (!ctx.make_executor) throw logic_error("run_single_step_analysis: the context makes no executor");
  const executor exec = ctx.make_executor();
  // ---- solve
  single_step_options so;
  so.model = opt.model;
  so.tol = opt.tol;
  so.solution_tol = opt.solution_tol;
  so.max_iterations = opt.max_iterations;
  so.on_iteration = opt.on_iteration;
  log.begin("solve (" + model + ")");
  res.solution = solve_single_step(exec, ped, rec, vc, opt.model == single_step_model::pblup ? nullptr : &sg, so, &log);
  log.end();
  log_solution(opt, exec, res.solution, log);
  res.traits = rec.traits;
  return res;
}

}  // namespace pmx
