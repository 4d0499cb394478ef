// panoramix grm: genomic relationship matrices (PLINK --make-rel / GCTA / VanRaden).
#include "cli/common.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/result_files.hpp"

namespace pmx::cli {

void add_grm_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto method = std::make_shared<std::string>("standardized");
  auto format = std::make_shared<std::string>("rel-bin");
  auto* cmd = app.add_subcommand("grm", "genomic relationship matrix");
  cmd->footer(
      "Methods:\n"
      "  standardized  PLINK --make-rel / GCTA: z = (x-2p)/sqrt(2p(1-p)), each entry the mean of\n"
      "                z_i z_j over variants called in both samples (p from founders).\n"
      "  vanraden      VanRaden (2008) method 1: G = ZZ'/(2 sum p(1-p)), missing calls mean-imputed.\n"
      "Variants on X, Y and MT are dropped (as PLINK does); use --chr-set/--cow/... for other species.\n"
      "Formats:\n"
      "  rel-bin  PREFIX.rel.bin (n x n float64, row-major) + PREFIX.rel.id  [default]\n"
      "  rel      PREFIX.rel (text lower triangle) + PREFIX.rel.id\n"
      "  gcta     PREFIX.grm.bin (float32 lower triangle) + PREFIX.grm.N.bin + PREFIX.grm.id\n"
      "Over several processes: mpirun -np N panoramix grm ... splits the variants over N ranks (one GPU\n"
      "each with --device cuda); their sums are added (integers exactly, through NCCL between GPUs) to\n"
      "the rank that owns each row, which finishes its rows and writes them at their place in the files.\n"
      "Example: panoramix grm --bfile sim --out sim --format gcta");
  add_common_options(cmd, *opt, true);
  cmd->add_option("--method", *method, "standardized|vanraden (default standardized)")
      ->check(CLI::IsMember({"standardized", "vanraden"}));
  cmd->add_option("--format", *format, "rel-bin|rel|gcta (default rel-bin)")
      ->check(CLI::IsMember({"rel-bin", "bin", "rel", "gcta"}));
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      auto data = open_input(*opt, log);
      const auto chroms = chromosomes(*opt);
      drop_non_autosomal(*data, chroms, log);
      const executor exec = make_executor(*opt, log);
      grm_options g;
      g.method = *method == "vanraden" ? grm_method::vanraden : grm_method::standardized;
      g.nonfounders = opt->nonfounders;
      g.chromosomes = chroms;
      const grm_format fmt = *format == "gcta" ? grm_format::gcta
                             : *format == "rel" ? grm_format::rel
                                                : grm_format::rel_bin;
      g.pair_counts = fmt == grm_format::gcta;
      log.begin("relationship matrix");
      const grm_result res = compute_grm(exec, *data, g, &log);
      log.end();
      for (const auto& [name, seconds] : res.stage_seconds) log.substage(name, seconds);
      if (exec.kind() == backend::cuda) log.message("Pair sums accumulated on the " + res.residence);
      if (res.integer_route_variants > 0)
        log.message("Weighted products of " + std::to_string(res.integer_route_variants) +
                    " variants on the int8 tensor cores (exact integers, weights to 2^-44)");
      log.message("GRM (" + *method + ") of " + std::to_string(res.n) + " samples from " +
                  std::to_string(res.n_variants) + " variants");
      // Over ranks each holds its rows and writes them at their offsets; rank 0 commits the files.
      log.begin("write");
      output_group out;
      write_grm(out, opt->out, *data, res, fmt, exec.threads(), exec.comm());
      if (exec.comm().rank() != 0) return;
      out.commit_all();
      log.end();
      log.message(std::string("Written: ") + opt->out +
                  (fmt == grm_format::gcta ? ".grm.bin, .grm.N.bin, .grm.id"
                   : fmt == grm_format::rel ? ".rel, .rel.id"
                                            : ".rel.bin, .rel.id"));
    }, /*splits_over_ranks=*/true);
  });
}

}  // namespace pmx::cli
