// panoramix simulate-pedigree: a pedigree with genes dropped through it, genotypes for a subset,
// true breeding values and multi-trait records (data for pedigree and single-step models).
#include "cli/common.hpp"
#include "simulate/pedigree_sim.hpp"
#include "simulate/pedigree_sim_files.hpp"
#include "simulate/pedigree_sim_traits.hpp"

namespace pmx::cli {

void add_simulate_pedigree_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto p = std::make_shared<sim::pedigree_params>();
  auto h2 = std::make_shared<std::string>("0.3");
  auto vg = std::make_shared<std::string>("1");
  auto* cmd = app.add_subcommand("simulate-pedigree",
                                 "simulate a pedigree, genotypes of a subset, breeding values and records");
  cmd->footer(
      "Founders (unknown parents) draw haplotypes from a base population with LD; every later\n"
      "animal gets a gamete from each parent (1 Morgan per chromosome, strands carried along).\n"
      "True breeding values sum QTL effects (the same QTL for all traits, effects correlated by\n"
      "--rg), scaled to --vg in the founders; records of females outside the youngest generation:\n"
      "herd + lact + dim + TBV + residual (variance vg(1-h2)/h2, correlation --re), traits missing\n"
      "at random with --trait-missing. Genotyped: every sire, then the youngest animals.\n"
      "Outputs: PREFIX.ped (animal sire dam), PREFIX.bed/.bim/.fam (genotyped animals),\n"
      "PREFIX.pheno (ID herd lact dim trait1..), PREFIX.tbv, PREFIX.vc (genetic / residual matrices).\n"
      "Example: panoramix simulate-pedigree --animals 20000 --genotyped 3000 --variants 10000 --h2 0.3,0.4,0.2 --out ped");
  add_common_options(cmd, *opt, false);
  cmd->add_option("--animals", p->n_animals, "animals in the pedigree (default 10000)");
  cmd->add_option("--founders", p->n_founders, "founders (default 500)");
  cmd->add_option("--generations", p->n_generations, "generations after the founders (default 8)");
  cmd->add_option("--sires", p->sires_per_generation, "sires chosen per generation (default 40)");
  cmd->add_option("--unknown-dam", p->unknown_dam_rate, "probability a dam is unknown (default 0.02)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--variants", p->n_variants, "variants (default 5000)");
  cmd->add_option("--chromosomes", p->n_chromosomes, "chromosomes (default 10)");
  cmd->add_option("--qtl", p->n_qtl, "QTL (default 300)");
  cmd->add_option("--h2", *h2, "heritability per trait, comma separated (default 0.3; the count sets the traits)");
  cmd->add_option("--vg", *vg, "genetic variance per trait (default 1 each)");
  cmd->add_option("--rg", p->genetic_correlation, "genetic correlation between traits (default 0.5)");
  cmd->add_option("--re", p->residual_correlation, "residual correlation between traits (default 0.3)");
  cmd->add_option("--herds", p->n_herds, "herds (default 50)");
  cmd->add_option("--record-rate", p->record_rate, "share of eligible females with a record (default 0.8)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--trait-missing", p->trait_missing_rate, "probability a trait of a record is missing (default 0.2)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--genotyped", p->n_genotyped, "genotyped animals (default 2000)");
  cmd->add_option("--seed", p->seed, "random seed (default 1)");
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      sim::pedigree_params params = *p;
      sim::set_trait_lists(params, *h2, *vg);
      executor exec(backend::cpu, opt->threads);
      log.begin("simulate");
      const sim::pedigree_dataset d = sim::simulate_pedigree(params, exec.threads());
      log.end();
      log.begin("write");
      sim::write_pedigree_dataset(opt->out, d, exec.threads());
      log.end();
      log.message("Simulated " + std::to_string(d.id.size()) + " animals (" + std::to_string(d.genotyped.size()) +
                  " genotyped x " + std::to_string(params.n_variants) + " variants, " +
                  std::to_string(sim::animals_with_records(d)) + " with records, " + std::to_string(d.n_traits) +
                  " trait(s)) -> " + opt->out + ".ped/.bed/.bim/.fam/.pheno/.tbv/.vc");
    });
  });
}

}  // namespace pmx::cli
