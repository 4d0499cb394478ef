// panoramix pedigree: checks and renumbers a pedigree, writes inbreeding coefficients and A⁻¹.
#include <omp.h>

#include <algorithm>
#include <charconv>

#include "cli/common.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/pedigree.hpp"

namespace pmx::cli {

namespace {

// Buffered text output with std::to_chars (shortest form that reads back exactly): A⁻¹ of a
// million animals is millions of lines, too many for printf to be negligible.
class text_writer {
 public:
  explicit text_writer(output_file& f) : f_(f) {}
  ~text_writer() = default;
  void put(std::string_view s) {
    if (used_ + s.size() > sizeof buf_) flush();
    if (s.size() > sizeof buf_) return f_.write(s);
    std::copy(s.begin(), s.end(), buf_ + used_);
    used_ += s.size();
  }
  template <class T>
  void number(T x) {
    if (used_ + 32 > sizeof buf_) flush();
    used_ = std::to_chars(buf_ + used_, buf_ + sizeof buf_, x).ptr - buf_;
  }
  void flush() {
    f_.write(buf_, used_);
    used_ = 0;
  }

 private:
  output_file& f_;
  char buf_[1 << 16];
  size_t used_ = 0;
};

const std::string& parent_id(const pedigree& ped, int64_t p) {
  static const std::string zero = "0";
  return p == pedigree::unknown ? zero : ped.id(p);
}

}  // namespace

void add_pedigree_command(CLI::App& app, int argc, char** argv, int& status) {
  auto opt = std::make_shared<common_options>();
  auto ped_path = std::make_shared<std::string>();
  auto columns = std::make_shared<std::string>("auto");
  auto ainv = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("pedigree", "pedigree checks, renumbering, inbreeding, A-inverse");
  cmd->footer(
      "Input (--ped): one animal per line: animal, sire, dam (whitespace or comma separated,\n"
      "  quotes allowed, further columns ignored); 0, NA, '.', '*' or empty = unknown parent.\n"
      "  A first line naming the parent columns (sire/dam/father/mother/par1/par2...) is a header;\n"
      "  'dam' before 'sire' there swaps the columns (or give --columns). Records in any order.\n"
      "Checks (error with file:line): an animal its own parent or ancestor (cycle), conflicting\n"
      "  records of one ID (identical ones merged, logged), an ID used as sire and as dam.\n"
      "  Parents not listed as animals are added as founders (logged).\n"
      "Outputs (animals renumbered parents-first, 1-based, stable):\n"
      "  PREFIX.ids        index, id, sire id, dam id (0 = unknown), in renumbered order\n"
      "  PREFIX.inbreeding index, id, F (exact: Meuwissen & Luo 1992 / Colleau 2002 per sire)\n"
      "  PREFIX.ainv       with --ainv: A-inverse (Henderson's rules with inbreeding) as triplets\n"
      "                    'row col value', lower triangle (row >= col), renumbered indices\n"
      "Example: panoramix pedigree --ped herd.csv --out herd --ainv");
  cmd->add_option("--ped", *ped_path, "pedigree file (animal sire dam)")->required();
  cmd->add_option("--out", opt->out, "output PREFIX (default: panoramix)");
  cmd->add_option("--threads", opt->threads, "worker threads (default: all cores)");
  cmd->add_option("--columns", *columns, "auto|sire-dam|dam-sire: order of the parent columns")
      ->check(CLI::IsMember({"auto", "sire-dam", "dam-sire"}));
  cmd->add_flag("--ainv", *ainv, "also write PREFIX.ainv (sparse A-inverse, triplets)");
  cmd->callback([=, &status] {
    status = run_command(opt->out, argc, argv, [&](run_log& log) {
      check_output_prefix(opt->out);
      const int threads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
      log.begin("read and check pedigree");
      pedigree_notes notes;
      const pedigree ped = read_pedigree_file(
          *ped_path,
          *columns == "sire-dam"   ? pedigree_columns::sire_dam
          : *columns == "dam-sire" ? pedigree_columns::dam_sire
                                   : pedigree_columns::automatic,
          &notes);
      log.end();
      for (const auto& line : notes.lines) log.message("Note: " + line);
      log.message(std::to_string(notes.records) + " records, " + std::to_string(ped.size()) +
                  " animals (" + std::to_string(notes.added_founders) + " parents added as founders, " +
                  std::to_string(notes.merged_duplicates) + " duplicate records merged, " +
                  std::to_string(notes.parents_listed_later) +
                  " records with a parent listed after them)");

      log.begin("inbreeding");
      const std::vector<double> F = inbreeding(ped, threads);
      log.end();
      int64_t inbred = 0;
      double sum = 0, max = 0;
      for (double f : F) {
        inbred += f > 0;
        sum += f;
        max = std::max(max, f);
      }
      log.message(std::to_string(inbred) + " inbred animals; mean F " +
                  std::to_string(ped.size() ? sum / ped.size() : 0.0) + ", max F " +
                  std::to_string(max));

      sparse_symmetric Ainv;
      if (*ainv) {
        log.begin("A-inverse");
        Ainv = a_inverse(ped, F);
        log.end();
        log.message("A-inverse: " + std::to_string(Ainv.nonzeros()) +
                    " nonzeros in the lower triangle");
      }

      log.begin("write");
      output_group out;
      {
        text_writer w(out.add(opt->out + ".ids"));
        w.put("#index\tid\tsire\tdam\n");
        for (int64_t i = 0; i < ped.size(); ++i) {
          w.number(i + 1);
          w.put("\t");
          w.put(ped.id(i));
          w.put("\t");
          w.put(parent_id(ped, ped.sire(i)));
          w.put("\t");
          w.put(parent_id(ped, ped.dam(i)));
          w.put("\n");
        }
        w.flush();
      }
      {
        text_writer w(out.add(opt->out + ".inbreeding"));
        w.put("#index\tid\tF\n");
        for (int64_t i = 0; i < ped.size(); ++i) {
          w.number(i + 1);
          w.put("\t");
          w.put(ped.id(i));
          w.put("\t");
          w.number(F[i]);
          w.put("\n");
        }
        w.flush();
      }
      if (*ainv) {
        text_writer w(out.add(opt->out + ".ainv"));
        for (int64_t r = 0; r < Ainv.n; ++r)
          for (int64_t k = Ainv.row_start[r]; k < Ainv.row_start[r + 1]; ++k) {
            w.number(r + 1);
            w.put(" ");
            w.number(Ainv.col[k] + 1);
            w.put(" ");
            w.number(Ainv.value[k]);
            w.put("\n");
          }
        w.flush();
      }
      out.commit_all();
      log.end();
      log.message("Written: " + opt->out + ".ids, .inbreeding" + (*ainv ? ", .ainv" : ""));
    });
  });
}

}  // namespace pmx::cli
