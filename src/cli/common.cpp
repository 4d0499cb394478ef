#include "cli/common.hpp"

#include <cstdio>

#include "core/checked_number.hpp"
#include "panoramix/error.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::cli {

void add_common_options(CLI::App* cmd, common_options& o, bool input) {
  if (input) {
    cmd->add_option("--bfile", o.bfile, "PLINK 1 binary fileset PREFIX (.bed/.bim/.fam)")->required();
    cmd->add_option("--keep", o.keep, "keep only samples listed in FILE (FID IID per line, or #IID header)");
    cmd->add_option("--extract", o.extract, "keep only variants whose IDs are listed in FILE");
    cmd->add_flag("--nonfounders", o.nonfounders,
                  "count all samples in allele frequencies (default: founders only, as PLINK)");
    cmd->add_option("--chr-set", o.chr_set, "number of autosomes of the species (as PLINK --chr-set)");
    for (const char* sp : {"cow", "dog", "horse", "mouse", "rice", "sheep"})
      cmd->add_flag_callback(std::string("--") + sp, [&o, sp] { o.species = sp; },
                             std::string("chromosome set of the ") + sp + " (as PLINK --" + sp + ")");
  }
  cmd->add_option("--out", o.out, "output PREFIX (default: panoramix)");
  cmd->add_option("--threads", o.threads, "worker threads (default: all cores)");
  cmd->add_option("--device", o.device, "auto|cpu|cuda|reference (reference = slow oracle loops)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "reference"}));
}

void check_common_options(const common_options& o) {
  detail::require_integer(o.threads, "--threads", 0, 4096);     // 0: all cores
  detail::require_integer(o.chr_set, "--chr-set", 0, 95);       // PLINK's limit; 0: not given
}

chromosome_set chromosomes(const common_options& o) {
  if (o.chr_set > 0) return {o.chr_set};
  if (!o.species.empty()) return chromosome_set::species(o.species);
  return chromosome_set::human();
}

void drop_non_autosomal(plink_fileset& data, const chromosome_set& chroms, run_log& log) {
  const int64_t before = data.n_variants();
  data.filter_variants([&](const variant_record& v) { return chroms.diploid(v.chrom); });
  if (data.n_variants() != before)
    log.message(std::to_string(before - data.n_variants()) + " variants on X/Y/MT dropped");
}

std::unique_ptr<plink_fileset> open_input(const common_options& o, run_log& log) {
  log.begin("read .bim/.fam, map .bed");
  auto data = std::make_unique<plink_fileset>(o.bfile);
  if (!o.keep.empty()) data->keep_samples(o.keep);
  if (!o.extract.empty()) data->extract_variants(o.extract);
  log.message(std::to_string(data->all_samples().size()) + " samples, " +
              std::to_string(data->all_variants().size()) + " variants in " + o.bfile +
              "; " + std::to_string(data->n_samples()) + " samples and " +
              std::to_string(data->n_variants()) + " variants kept");
  log.end();
  return data;
}

executor make_executor(const common_options& o, run_log& log) {
  // "auto": cuda when it is compiled in and a device is visible, else cpu (parse_backend).
  const backend kind = parse_backend(o.device);
  // The PMX_* route settings (tuning.hpp) are read here, once, for the whole run.
  executor exec(kind, o.threads, tuning::from_environment());
  log.message("Backend: " + backend_name(exec.kind()) + ", " + std::to_string(exec.threads()) + " threads");
  return exec;
}

int run_command(const std::string& out_prefix, int argc, char** argv,
                const std::function<void(run_log&)>& body) {
  std::unique_ptr<run_log> log;
  try {
    check_output_prefix(out_prefix);
    log = std::make_unique<run_log>(out_prefix, argc, argv);
    body(*log);
    log->finish(true);
    return 0;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "Error: %s\n", e.what());
    if (log) log->finish(false, e.what());
    return dynamic_cast<const pmx::input_error*>(&e) ? 2 : 1;
  }
}

analysis_context genotype_analysis_context(const common_options& o, run_log& log, analysis_log& to_log,
                                           chromosome_set chroms) {
  return {.log = &to_log,
          .make_executor = [&o, &log] { return make_executor(o, log); },
          .open_genotypes = [&o, &log, chroms]() -> std::unique_ptr<genotype_source> {
            auto data = open_input(o, log);
            drop_non_autosomal(*data, chroms, log);
            return data;
          }};
}

}  // namespace pmx::cli
