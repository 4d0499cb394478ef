// The pedigree analysis from a file to results (pedigree_analysis.hpp).
#include "panoramix/pedigree_analysis.hpp"

#include <omp.h>

#include <algorithm>

namespace pmx {

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

  log.begin("inbreeding");
  r.F = inbreeding(ped, threads);
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
    r.a_inverse = a_inverse(ped, r.F);
    log.end();
    r.has_a_inverse = true;
    log.message("A-inverse: " + std::to_string(r.a_inverse.nonzeros()) + " nonzeros in the lower triangle");
  }
  return r;
}

}  // namespace pmx
