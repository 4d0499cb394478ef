// panoramix ld: linkage disequilibrium (PLINK 1.9 --r / --r2).
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "cli/common.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ld.hpp"
#include "panoramix/ld_files.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::cli {

namespace {

struct ld_cli_options {
  std::vector<std::string> r2_mods, r_mods;
  int64_t window = 10;
  double window_kb = 1000;
  double window_r2 = 0.2;
  bool inter_chr = false, with_freqs = false, ld_nonfounders = false;
  int64_t memory_mb = 2048;
};

std::string fmt_g(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", x);
  return b;
}

// --r2/--r square over the ranks of an MPI launch: the square's chunk pairs split over the ranks
// (ld_square_blocks_of_rank: each rank reads only its blocks' variants, and the upper triangle's
// half of the work is divided, not repeated); each block and its transpose are written at their
// place in the one .ld.bin, whose temporary rank 0 made (and commits once every rank has
// written): the bytes of one process.
void write_square_over_ranks(const executor& exec, const genotype_source& data, const ld_options& o,
                             const std::string& prefix, const std::string& what, run_log& log) {
  const communicator& comm = exec.comm();
  const int64_t m = data.n_variants();
  const std::vector<ld_square_block> blocks = ld_square_blocks_of_rank(m, comm.rank(), comm.size());
  log.message("LD " + what + " square: " + std::to_string(m) + " x " + std::to_string(m) + " float64 (" +
              fmt_g(double(m) * double(m) * 8 / 1e9) + " GB) to " + prefix + ".ld.bin, blocks split over " +
              std::to_string(comm.size()) + " ranks");
  rank_shared_output file(comm, prefix + ".ld.bin");
  const uint64_t row_bytes = static_cast<uint64_t>(m) * sizeof(double);
  std::vector<double> transposed;
  log.begin("linkage disequilibrium");
  compute_ld_square_blocks(
      exec, data, o, blocks,
      [&](const ld_square_block& b, const double* v) {
        const int64_t na = b.r1 - b.r0, nb = b.c1 - b.c0;
        auto put = [&](int64_t r0, int64_t c0, int64_t rows, int64_t cols, const double* x) {  // row segments
          for (int64_t i = 0; i < rows; ++i)
            file.write_at(static_cast<uint64_t>(r0 + i) * row_bytes + static_cast<uint64_t>(c0) * sizeof(double),
                          x + i * cols, static_cast<uint64_t>(cols) * sizeof(double));
        };
        put(b.r0, b.c0, na, nb, v);
        if (b.r0 == b.c0) return;  // a diagonal block is whole
        transposed.resize(static_cast<size_t>(na * nb));  // r(b, a) = r(a, b) to the bit
        for (int64_t i = 0; i < na; ++i)
          for (int64_t j = 0; j < nb; ++j) transposed[static_cast<size_t>(j * na + i)] = v[i * nb + j];
        put(b.c0, b.r0, nb, na, transposed.data());
      },
      &log);
  log.end();
  file.commit();
  log.message("Written: " + prefix + ".ld.bin");
}

// The pair table over the ranks of an MPI launch: each rank lists the pairs (a, b) of its
// rows_of_rank share of the a's into an unnamed file beside the output (unlinked at once: nothing
// is left behind whatever happens), then, once every rank knows where its lines start (the sizes of
// the ranks before it), copies them to their place in rank 0's temporary, which rank 0 commits.
int64_t write_table_over_ranks(const executor& exec, const genotype_source& data, ld_options o,
                               const std::vector<double>* freqs, const std::string& prefix, run_log& log) {
  const communicator& comm = exec.comm();
  const sample_range mine = rows_of_rank(data.n_variants(), comm.rank(), comm.size());
  o.first_row = mine.first, o.end_row = mine.first + mine.count;
  const std::string part_path = prefix + ".ld.part" + std::to_string(comm.rank()) + ".tmp." + std::to_string(::getpid());
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> part(std::fopen(part_path.c_str(), "w+b"), &std::fclose);
  if (!part) throw io_error("cannot write '" + part_path + "': " + std::strerror(errno));
  std::remove(part_path.c_str());
  auto fail = [&] { throw io_error("error writing '" + prefix + ".ld' (this rank's part): " + std::strerror(errno)); };
  int64_t pairs = 0;
  {
    ld_table_writer writer(
        [&](std::string_view text) {
          if (std::fwrite(text.data(), 1, text.size(), part.get()) != text.size()) fail();
        },
        data, o.chromosomes, o.stat, freqs, /*header=*/comm.rank() == 0);
    log.begin("linkage disequilibrium");
    compute_ld_table(exec, data, o, [&](std::span<const ld_pair> p) { writer.write(p); }, &log);
    log.end();
    pairs = writer.rows();
  }
  if (std::fflush(part.get()) != 0) fail();
  const int64_t bytes = ::ftello(part.get());
  std::vector<int64_t> sizes(static_cast<size_t>(comm.size()));
  comm.all_gather(&bytes, sizeof bytes, sizes.data());
  uint64_t at = 0;
  for (int r = 0; r < comm.rank(); ++r) at += static_cast<uint64_t>(sizes[r]);
  rank_shared_output file(comm, prefix + ".ld");
  std::vector<char> piece(size_t{64} << 20);
  std::rewind(part.get());
  for (int64_t done = 0; done < bytes;) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(bytes - done, static_cast<int64_t>(piece.size())));
    if (std::fread(piece.data(), 1, want, part.get()) != want) fail();
    file.write_at(at + static_cast<uint64_t>(done), piece.data(), want);
    done += static_cast<int64_t>(want);
  }
  comm.sum(&pairs, 1);
  file.commit();
  return pairs;
}

}  // namespace

