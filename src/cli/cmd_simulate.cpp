// panoramix simulate: a structured, LD-blocked population written as a PLINK fileset.
#include "cli/common.hpp"
#include "panoramix/plink_write.hpp"
#include "simulate/simulate.hpp"

namespace pmx::cli {

void add_simulate_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto p = std::make_shared<sim::genotype_params>();
  auto* cmd = app.add_subcommand("simulate", "simulate genotypes -> PREFIX.bed/.bim/.fam");
  cmd->footer(
      "Samples fall into --populations groups (Balding-Nichols allele frequencies with --fst),\n"
      "variants into LD blocks of --ld-block variants on --chromosomes autosomes; calls go missing\n"
      "independently with probability --missing. Same --seed, same files, whatever --threads.\n"
      "Example: panoramix simulate --samples 2000 --variants 50000 --missing 0.01 --seed 7 --out sim");
  add_common_options(cmd, *opt, false);
  cmd->add_option("--samples", p->n_samples, "number of samples")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--variants", p->n_variants, "number of variants")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--missing", p->missing_rate, "missing-call rate (default 0)")->check(CLI::Range(0.0, 0.999));
  cmd->add_option("--seed", p->seed, "random seed (default 1)");
  cmd->add_option("--populations", p->n_populations, "subpopulations (default 3)")->check(CLI::PositiveNumber);
  cmd->add_option("--fst", p->fst, "differentiation between subpopulations (default 0.05)")
      ->check(CLI::Range(0.0, 0.999));
  cmd->add_option("--chromosomes", p->n_chromosomes, "autosomes to spread variants over (default 22)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ld-block", p->ld_block_length, "variants per LD block (default 20)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ld-strength", p->ld_strength, "haplotype persistence inside a block, 0..1 (default 0.8)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--min-maf", p->min_maf, "smallest minor allele frequency drawn (default 0.01)")
      ->check(CLI::Range(0.0, 0.5));
  cmd->add_option("--monomorphic", p->monomorphic_fraction, "fraction of monomorphic variants (default 0)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      executor exec(backend::cpu, opt->threads);
      log.begin("simulate");
      const sim::dataset d = sim::simulate_genotypes(*p, exec.threads());
      log.end();
      log.begin("write");
      write_plink_fileset(opt->out, d.samples, d.variants, d.genotypes.view());
      log.end();
      log.message("Simulated " + std::to_string(p->n_samples) + " samples x " +
                  std::to_string(p->n_variants) + " variants -> " + opt->out + ".bed/.bim/.fam");
    });
  });
}

}  // namespace pmx::cli
