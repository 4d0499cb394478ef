// panoramix convert: genotypes of any input format (--vcf, --bcf, --bfile) to a PLINK 1 fileset.
#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plink_write.hpp"

namespace pmx::cli {

void add_convert_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto* cmd = app.add_subcommand("convert", "genotypes (--vcf, --bcf, --bfile) -> PREFIX.bed/.bim/.fam");
  cmd->footer(
      "Writes what plink2 --vcf FILE --max-alleles 2 --snps-only --make-bed writes: biallelic SNPs,\n"
      "A1 (.bim column 5) = ALT, A2 = REF, FID 0 and IID = the VCF sample ID unless --double-id,\n"
      "--const-fid or --id-delim; --keep/--extract apply. The three files appear together, only\n"
      "once complete.\n"
      "Example: panoramix convert --vcf calls.vcf.gz --out calls");
  add_common_options(cmd, *opt, true);
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      auto data = open_input(*opt, log);
      if (data->n_variants() == 0) throw input_error(opt->bfile + ": no variants to write");
      std::vector<sample_record> samples;
      std::vector<variant_record> variants;
      for (int64_t i = 0; i < data->n_samples(); ++i) samples.push_back(data->sample(i));
      for (int64_t j = 0; j < data->n_variants(); ++j) variants.push_back(data->variant(j));
      log.begin("write .bed/.bim/.fam");
      packed_genotypes copy;
      const variant_major_view g = data->block(0, data->n_variants(), copy);
      write_plink_fileset(opt->out, samples, variants, g);
      log.end();
      log.message("Written: " + opt->out + ".bed, " + opt->out + ".bim, " + opt->out + ".fam (" +
                  std::to_string(samples.size()) + " samples, " + std::to_string(variants.size()) +
                  " variants)");
    });
  });
}

}  // namespace pmx::cli