void add_ld_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto lo = std::make_shared<ld_cli_options>();
  auto* cmd =
      app.add_subcommand("ld", "linkage disequilibrium between variants (PLINK 1.9 --r2 / --r)");
  cmd->footer(
      "r is the Pearson correlation of A1 counts (.bim column 5) over the founders called at both\n"
      "variants (as PLINK 1.9, also with --nonfounders, which changes only --with-freqs; use\n"
      "--ld-nonfounders for every sample); a monomorphic pair or one without a joint call is nan.\n"
      "X: males haploid (het calls missing); Y: males only. Values are PLINK 1.9's, bit for bit\n"
      "(plink1.9 --keep-allele-order; on autosomes r2 does not depend on the allele order).\n"
      "Outputs:\n"
      "  --r2 square / --r square   PREFIX.ld.bin: n_variants x n_variants float64, row-major, in\n"
      "                             .bim order (PLINK --r2/--r square bin); nan where undefined.\n"
      "                             Written a block of rows at a time: --memory bounds the block.\n"
      "  --r2 / --r                 PREFIX.ld: PLINK 1.9's table, one line per pair (A before B):\n"
      "                             CHR_A BP_A SNP_A [MAF_A] CHR_B BP_B SNP_B [MAF_B] R2|R\n"
      "                             pairs on one chromosome with B at most --ld-window - 1 "
      "variants\n"
      "                             and --ld-window-kb after A, r2 >= --ld-window-r2 (|r| >=\n"
      "                             sqrt(--ld-window-r2) for --r), nan pairs never listed.\n"
      "                             --inter-chr: every later variant, windows ignored.\n"
      "                             --with-freqs: MAF_A/MAF_B = A1 frequency (founders; every\n"
      "                             sample with --nonfounders).\n"
      "  Under mpirun -np N the work is split over the ranks, each writing its part of the same\n"
      "  files (the bytes of one process): square, the blocks of pairs of variant chunks (each rank\n"
      "  reads only its chunks); the table, its rows (first variants).\n"
      "  PLINK's modifiers are accepted after --r2/--r too: square, bin (= square), inter-chr,\n"
      "  with-freqs. The window flags are ignored with square.\n"
      "Examples:\n"
      "  panoramix ld --bfile sim --out sim --r2 square\n"
      "  panoramix ld --bfile sim --out sim --r2 --ld-window 99999 --ld-window-kb 1000 "
      "--ld-window-r2 0.2");
  add_common_options(cmd, *opt, true);
  auto* r2 =
      cmd->add_option("--r2", lo->r2_mods, "r2 (squared correlation); 'square' for the full matrix")
          ->expected(0, 4)
          ->type_name("[square|bin|inter-chr|with-freqs]...");
  auto* r = cmd->add_option("--r", lo->r_mods, "signed r (A1 counts); 'square' for the full matrix")
                ->expected(0, 4)
                ->type_name("[square|bin|inter-chr|with-freqs]...");
  cmd->add_option("--ld-window", lo->window,
                  "table: B at most N-1 variants after A (default 10, >= 2)");
  cmd->add_option("--ld-window-kb", lo->window_kb,
                  "table: B at most this many kb after A (default 1000)");
  cmd->add_option("--ld-window-r2", lo->window_r2,
                  "table: report r2 >= this (default 0.2; 0 = all)");
  cmd->add_flag("--inter-chr", lo->inter_chr,
                "table: every later variant on any chromosome, no window");
  cmd->add_flag("--with-freqs", lo->with_freqs, "table: add MAF_A and MAF_B (A1 frequencies)");
  cmd->add_flag("--ld-nonfounders", lo->ld_nonfounders,
                "LD over every kept sample, nonfounders included (PLINK 1.9 uses founders only)");
  cmd->add_option("--memory", lo->memory_mb,
                  "working memory in MB, bounds the rows computed at once (default 2048)");
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_common_options(*opt);
      if ((r2->count() > 0) == (r->count() > 0))
        throw input_error("give exactly one of --r2 and --r");
      ld_options o;
      o.stat = r2->count() ? ld_statistic::r2 : ld_statistic::r;
      bool square = false, inter_chr = lo->inter_chr, with_freqs = lo->with_freqs;
      for (const auto& mod : r2->count() ? lo->r2_mods : lo->r_mods) {
        if (mod.empty()) continue;  // "--r2" with no modifier
        if (mod == "square")
          square = true;
        else if (mod == "bin")
          square = true;  // as PLINK: "bin" alone means "square bin"
        else if (mod == "inter-chr")
          inter_chr = true;
        else if (mod == "with-freqs")
          with_freqs = true;
        else
          throw input_error("unknown modifier '" + mod + "' after --r" +
                            (o.stat == ld_statistic::r2 ? "2" : "") +
                            " (square, bin, inter-chr, with-freqs)");
      }
      if (square && (inter_chr || with_freqs))
        throw input_error(
            "inter-chr and with-freqs apply to the table only, not to square matrix output");
      o.nonfounders = opt->nonfounders;
      o.ld_nonfounders = lo->ld_nonfounders;
      o.chromosomes = chromosomes(*opt);
      o.memory_mb = lo->memory_mb;
      o.window_variants = lo->window;
      o.window_bp = ld_window_bp_from_kb(lo->window_kb);
      o.window_r2 = lo->window_r2;
      o.inter_chr = inter_chr;
      check_ld_options(o);  // before reading anything

      const communicator& world = communicator::world();
      auto data = open_input(*opt, log);
      const executor exec = make_executor(*opt, log);
      const std::string what = o.stat == ld_statistic::r2 ? "r2" : "r";
      output_group out;
      if (square && world.distributed()) {
        write_square_over_ranks(exec, *data, o, opt->out, what, log);
        return;
      }
      if (square) {
        const int64_t m = data->n_variants();
        log.message("LD " + what + " square: " + std::to_string(m) + " x " + std::to_string(m) +
                    " float64 (" + fmt_g(double(m) * double(m) * 8 / 1e9) + " GB) to " + opt->out +
                    ".ld.bin");
        ld_bin_writer writer(out, opt->out, m);
        log.begin("linkage disequilibrium");
        compute_ld_square(
            exec, *data, o,
            [&](int64_t first, int64_t rows, const double* v) {
              writer.write_rows(first, rows, v);
            },
            &log);
        log.end();
        if (!writer.complete()) throw logic_error("LD matrix incomplete");
        out.commit_all();
        log.message("Written: " + opt->out + ".ld.bin");
        return;
      }
      std::vector<double> freqs;
      if (with_freqs) freqs = ld_frequencies(exec, *data, o);
      log.message("LD " + what + " table" +
                  (inter_chr ? std::string(" (inter-chr)")
                             : ": --ld-window " + std::to_string(o.window_variants) +
                                   ", --ld-window-kb " + fmt_g(double(o.window_bp) / 1000)) +
                  ", --ld-window-r2 " + fmt_g(o.window_r2));
      if (world.distributed()) {
        const int64_t pairs = write_table_over_ranks(exec, *data, o, with_freqs ? &freqs : nullptr, opt->out, log);
        log.message(std::to_string(pairs) + " pairs written to " + opt->out + ".ld (rows split over " +
                    std::to_string(world.size()) + " ranks)");
        return;
      }
      ld_table_writer writer(out, opt->out, *data, o.chromosomes, o.stat,
                             with_freqs ? &freqs : nullptr);
      log.begin("linkage disequilibrium");
      compute_ld_table(
          exec, *data, o, [&](std::span<const ld_pair> pairs) { writer.write(pairs); }, &log);
      log.end();
      out.commit_all();
      log.message(std::to_string(writer.rows()) + " pairs written to " + opt->out + ".ld");
    }, /*splits_over_ranks=*/true);
  });
}

}  // namespace pmx::cli
