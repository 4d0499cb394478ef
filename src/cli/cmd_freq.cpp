// panoramix freq: A1 frequencies in PLINK 2's .afreq layout.
#include "cli/common.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/result_files.hpp"

namespace pmx::cli {

void add_freq_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto* cmd = app.add_subcommand("freq", "allele frequencies of A1 (.bim column 5) -> PREFIX.afreq");
  cmd->footer(
      "Output: PREFIX.afreq with PLINK 2's columns #CHROM ID REF ALT ALT_FREQS OBS_CT, where ALT is\n"
      "A1 (counted allele) and REF is A2. Frequencies come from founders unless --nonfounders.\n"
      "Example: panoramix freq --bfile sim --out sim");
  add_common_options(cmd, *opt, true);
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      auto data = open_input(*opt, log);
      const executor exec = make_executor(*opt, log);
      log.begin("allele frequencies");
      frequency_options fo;
      fo.nonfounders = opt->nonfounders;
      fo.chromosomes = chromosomes(*opt);
      const auto f = compute_allele_frequencies(exec, *data, fo, &log);
      log.end();
      output_group out;
      write_afreq(out, opt->out, *data, f, fo.chromosomes);
      out.commit_all();
      log.message("Allele frequencies written to " + opt->out + ".afreq");
    });
  });
}

}  // namespace pmx::cli
