// panoramix pca: principal components of the standardised GRM (PLINK 1.9 --pca).
#include <cstdio>

#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pca.hpp"
#include "panoramix/pca_files.hpp"

namespace pmx::cli {

void add_pca_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto pca = std::make_shared<pca_options>();
  auto missing = std::make_shared<std::string>("plink");
  auto* cmd = app.add_subcommand("pca", "principal components of the standardised GRM (PLINK --pca)");
  cmd->footer(
      "Matrix: the standardised GRM of `panoramix grm` (PLINK --make-rel): z = (x-2p)/sqrt(2p(1-p)),\n"
      "  p from founders, G_ij = sum of z_i z_j over the N_ij variants called in both, divided by N_ij.\n"
      "  Variants on X, Y and MT are dropped (as PLINK does).\n"
      "Methods:\n"
      "  default  randomized block subspace iteration (Halko-Martinsson-Tropp) on the 2-bit data with\n"
      "           Rayleigh-Ritz; stops when every Ritz residual |G u - t u| <= --tol x largest eigenvalue.\n"
      "           Never forms the n x n matrix. Missing calls (--missing plink): the pairwise division\n"
      "           by N_ij is applied exactly (a series in per-sample missing counts plus a sparse term\n"
      "           for pairs sharing a missing call), so results equal PLINK 1.9's; refused when too many\n"
      "           pairs share missing calls. --missing impute: G = ZZ'/k with missing calls at the mean\n"
      "           (z = 0), the same matrix when nothing is missing.\n"
      "  --exact  builds the n x n GRM and calls LAPACK dsyevr (cuSOLVER on cuda), as PLINK 1.9 --pca.\n"
      "Outputs: PREFIX.eigenval (one per line), PREFIX.eigenvec (FID IID PC1..PCm, no header; each\n"
      "  vector has unit length, sign such that its largest-magnitude entry is positive), PREFIX.log.\n"
      "Example: panoramix pca --bfile data --pcs 10 --out data");
  add_common_options(cmd, *opt, true);
  cmd->add_option("--pcs", pca->pcs, "number of principal components (default 10)");
  cmd->add_flag("--exact", pca->exact, "dense GRM and full eigensolver (PLINK 1.9's method)");
  cmd->add_option("--missing", *missing, "plink|impute: missing calls in the randomized path (default plink)")
      ->check(CLI::IsMember({"plink", "impute"}));
  cmd->add_option("--oversample", pca->oversample, "extra subspace columns (default 10)");
  cmd->add_option("--tol", pca->tolerance, "Ritz residual bound relative to the largest eigenvalue (default 1e-7)");
  cmd->add_option("--max-iter", pca->max_iterations, "subspace iterations at most (default 500)");
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      pca_options o = *pca;
      o.missing = *missing == "impute" ? pca_missing_mode::mean_impute : pca_missing_mode::plink;
      o.nonfounders = opt->nonfounders;
      if (opt->filters.seed_given) o.seed = opt->filters.seeds.front();  // the common --seed's first value
      check_pca_options(o);  // before reading anything
      auto data = open_input(*opt, log);
      const auto chroms = chromosomes(*opt);
      drop_non_autosomal(*data, chroms, log);
      const executor exec = make_executor(*opt, log);
      o.chromosomes = chroms;
      log.begin("principal components");
      const pca_result res = compute_pca(exec, *data, o, &log);
      log.end();
      for (const auto& [name, seconds] : res.stage_seconds) log.substage(name, seconds);
      log.message("PCA (" + res.method + ") of " + std::to_string(res.n) + " samples from " +
                  std::to_string(res.n_variants) + " variants, " + std::to_string(res.pcs) + " components");
      if (res.method == "randomized") {
        char line[256];
        std::snprintf(line, sizeof line,
                      "%d subspace iterations, max Ritz residual %.2e of the largest eigenvalue%s; "
                      "%lld missing calls, %lld sample pairs share one, %d series terms",
                      res.iterations, res.max_residual, res.converged ? "" : " (NOT CONVERGED: raise --max-iter)",
                      static_cast<long long>(res.missing_calls), static_cast<long long>(res.missing_pairs),
                      res.series_terms);
        log.message(line);
      }
      log.begin("write");
      output_group out;
      write_pca(out, opt->out, *data, res);
      out.commit_all();
      log.end();
      log.message("Written: " + opt->out + ".eigenval, " + opt->out + ".eigenvec");
    });
  });
}

}  // namespace pmx::cli
