// panoramix simulate-pedigree: a pedigree with genes dropped through it, genotypes for a subset,
// true breeding values and multi-trait records (data for pedigree and single-step models).
#include <charconv>
#include <cmath>
#include <sstream>

#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/plink_write.hpp"
#include "simulate/pedigree_sim.hpp"

namespace pmx::cli {
namespace {

std::vector<double> parse_list(const std::string& text, const char* what) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      out.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw input_error(std::string("simulate-pedigree: ") + what + ": '" + item + "' is not a number");
    }
  }
  return out;
}

// A number as printf's %.10g writes it ("NA" for NaN), appended to `out`.
void put_field(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NA";
    return;
  }
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 10).ptr;
  out.append(buf, end);
}

void put_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// Writes one text line per animal through `line(a, out)`: blocks of animals are formatted in
// parallel, then written in order (millions of lines: printf alone took seconds per file).
template <class Line>
void write_lines(output_file& f, int64_t n, int threads, Line&& line) {
  constexpr int64_t block = 1 << 15;
  std::vector<std::string> text(static_cast<size_t>(std::max(1, threads)) * 4);
  const int64_t per_round = block * static_cast<int64_t>(text.size());
  for (int64_t a0 = 0; a0 < n; a0 += per_round) {
    const int64_t blocks = std::min<int64_t>(text.size(), (n - a0 + block - 1) / block);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t b = 0; b < blocks; ++b) {
      std::string& out = text[b];
      out.clear();
      for (int64_t a = a0 + b * block; a < std::min(n, a0 + (b + 1) * block); ++a) line(a, out);
    }
    for (int64_t b = 0; b < blocks; ++b) f.write(text[b]);
  }
}

void write_outputs(const std::string& prefix, const sim::pedigree_dataset& d, int threads) {
  const int t = d.n_traits;
  const int64_t n = static_cast<int64_t>(d.id.size());
  output_group out;
  auto& ped = out.add(prefix + ".ped");
  ped.write("animal sire dam\n");
  write_lines(ped, n, threads, [&](int64_t a, std::string& o) {
    o += d.id[a];
    o += ' ';
    o += d.sire[a] < 0 ? std::string_view("0") : std::string_view(d.id[d.sire[a]]);
    o += ' ';
    o += d.dam[a] < 0 ? std::string_view("0") : std::string_view(d.id[d.dam[a]]);
    o += '\n';
  });
  auto& ph = out.add(prefix + ".pheno");
  ph.write("ID herd lact dim");
  for (int k = 0; k < t; ++k) ph.printf(" trait%d", k + 1);
  ph.write("\n");
  write_lines(ph, n, threads, [&](int64_t a, std::string& o) {
    if (d.herd[a] <= 0) return;
    o += d.id[a];
    o += ' ';
    put_int(o, d.herd[a]);
    o += ' ';
    put_int(o, d.lact[a]);
    o += ' ';
    put_field(o, d.dim[a]);
    for (int k = 0; k < t; ++k) {
      o += ' ';
      put_field(o, d.phenotype[a * t + k]);
    }
    o += '\n';
  });
  auto& tbv = out.add(prefix + ".tbv");
  tbv.write("ID generation genotyped");
  for (int k = 0; k < t; ++k) tbv.printf(" trait%d", k + 1);
  tbv.write("\n");
  std::vector<char> typed(n, 0);
  for (int64_t a : d.genotyped) typed[a] = 1;
  write_lines(tbv, n, threads, [&](int64_t a, std::string& o) {
    o += d.id[a];
    o += ' ';
    put_int(o, d.generation[a]);
    o += ' ';
    put_int(o, typed[a]);
    for (int k = 0; k < t; ++k) {
      o += ' ';
      put_field(o, d.tbv[a * t + k]);
    }
    o += '\n';
  });
  auto& vc = out.add(prefix + ".vc");
  for (const auto* m : {&d.G0, &d.R0}) {
    vc.write(m == &d.G0 ? "genetic\n" : "residual\n");
    for (int i = 0; i < t; ++i) {
      std::string line;
      for (int j = 0; j < t; ++j) {
        if (j) line += ' ';
        put_field(line, (*m)[i * t + j]);
      }
      vc.write(line + "\n");
    }
  }
  write_plink_fileset(prefix, d.samples, d.variants, d.genotypes.view());
  out.commit_all();
}

}  // namespace

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
      p->h2 = parse_list(*h2, "--h2");
      p->genetic_variance = parse_list(*vg, "--vg");
      if (p->genetic_variance.size() == 1 && p->h2.size() > 1) p->genetic_variance.assign(p->h2.size(), p->genetic_variance[0]);
      sim::validate(*p);
      check_output_prefix(opt->out);
      executor exec(backend::cpu, opt->threads);
      log.begin("simulate");
      const sim::pedigree_dataset d = sim::simulate_pedigree(*p, exec.threads());
      log.end();
      log.begin("write");
      write_outputs(opt->out, d, exec.threads());
      log.end();
      int64_t records = 0;
      for (int h : d.herd) records += h > 0;
      log.message("Simulated " + std::to_string(d.id.size()) + " animals (" + std::to_string(d.genotyped.size()) +
                  " genotyped x " + std::to_string(p->n_variants) + " variants, " + std::to_string(records) +
                  " with records, " + std::to_string(d.n_traits) + " trait(s)) -> " + opt->out +
                  ".ped/.bed/.bim/.fam/.pheno/.tbv/.vc");
    });
  });
}

}  // namespace pmx::cli
