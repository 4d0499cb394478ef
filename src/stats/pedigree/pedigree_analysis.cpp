// The pedigree analysis from a file to results (pedigree_analysis.hpp).
#include "panoramix/pedigree_analysis.hpp"

#include <omp.h>

#include <algorithm>

#include "core/number_text.hpp"

namespace pmx {
namespace {

// Deeper than any real pedigree (20-60 generations) by far: warned about at once.
constexpr int64_t deep_pedigree_generations = 1000;

std::string number(double v) { return detail::number_text(v, 3); }

}  // namespace

pedigree_analysis run_pedigree_analysis(const pedigree_analysis_options& opt, analysis_log* log_or_null) {
  null_analysis_log quiet;
  analysis_log& log = log_or_null ? *log_or_null : quiet;
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  pedigree_analysis r;
  log.begin("read and check pedigree");
  r.ped = read_pedigree_file(opt.ped, opt.columns, &r.notes);
  log.end();
  const pedigree& ped = r.ped;
  const pedigree_notes& notes = r.notes;
  for (const auto& line : notes.lines) log.message("Note: " + line);
  log.message(std::to_string(notes.records) + " records, " + std::to_string(ped.size()) +
              " animals (" + std::to_string(notes.added_founders) + " parents added as founders, " +
              std::to_string(notes.merged_duplicates) + " duplicate records merged, " +
              std::to_string(notes.parents_listed_later) +
              " records with a parent listed after them)");

  // Depth first, and at once: the cost of exact inbreeding grows with it (pedigree.hpp), so a
  // pathological pedigree is named before the long stage starts rather than after it.
  // Only animals with both parents known cost a walk (the others' F is 0 without one).
  const int64_t depth = pedigree_depth(ped);
  int64_t both = 0;
  for (int64_t i = 0; i < ped.size(); ++i) both += ped.sire(i) != pedigree::unknown && ped.dam(i) != pedigree::unknown;
  log.message(std::to_string(depth) + " generations (longest line of descent from a founder)");
  if (depth > deep_pedigree_generations && both > 0)
    log.message("Warning: the pedigree is " + std::to_string(depth) + " generations deep (livestock pedigrees are "
                "20-60): exact inbreeding walks every sire's ancestors, so its cost grows with the depth, to "
                "about (animals with both parents known) x depth / 2 = " +
                number(0.5 * static_cast<double>(both) * static_cast<double>(depth)) +
                " steps for a chain; it may take long (progress is reported as it runs)");
  log.begin("inbreeding");
  r.F = inbreeding(ped, threads, inbreeding_method::automatic, &log);
  log.end();
  int64_t inbred = 0;
  double sum = 0, max = 0;
  for (double f : r.F) {
    inbred += f > 0;
    sum += f;
    max = std::max(max, f);
  }
  log.message(std::to_string(inbred) + " inbred animals; mean F " +
              std::to_string(ped.size() ? sum / ped.size() : 0.0) + ", max F " +
              std::to_string(max));

  if (opt.a_inverse) {
    log.begin("A-inverse");
    r.a_inverse = a_inverse(ped, r.F, threads);
    log.end();
    r.has_a_inverse = true;
    log.message("A-inverse: " + std::to_string(r.a_inverse.nonzeros()) + " nonzeros in the lower triangle");
  }
  return r;
}

}  // namespace pmx
