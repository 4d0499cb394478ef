// The filter flags, parsed as plink2 parses them (--geno/--mind/--maf without a value take plink2's
// defaults 0.1/0.1/0.01), and applied in plink2's order with plink2's log lines.
#include "cli/filter_options.hpp"

#include <cmath>

#include "panoramix/error.hpp"
#include "panoramix/quality_filters.hpp"
#include "panoramix/tuning.hpp"
#include "panoramix/variant_ranges.hpp"

namespace pmx::cli {
namespace {

// A flag whose value may be left out (plink2's "--geno [max]").
void add_optional_number(CLI::App* cmd, const std::string& name, double& target, double absent_value,
                         const std::string& help) {
  cmd->add_option_function<std::vector<std::string>>(
         name,
         [&target, absent_value, name](const std::vector<std::string>& v) {
           if (v.empty() || v[0].empty()) {
             target = absent_value;
             return;
           }
           try {
             size_t used = 0;
             target = std::stod(v[0], &used);
             if (used != v[0].size()) throw std::invalid_argument(v[0]);
           } catch (const std::exception&) {
             throw CLI::ValidationError(name, "'" + v[0] + "' is not a number");
           }
         },
         help)
      ->expected(0, 1)
      ->type_name("[FRACTION]");
}

void require_fraction(double v, const char* flag) {
  if (v != -1 && !(v >= 0 && v <= 1))
    throw input_error(std::string(flag) + " takes a fraction in [0, 1] (got " + std::to_string(v) + ")");
}

std::string plural(int64_t k, const std::string& what) {
  return std::to_string(k) + " " + what + (k == 1 ? "" : "s");
}

}  // namespace

void add_filter_options(CLI::App* cmd, filter_options& f) {
  cmd->add_option("--remove", f.remove, "drop the samples listed in FILE (the --keep format)");
  cmd->add_option("--keep-fam", f.keep_fam, "keep only samples whose FID is listed in FILE (first column)");
  cmd->add_option("--exclude", f.exclude, "drop the variants whose IDs are listed in FILE");
  cmd->add_option("--chr", f.chr, "keep only these chromosomes: codes and ranges, e.g. 1-4,22,X")
      ->expected(1, -1);
  cmd->add_option("--not-chr", f.not_chr, "drop these chromosomes (as --chr)")->expected(1, -1);
  cmd->add_flag("--autosome", f.autosome, "keep only autosomes (not 0, X, Y, XY, MT or contigs)");
  cmd->add_option("--from-bp", f.from_bp, "keep positions >= N (with --chr of one chromosome)");
  cmd->add_option("--to-bp", f.to_bp, "keep positions <= N (with --chr of one chromosome)");
  cmd->add_option("--snps", f.snps, "keep only these variant IDs and ID ranges (id1-id2, file order)")
      ->expected(1, -1);
  cmd->add_option("--thin-count", f.thin_count, "keep N variants drawn at random, as plink2 draws them (see --seed)");
  cmd->add_option("--thin-indiv-count", f.thin_indiv_count,
                  "keep N samples drawn at random after --thin-count, as plink2 draws them");
  cmd->add_option_function<std::vector<uint32_t>>(
         "--seed", [&f](const std::vector<uint32_t>& s) { f.seeds = s, f.seed_given = true; },
         "random seed(s), integers in [0, 4294967295] as plink2's (--thin-count/--thin-indiv-count; pca's "
         "start block takes the first)")
      ->expected(1, -1);
  add_optional_number(cmd, "--mind", f.mind, 0.1, "drop samples missing more than this fraction of calls (default 0.1)");
  add_optional_number(cmd, "--geno", f.geno, 0.1, "drop variants missing more than this fraction of calls (default 0.1)");
  cmd->add_option("--hwe", f.hwe, "drop variants with exact HWE p-value below P (founders); midp: mid-p")
      ->expected(1, 2)
      ->type_name("P [midp]");
  add_optional_number(cmd, "--maf", f.maf, 0.01, "drop variants with minor allele frequency below this (default 0.01)");
  cmd->add_option("--max-maf", f.max_maf, "drop variants with minor allele frequency above this");
  cmd->add_option("--mac", f.mac, "drop variants with minor allele count below N");
}

void check_filter_options(const filter_options& f) {
  require_fraction(f.mind, "--mind");
  require_fraction(f.geno, "--geno");
  require_fraction(f.maf, "--maf");
  require_fraction(f.max_maf, "--max-maf");
  if (f.maf >= 0 && f.max_maf >= 0 && f.max_maf < f.maf) throw input_error("--max-maf is below --maf");
  if (f.mac != -1 && !(f.mac >= 0)) throw input_error("--mac takes a count >= 0");
  if (f.thin_count != -1 && f.thin_count < 0) throw input_error("--thin-count takes a count >= 0");
  if (f.thin_indiv_count != -1 && f.thin_indiv_count < 0) throw input_error("--thin-indiv-count takes a count >= 0");
  if ((f.from_bp != -1 && f.from_bp < 0) || (f.to_bp != -1 && f.to_bp < 0))
    throw input_error("--from-bp/--to-bp take positions >= 0");
  if (!f.hwe.empty()) {
    size_t used = 0;
    double p = -1;
    try {
      p = std::stod(f.hwe[0], &used);
    } catch (const std::exception&) {
    }
    if (used != f.hwe[0].size() || !(p >= 0 && p < 1))
      throw input_error("--hwe takes a p-value threshold in [0, 1) (got '" + f.hwe[0] + "')");
    if (f.hwe.size() == 2 && f.hwe[1] != "midp")
      throw input_error("--hwe: unknown modifier '" + f.hwe[1] + "' (plink2's is midp)");
  }
  // plink2 refuses several inclusion filters at once (without --force-intersect).
  const int inclusions = !f.extract.empty() + !f.snps.empty() + (f.from_bp >= 0 || f.to_bp >= 0);
  if (inclusions > 1)
    throw input_error("--extract, --snps and --from-bp/--to-bp exclude each other (as in plink2 without "
                      "--force-intersect)");
}

void apply_filters(selected_genotypes& data, const filter_options& f, const chromosome_set& chroms,
                   bool nonfounders, int threads, run_log& log) {
  // Samples by ID, in plink2's order.
  auto samples_left = [&](const char* flag) {
    log.message(std::string(flag) + ": " + plural(data.n_samples(), "sample") + " remaining.");
  };
  auto variants_left = [&](const char* flag) {
    log.message(std::string(flag) + ": " + plural(data.n_variants(), "variant") + " remaining.");
  };
  if (!f.keep_fam.empty()) data.keep_families(f.keep_fam), samples_left("--keep-fam");
  if (!f.keep.empty()) data.keep_samples(f.keep), samples_left("--keep");
  if (!f.remove.empty()) data.remove_samples(f.remove), samples_left("--remove");
  // Variants by place and name.
  const chromosome_ranges places(f.chr, f.not_chr, f.autosome, f.from_bp, f.to_bp, chroms);
  if (places.active()) {
    data.filter_variants([&](const variant_record& v) { return places.keeps(v); });
    log.message(std::to_string(data.n_variants()) + " out of " + std::to_string(data.all().n_variants()) +
                " variants kept by --chr/--not-chr/--autosome/--from-bp/--to-bp.");
    if (data.n_variants() == 0)
      throw input_error("--chr/--not-chr/--autosome/--from-bp/--to-bp: no variant remains");
  }
  if (!f.extract.empty()) data.extract_variants(f.extract), variants_left("--extract");
  if (!f.snps.empty()) keep_snps(data, f.snps), variants_left("--snps");
  if (!f.exclude.empty()) data.exclude_variants(f.exclude), variants_left("--exclude");
  // Filters on the genotypes.
  quality_filter_options q;
  q.thin_count = f.thin_count, q.thin_indiv_count = f.thin_indiv_count, q.seeds = f.seeds;
  q.mind = f.mind, q.geno = f.geno, q.maf = f.maf, q.max_maf = f.max_maf, q.mac = f.mac;
  if (!f.hwe.empty()) q.hwe = std::stod(f.hwe[0]), q.hwe_midp = f.hwe.size() == 2;
  q.nonfounders = nonfounders, q.chromosomes = chroms;
  if (!q.active()) return;
  if ((f.thin_count >= 0 || f.thin_indiv_count >= 0) && !f.seed_given)
    log.message("--thin-count/--thin-indiv-count: seed 0 (give --seed to change it)");
  // The counting passes run on the CPU whatever --device says: one pass each, bandwidth-bound.
  const executor exec(backend::cpu, threads, tuning::from_environment());
  for (const std::string& line : apply_quality_filters(exec, data, q, &log)) log.message(line);
}

}  // namespace pmx::cli
