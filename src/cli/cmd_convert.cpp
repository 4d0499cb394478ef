// panoramix convert / make-bed: genotypes of any input format (--vcf, --bcf, --bgen, --pfile, --bfile), with
// the sample and variant filters applied, to a PLINK 1 fileset. One command under two names:
// `make-bed` is what plink2 users type, `convert` what the import was first called.
#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/plink_write.hpp"

namespace pmx::cli {
namespace {

void add_fileset_writer(CLI::App& app, int argc, char** argv, int& status, const std::string& name,
                        const std::string& description) {
  auto opt = std::make_shared<common_options>();
  auto* cmd = app.add_subcommand(name, description);
  cmd->footer(
      "Writes the kept samples and variants as plink2 --make-bed does with the same filters\n"
      "(--keep, --remove, --chr, --maf, --geno, --mind, --hwe, ...: see README, in plink2's order).\n"
      "From --vcf: what plink2 --vcf FILE --max-alleles 2 --snps-only --make-bed writes: biallelic\n"
      "SNPs, A1 (.bim column 5) = ALT, A2 = REF, FID 0 and IID = the VCF sample ID unless\n"
      "--double-id, --const-fid or --id-delim. From --pfile: what plink2 --pfile PREFIX --make-bed\n"
      "writes (A1 = ALT). The three files appear together, only once complete.\n"
      "Example: panoramix " + name + " --bfile data --maf 0.01 --geno 0.05 --out clean");
  add_common_options(cmd, *opt, true);
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      auto data = open_input(*opt, log);
      if (data->n_variants() == 0) throw input_error(opt->bfile + ": no variants to write");
      log.begin("write .bed/.bim/.fam");
      // Read and written block by block (plink2's bytes): a .pgen is decoded as it is written.
      write_plink_fileset(opt->out, *data, plink_text_style::plink2, &log);
      log.end();
      log.message("Written: " + opt->out + ".bed, " + opt->out + ".bim, " + opt->out + ".fam (" +
                  std::to_string(data->n_samples()) + " samples, " + std::to_string(data->n_variants()) +
                  " variants)");
    });
  });
}

}  // namespace

void add_convert_command(CLI::App& app, int argc, char** argv, int& status) {
  add_fileset_writer(app, argc, argv, status, "convert",
                     "genotypes (--vcf, --bcf, --bgen, --pfile, --bfile) -> PREFIX.bed/.bim/.fam");
  add_fileset_writer(app, argc, argv, status, "make-bed",
                     "filtered genotypes -> PREFIX.bed/.bim/.fam (plink2 --make-bed with its filters)");
}

}  // namespace pmx::cli
