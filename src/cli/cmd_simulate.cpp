// panoramix simulate: a structured, LD-blocked population written as a PLINK fileset, and
// optionally phenotypes with additive and epistatic QTL (.pheno) and their truth (.truth).
#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/plink_write.hpp"
#include "simulate/simulate.hpp"
#include "simulate/trait_sim.hpp"
#include "simulate/trait_sim_files.hpp"

namespace pmx::cli {

void add_simulate_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto p = std::make_shared<sim::genotype_params>();
  auto tp = std::make_shared<sim::trait_params>();
  auto* cmd = app.add_subcommand("simulate", "simulate genotypes -> PREFIX.bed/.bim/.fam (+ .pheno/.truth with --traits)");
  cmd->footer(
      "Samples fall into --populations groups (Balding-Nichols allele frequencies with --fst),\n"
      "variants into LD blocks of --ld-block variants on --chromosomes autosomes; calls go missing\n"
      "independently with probability --missing. Same --seed, same files, whatever --threads.\n"
      "--traits K adds PREFIX.pheno (FID IID trait1..traitK, NA missing) and PREFIX.truth. Per trait:\n"
      "--qtl additive QTL and --epistasis pairs drawn among the polymorphic variants; x = centred A1\n"
      "dosage (missing 0); A = sum a*x; a pair's term w = x1*x2 minus its least-squares fit on\n"
      "1, x1, x2 (additive x additive interaction, no additive effect of its own); E = sum b*w minus\n"
      "its regression on A; y = A + E + normal residual. Rescaled on the sample so that exactly\n"
      "var(y) = 1, var(A+E) = --h2 and var(E) = --h2 x --epistatic-share. --trait-correlation R:\n"
      "round(R*Q) QTL and round(R*P) pairs are common to all traits and carry the share R of each\n"
      "part's variance (genetic correlation about R; the realised ones are in PREFIX.truth).\n"
      "PREFIX.truth lists each trait's QTL, pairs (with centers and c0 c1 c2) and realised variances.\n"
      "Example: panoramix simulate --samples 2000 --variants 50000 --missing 0.01 --seed 7 --out sim\n"
      "         panoramix simulate --samples 2000 --variants 50000 --traits 3 --qtl 50 --epistasis 20 \\\n"
      "           --h2 0.6 --epistatic-share 0.5 --trait-correlation 0.3 --pheno-missing 0.05 --out sim");
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
  // Phenotypes: ranges are checked by sim::validate (named errors, exit status 2), not by CLI11.
  cmd->add_option("--traits", tp->n_traits,
                  "phenotypes to simulate -> PREFIX.pheno and PREFIX.truth (default 0: none)");
  std::vector<CLI::Option*> trait_options = {
      cmd->add_option("--qtl", tp->n_qtl, "additive QTL per trait (default 100)"),
      cmd->add_option("--epistasis", tp->n_pairs, "pairs of interacting QTL per trait (default 0)"),
      cmd->add_option("--h2", tp->h2, "broad-sense heritability var(G)/var(y) of every trait, 0..1 (default 0.5)"),
      cmd->add_option("--epistatic-share", tp->epistatic_share,
                      "share of the genetic variance due to the epistatic pairs, 0..1 (default 0)"),
      cmd->add_option("--trait-correlation", tp->trait_correlation,
                      "genetic correlation between traits through common QTL and pairs, 0..1 (default 0)"),
      cmd->add_option("--pheno-missing", tp->missing_fraction,
                      "fraction of each trait's phenotypes written as NA, [0, 1) (default 0)")};
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      if (tp->n_traits == 0)
        for (const CLI::Option* o : trait_options)
          if (o->count() > 0) throw input_error("simulate: " + o->get_name() + " needs --traits (phenotypes)");
      sim::trait_params traits = *tp;
      traits.seed = p->seed;
      sim::validate(*p);
      sim::validate(traits, p->n_samples, p->n_variants);
      executor exec(backend::cpu, opt->threads);
      log.begin("simulate");
      const sim::dataset d = sim::simulate_genotypes(*p, exec.threads());
      log.end();
      sim::trait_dataset t;
      if (traits.n_traits > 0) {
        log.begin("phenotypes");
        t = sim::simulate_traits(traits, d.genotypes.view(), exec.threads());
        log.end();
      }
      log.begin("write");
      output_group out;
      if (traits.n_traits > 0) sim::add_trait_files(out, opt->out, traits, t, d.samples, d.variants);
      write_plink_fileset(opt->out, d.samples, d.variants, d.genotypes.view());
      out.commit_all();
      log.end();
      log.message("Simulated " + std::to_string(p->n_samples) + " samples x " +
                  std::to_string(p->n_variants) + " variants -> " + opt->out + ".bed/.bim/.fam");
      for (int k = 0; k < t.n_traits; ++k) {
        const sim::trait_variances& vc = t.truth[k].variances;
        log.message("trait" + std::to_string(k + 1) + ": h2 " + std::to_string(vc.h2()) + ", epistatic share " +
                    std::to_string(vc.epistatic_share()) + " (realised, " + std::to_string(t.truth[k].qtl.size()) +
                    " QTL, " + std::to_string(t.truth[k].pairs.size()) + " pairs)");
      }
      if (t.n_traits > 0)
        log.message(std::to_string(t.n_traits) + " trait(s) -> " + opt->out + ".pheno/.truth");
    });
  });
}

}  // namespace pmx::cli
