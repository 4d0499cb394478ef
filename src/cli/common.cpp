#include "cli/common.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <initializer_list>
#include <thread>

#include "core/checked_number.hpp"
#include "panoramix/bgen_files.hpp"
#include "panoramix/communicator.hpp"
#include "panoramix/error.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/pgen_files.hpp"
#include "panoramix/vcf_files.hpp"

namespace pmx::cli {
namespace {

// --pfile, --vcf, --bcf, --bgen and the flags of plink2's VCF and BGEN import (given to every
// command that reads genotypes).
void add_vcf_options(CLI::App* cmd, common_options& o, CLI::Option* bfile) {
  auto* pfile = cmd->add_option_function<std::string>(
      "--pfile", [&o](const std::string& f) { o.bfile = f, o.format = genotype_format::pfile; },
      "PLINK 2 fileset PREFIX (.pgen/.pvar[.zst]/.psam): hard calls as plink2 --pfile (A1 = ALT)");
  auto* vcf = cmd->add_option_function<std::string>(
      "--vcf", [&o](const std::string& f) { o.bfile = f, o.format = genotype_format::vcf; },
      "VCF FILE (plain, gzip or bgzip): GT calls of biallelic SNPs, A1 = ALT (as plink2 --vcf)");
  auto* bcf = cmd->add_option_function<std::string>(
      "--bcf", [&o](const std::string& f) { o.bfile = f, o.format = genotype_format::bcf; },
      "BCF FILE: as --vcf");
  auto* bgen = cmd->add_option_function<std::string>(
      "--bgen", [&o](const std::string& f) { o.bfile = f, o.format = genotype_format::bgen; },
      "BGEN FILE (v1.2/v1.3, layout 2): hard calls as plink2 --bgen FILE ref-first (A1 = the second allele)");
  cmd->add_option("--sample", o.sample_file, "Oxford .sample FILE of --bgen (default: the BGEN's sample block)")
      ->needs(bgen);
  cmd->add_option("--hard-call-threshold", o.hard_call_threshold,
                  "--bgen: a call is missing when its dosage is farther than this from 0/1/2 "
                  "(default 0.1, as plink2)")
      ->needs(bgen);
  bfile->excludes(vcf)->excludes(bcf)->excludes(bgen)->excludes(pfile);
  pfile->excludes(vcf)->excludes(bcf)->excludes(bgen);
  vcf->excludes(bcf)->excludes(bgen);
  bcf->excludes(bgen);
  cmd->add_flag("--double-id", o.double_id, "VCF sample IDs: FID = IID = the ID (default FID 0, IID the ID)");
  cmd->add_option_function<std::vector<std::string>>(
         "--const-fid",
         [&o](const std::vector<std::string>& v) {
           o.const_fid_given = true, o.const_fid = v.empty() || v[0].empty() ? "0" : v[0];
         },
         "VCF sample IDs: FID = ID (default 0), IID = the ID")
      ->expected(0, 1);
  cmd->add_option_function<std::vector<std::string>>(
         "--id-delim",
         [&o](const std::vector<std::string>& v) {
           o.id_delim_given = true, o.id_delim = v.empty() || v[0].empty() ? "_" : v[0];
         },
         "VCF sample IDs are FID<d>IID (or FID<d>IID<d>SID); d defaults to '_'")
      ->expected(0, 1);
  cmd->add_option("--vcf-half-call", o.half_call,
                  "a half-call './1' is an error (default), missing, haploid or reference (as plink2)")
      ->check(CLI::IsMember({"e", "error", "m", "missing", "h", "haploid", "r", "reference"}));
  cmd->add_option("--vcf-min-gq", o.vcf_min_gq, "calls with FORMAT/GQ below N become missing");
  cmd->add_option("--vcf-min-dp", o.vcf_min_dp, "calls with FORMAT/DP below N become missing");
}

vcf_options vcf_options_of(const common_options& o) {
  vcf_options v;
  if (o.double_id) v.ids = vcf_sample_ids::double_id;
  if (o.const_fid_given) v.ids = vcf_sample_ids::const_fid, v.const_fid = o.const_fid;
  if (o.id_delim_given) v.ids = vcf_sample_ids::delimited, v.id_delim = o.id_delim[0];
  const char h = o.half_call[0];
  v.half_call = h == 'm' ? vcf_half_call::missing
                : h == 'h' ? vcf_half_call::haploid
                : h == 'r' ? vcf_half_call::reference
                           : vcf_half_call::error;
  v.min_gq = o.vcf_min_gq, v.min_dp = o.vcf_min_dp;
  v.chromosomes = chromosomes(o);
  // BGZF blocks decompress on htslib's threads while this one parses: a few are enough.
  const int cores = o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  v.threads = std::clamp(cores - 1, 0, 8);
  return v;
}

bgen_options bgen_options_of(const common_options& o) {
  bgen_options b;
  b.sample_file = o.sample_file;
  b.ids = vcf_options_of(o);  // the sample-block IDs take --double-id/--const-fid/--id-delim, as in plink2
  b.chromosomes = b.ids.chromosomes;
  b.hard_call_threshold = o.hard_call_threshold;
  b.threads = o.threads;
  return b;
}

std::string plural(int64_t k, const std::string& what) {
  return std::to_string(k) + " " + what + (k == 1 ? "" : "s");
}

// The import in the log, in plink2's terms.
void log_vcf_counts(const vcf_genotypes& v, run_log& log) {
  const vcf_read_counts& c = v.counts();
  log.message(v.format() + " " + v.name() + ": " + plural(v.n_samples(), "sample") + ", " +
              plural(c.records, "record") + "; " + plural(v.n_variants(), "biallelic SNP") + " kept, " +
              std::to_string(c.multiallelic) + " multi-allelic and " + std::to_string(c.non_snp) +
              " non-SNP records skipped (as plink2 --max-alleles 2 --snps-only)");
  if (c.without_gt) log.message(plural(c.without_gt, "record") + " without GT kept with every call missing");
  if (c.half_calls) log.message(plural(c.half_calls, "half-call") + " read as --vcf-half-call says");
  if (c.gq_masked) log.message(plural(c.gq_masked, "call") + " with GQ below --vcf-min-gq set missing");
  if (c.dp_masked) log.message(plural(c.dp_masked, "call") + " with DP below --vcf-min-dp set missing");
  if (c.unsorted)
    log.message("Warning: " + plural(c.unsorted, "variant") + " at a lower position than the one before "
                "(the file is not sorted by position; LD windows assume it is)");
}

// The import in the log: what the hard-call rule made missing.
void log_bgen_counts(const bgen_genotypes& b, run_log& log) {
  const bgen_read_counts& c = b.counts();
  log.message(b.format() + " " + b.name() + ": " + plural(b.n_samples(), "sample") + ", " +
              plural(b.n_variants(), "variant") + " (hard calls as plink2 --bgen ref-first)");
  if (c.missing_calls) log.message(plural(c.missing_calls, "call") + " missing in the file");
  if (c.uncertain_calls)
    log.message(plural(c.uncertain_calls, "call") +
                " set missing: dosage farther than --hard-call-threshold from 0/1/2");
  if (c.unsorted)
    log.message("Warning: " + plural(c.unsorted, "variant") + " at a lower position than the one before "
                "(the file is not sorted by position; LD windows assume it is)");
}

// The import in the log: how the .pgen stored its records (plink2 chooses per variant).
void log_pgen_counts(const pgen_genotypes& p, run_log& log) {
  const pgen_read_counts& c = p.counts();
  log.message(p.format() + " " + p.name() + ": " + plural(p.n_samples(), "sample") + ", " +
              plural(p.n_variants(), "variant") + "; records: " + std::to_string(c.fixed_width) + " fixed-width, " +
              std::to_string(c.one_bit) + " 1-bit, " + std::to_string(c.sparse) + " difflist, " +
              std::to_string(c.ld) + " LD-compressed, " + std::to_string(c.ld_inverted) + " LD-inverted");
  if (c.phased) log.message(plural(c.phased, "record") + " with phased calls read unphased (as plink2 --make-bed)");
  if (c.unsorted)
    log.message("Warning: " + plural(c.unsorted, "variant") + " at a lower position than the one before "
                "(the file is not sorted by position; LD windows assume it is)");
}

}  // namespace

void add_common_options(CLI::App* cmd, common_options& o, bool input) {
  if (input) {
    // Not CLI-required: one of --bfile/--pfile/--vcf/--bcf/--bgen is, and commands that can do without genotypes
    // (gblup --grm, ssblup --model pblup) say so themselves; open_input refuses a run without any.
    auto* bfile = cmd->add_option("--bfile", o.bfile, "PLINK 1 binary fileset PREFIX (.bed/.bim/.fam)");
    add_vcf_options(cmd, o, bfile);
    cmd->add_option("--keep", o.keep, "keep only samples listed in FILE (FID IID per line, or #IID header)");
    cmd->add_option("--extract", o.extract, "keep only variants whose IDs are listed in FILE");
    add_filter_options(cmd, o.filters);
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
  if (o.vcf_min_gq != -1) detail::require_integer(o.vcf_min_gq, "--vcf-min-gq", 0, INT32_MAX);
  if (o.vcf_min_dp != -1) detail::require_integer(o.vcf_min_dp, "--vcf-min-dp", 0, INT32_MAX);
  if (o.id_delim_given && o.id_delim.size() != 1)
    throw input_error("--id-delim takes one character (got '" + o.id_delim + "')");
  if (o.id_delim_given && (o.double_id || o.const_fid_given))
    throw input_error("--id-delim cannot be used with --double-id or --const-fid (as in plink2)");
  if (o.double_id && o.const_fid_given) throw input_error("--double-id and --const-fid exclude each other");
  filter_options f = o.filters;
  f.keep = o.keep, f.extract = o.extract;
  check_filter_options(f);
  const bool id_flags = o.double_id || o.const_fid_given || o.id_delim_given;
  const bool vcf_flags = o.half_call != "error" || o.vcf_min_gq != -1 || o.vcf_min_dp != -1;
  if ((id_flags || vcf_flags) && (o.format == genotype_format::bfile || o.format == genotype_format::pfile))
    throw input_error("--double-id, --const-fid, --id-delim, --vcf-half-call, --vcf-min-gq and "
                      "--vcf-min-dp apply to --vcf/--bcf input only (the first three to --bgen too)");
  if (vcf_flags && o.format == genotype_format::bgen)
    throw input_error("--vcf-half-call, --vcf-min-gq and --vcf-min-dp apply to --vcf/--bcf input only");
  if (id_flags && o.format == genotype_format::bgen && !o.sample_file.empty())
    throw input_error("--double-id, --const-fid and --id-delim apply to the BGEN's own sample IDs: with "
                      "--sample, FID and IID are the file's ID_1 and ID_2");
  if (!(o.hard_call_threshold >= 0 && o.hard_call_threshold < 0.5))
    throw input_error("--hard-call-threshold must be in [0, 0.5) (got " + std::to_string(o.hard_call_threshold) +
                      ")");
}

chromosome_set chromosomes(const common_options& o) {
  if (o.chr_set > 0) return {o.chr_set};
  if (!o.species.empty()) return chromosome_set::species(o.species);
  return chromosome_set::human();
}

void drop_non_autosomal(selected_genotypes& data, const chromosome_set& chroms, run_log& log, bool keep_x) {
  const int64_t before = data.n_variants();
  data.filter_variants([&](const variant_record& v) {
    return chroms.diploid(v.chrom) || (keep_x && chroms.classify(v.chrom) == chromosome_set::kind::x);
  });
  if (data.n_variants() != before)
    log.message(std::to_string(before - data.n_variants()) + " variants on " + (keep_x ? "Y/MT" : "X/Y/MT") +
                " dropped");
}

namespace {

// The genotypes at `path` in `format`, read with o's import flags (VCF/BCF IDs and calls, BGEN
// --sample and --hard-call-threshold), their import counts in the log.
std::unique_ptr<genotype_source> open_source(const std::string& path, genotype_format format, const common_options& o,
                                             run_log& log) {
  if (format == genotype_format::bfile) {
    log.begin("read .bim/.fam, map .bed");
    return std::make_unique<plink_fileset>(path);
  }
  if (format == genotype_format::pfile) {
    log.begin("read .pgen/.pvar/.psam");
    pgen_options p;
    p.chromosomes = chromosomes(o);
    p.threads = o.threads;
    auto g = std::make_unique<pgen_genotypes>(path, p, &log);
    log_pgen_counts(*g, log);
    return g;
  }
  if (format == genotype_format::bgen) {
    log.begin("read BGEN");
    auto b = std::make_unique<bgen_genotypes>(path, bgen_options_of(o), &log);
    log_bgen_counts(*b, log);
    return b;
  }
  log.begin(format == genotype_format::vcf ? "read VCF" : "read BCF");
  auto v = std::make_unique<vcf_genotypes>(path, vcf_options_of(o), &log);
  log_vcf_counts(*v, log);
  return v;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

genotype_input predict_input(const std::string& path) {
  for (const char* ext : {".vcf", ".vcf.gz", ".vcf.bgz"})
    if (ends_with(path, ext)) return {path, genotype_format::vcf};
  if (ends_with(path, ".bcf")) return {path, genotype_format::bcf};
  if (ends_with(path, ".bgen")) return {path, genotype_format::bgen};
  if (ends_with(path, ".pgen")) return {path.substr(0, path.size() - 5), genotype_format::pfile};
  if (ends_with(path, ".bed")) return {path.substr(0, path.size() - 4), genotype_format::bfile};
  if (!std::filesystem::exists(path + ".bed") && std::filesystem::exists(path + ".pgen"))
    return {path, genotype_format::pfile};
  return {path, genotype_format::bfile};
}

std::function<std::unique_ptr<genotype_source>(const std::string&)> predict_reader(const common_options& o,
                                                                                    run_log& log) {
  return [&o, &log](const std::string& path) {
    const genotype_input in = predict_input(path);
    return open_source(in.path, in.format, o, log);  // its stage ends with the caller's "read TEST"
  };
}

namespace {
// The run's executor when it may be a cuda one, made on a thread of its own while the inputs are
// read: the CUDA driver, the context, the math libraries and the first handles take about 0.45 s
// on an H200 machine, which reading a large .bim hides. make_executor() takes it; run_command()
// drops one that no command took (waiting for its thread) before it returns.
std::future<executor> early_executor;
bool early_started = false;  // once per run: a later open_input (e.g. --predict's) starts none
}  // namespace

std::unique_ptr<selected_genotypes> open_input(const common_options& o, run_log& log) {
  if (o.bfile.empty())
    throw input_error("no genotypes given: use --bfile PREFIX, --pfile PREFIX, --vcf FILE, --bcf FILE or --bgen FILE");
  if ((o.device == "cuda" || o.device == "auto") && !early_started)
    early_started = true, early_executor = std::async(std::launch::async, [device = o.device, threads = o.threads] {
      executor e(parse_backend(device), threads, tuning::from_environment());
      e.set_communicator(communicator::world());  // before the device starts: it picks the rank's GPU
      e.start_device();
      return e;
    });
  std::unique_ptr<genotype_source> all = open_source(o.bfile, o.format, o, log);
  auto data = std::make_unique<selected_genotypes>(std::move(all));
  filter_options f = o.filters;
  f.keep = o.keep, f.extract = o.extract;
  apply_filters(*data, f, chromosomes(o), o.nonfounders, o.threads, log);
  log.message(std::to_string(data->all().n_samples()) + " samples, " +
              std::to_string(data->all().n_variants()) + " variants in " + o.bfile +
              "; " + std::to_string(data->n_samples()) + " samples and " +
              std::to_string(data->n_variants()) + " variants kept");
  log.end();
  return data;
}

executor make_executor(const common_options& o, run_log& log) {
  // "auto": cuda when it is compiled in and a device is visible, else cpu (parse_backend).
  // The PMX_* route settings (tuning.hpp) are read here, once, for the whole run.
  early_started = true;  // an open_input after this one starts no second executor
  executor exec = early_executor.valid() ? early_executor.get()
                                         : executor(parse_backend(o.device), o.threads, tuning::from_environment());
  exec.set_communicator(communicator::world());
  // Ranks sharing a host share its cores: without --threads each takes its part, not all of them.
  if (o.threads <= 0 && exec.comm().local_size() > 1)
    exec = exec.with_threads(std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / exec.comm().local_size()));
  if (exec.comm().distributed())
    log.message("Ranks: " + std::to_string(exec.comm().size()) + " processes (MPI), " +
                std::to_string(exec.comm().local_size()) + " on this host" +
                (exec.on_device() ? ", one GPU each" : ""));
  log.message("Backend: " + backend_name(exec.kind()) + ", " + std::to_string(exec.threads()) + " threads");
  return exec;
}

// Processes started by an MPI launcher for this run: the communicator's size, or where this build
// has no MPI, the launcher's own count (its environment), so that such a launch is refused too.
static int launcher_number(std::initializer_list<const char*> names, int otherwise) {
  for (const char* v : names)
    if (const char* n = std::getenv(v)) return std::max(0, std::atoi(n));
  return otherwise;
}
static int launched_ranks() {
  if (communicator::mpi_compiled_in()) return communicator::world().size();
  return std::max(1, launcher_number({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, 1));
}
static int launched_rank() {
  if (communicator::mpi_compiled_in()) return communicator::world().rank();
  return launcher_number({"OMPI_COMM_WORLD_RANK", "PMI_RANK"}, 0);
}

int run_command(const std::string& out_prefix, int argc, char** argv,
                const std::function<void(run_log&)>& body, bool splits_over_ranks) {
  const int ranks = launched_ranks();
  if (ranks > 1 && !(splits_over_ranks && communicator::mpi_compiled_in())) {
    // Every rank would compute everything and write the same files.
    if (launched_rank() == 0)
      std::fprintf(stderr, "Error: %s\n",
                   (std::string(argc > 1 ? argv[1] : "this command") + " runs as one process: it does not split its " +
                    "work over the " + std::to_string(ranks) + " processes the MPI launcher started" +
                    (communicator::mpi_compiled_in() ? "" : " (and this build has no MPI)") +
                    "; run it without mpirun")
                       .c_str());
    return 2;
  }
  // Over several ranks, rank 0 logs and writes and the others work silently; an error on one rank
  // ends them all (the others would wait for it in a collective).
  const communicator& world = communicator::world();
  std::unique_ptr<run_log> log;
  try {
    if (world.rank() == 0) check_output_prefix(out_prefix);
    log = std::make_unique<run_log>(out_prefix, argc, argv, /*quiet=*/world.rank() != 0);
    body(*log);
    early_executor = {};
    log->finish(true);
    return 0;
  } catch (const std::exception& e) {
    early_executor = {};
    std::fflush(stdout);
    const int code = dynamic_cast<const pmx::input_error*>(&e) ? 2 : 1;
    if (world.distributed())
      std::fprintf(stderr, "Error (rank %d of %d): %s\n", world.rank(), world.size(), e.what());
    else
      std::fprintf(stderr, "Error: %s\n", e.what());
    if (log) log->finish(false, e.what());
    world.abort(code);  // returns when alone
    return code;
  }
}

analysis_context genotype_analysis_context(const common_options& o, run_log& log, analysis_log& to_log,
                                           chromosome_set chroms, bool keep_x) {
  return {.log = &to_log,
          .make_executor = [&o, &log] { return make_executor(o, log); },
          .open_genotypes = [&o, &log, chroms, keep_x]() -> std::unique_ptr<genotype_source> {
            auto data = open_input(o, log);
            drop_non_autosomal(*data, chroms, log, keep_x);
            return data;
          }};
}

}  // namespace pmx::cli
