// Options and plumbing shared by the subcommands.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "cli/filter_options.hpp"
#include "cli/run_log.hpp"
#include "panoramix/analysis_context.hpp"
#include "panoramix/error.hpp"  // input_error, which the commands throw
#include "panoramix/executor.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/selected_genotypes.hpp"

namespace pmx::cli {

/// Where the genotypes come from.
enum class genotype_format { bfile, vcf, bcf, bgen, pfile };

struct common_options {
  /// The genotypes: a PLINK prefix (--bfile, --pfile) or the file of --vcf/--bcf/--bgen, as `format` says (one
  /// field, so that the analyses that take "the genotypes" as a name need no change per format).
  std::string bfile;
  genotype_format format = genotype_format::bfile;
  std::string out = "panoramix", keep, extract, device = "auto", species;
  int threads = 0;
  int chr_set = 0;
  bool nonfounders = false;
  // VCF/BCF import, as plink2's flags of the same names.
  bool double_id = false;
  std::string const_fid, id_delim, half_call = "error";
  bool const_fid_given = false, id_delim_given = false;
  int vcf_min_gq = -1, vcf_min_dp = -1;
  // BGEN import: the .sample file (--sample) and plink2's --hard-call-threshold.
  std::string sample_file;
  double hard_call_threshold = 0.1;
  filter_options filters;  // applied by open_input, in plink2's order
};

/// Genotypes named on the command line and their format.
struct genotype_input {
  std::string path;  ///< a PLINK prefix (bfile, pfile) or a file
  genotype_format format;
};

/// The format of a TEST set given to --predict, from its name: FILE.vcf[.gz|.bgz], FILE.bcf,
/// FILE.bgen, PREFIX.pgen or PREFIX.bed (the extension dropped), else a PREFIX: a .bed fileset, or
/// a .pgen one when PREFIX.bed is absent and PREFIX.pgen exists.
genotype_input predict_input(const std::string& path);

/// Adds --out, --threads, --device; with `input` also the genotypes (--bfile, --pfile, --vcf, --bcf or --bgen,
/// with the VCF and BGEN import flags), --keep, --extract, species flags and --nonfounders.
void add_common_options(CLI::App* cmd, common_options& o, bool input);

/// Refuses (input_error, exit 2) a --threads outside [0, 4096], a --chr-set outside [0, 95]
/// (0: not given) or VCF flags that do not go together; each command calls it first.
void check_common_options(const common_options& o);

/// Opens the genotypes (--bfile, --pfile, --vcf, --bcf or --bgen) with --keep/--extract applied; throws input_error
/// when none was given.
std::unique_ptr<selected_genotypes> open_input(const common_options& o, run_log& log);
chromosome_set chromosomes(const common_options& o);
/// Drops variants on X, Y and MT (as PLINK's GRM and PCA do; X kept with keep_x, as association
/// tests it) and logs how many went.
void drop_non_autosomal(selected_genotypes& data, const chromosome_set& chroms, run_log& log, bool keep_x = false);
executor make_executor(const common_options& o, run_log& log);

/// The reader of --predict's TEST genotypes: the format predict_input finds, o's import flags, the
/// counts in `log`. `o` and `log` must outlive it.
std::function<std::unique_ptr<genotype_source>(const std::string&)> predict_reader(const common_options& o,
                                                                                    run_log& log);

/// The context a library analysis entry gets from the command line: `to_log` (forwarding to the
/// run's log), the executor of --device/--threads, and the --bfile genotypes with --keep/--extract
/// applied and the X/Y/MT variants of `chroms` dropped (Y/MT only with keep_x). `o`, `log` and
/// `to_log` must outlive it.
analysis_context genotype_analysis_context(const common_options& o, run_log& log, analysis_log& to_log,
                                           chromosome_set chroms, bool keep_x = false);

/// Runs a command body with PREFIX.log, error reporting and exit status: 0 on success, 1 when
/// the body throws (the message goes to stderr and the log; outputs not committed are removed).
/// `splits_over_ranks`: the command divides its work over the processes of an MPI launch
/// (`mpirun -np N panoramix ...`; rank 0 writes the log and outputs); other commands refuse such a
/// launch.
int run_command(const std::string& out_prefix, int argc, char** argv,
                const std::function<void(run_log&)>& body, bool splits_over_ranks = false);

void add_simulate_command(CLI::App& app, int argc, char** argv, int& status);
void add_simulate_pedigree_command(CLI::App& app, int argc, char** argv, int& status);
void add_freq_command(CLI::App& app, int argc, char** argv, int& status);
void add_grm_command(CLI::App& app, int argc, char** argv, int& status);
void add_ld_command(CLI::App& app, int argc, char** argv, int& status);
void add_pca_command(CLI::App& app, int argc, char** argv, int& status);
void add_gblup_command(CLI::App& app, int argc, char** argv, int& status);
void add_pedigree_command(CLI::App& app, int argc, char** argv, int& status);
void add_ssblup_command(CLI::App& app, int argc, char** argv, int& status);
void add_krr_command(CLI::App& app, int argc, char** argv, int& status);
void add_rr_command(CLI::App& app, int argc, char** argv, int& status);
void add_convert_command(CLI::App& app, int argc, char** argv, int& status);
void add_assoc_command(CLI::App& app, int argc, char** argv, int& status);
void add_plot_command(CLI::App& app, int argc, char** argv, int& status);

}  // namespace pmx::cli
