#include "panoramix/single_step_files.hpp"

#include <cstdio>

#include "core/number_text.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

std::string num(double v) { return detail::number_text(v, 10); }

// Appends "\t" and v as printf's %.10g would write it.
void append_value(std::string& text, double v) {
  char b[40];
  const int len = std::snprintf(b, sizeof b, "\t%.10g", v);
  text.append(b, static_cast<size_t>(len));
}

constexpr const char* history_header = "iteration\trelative_residual\tseconds\tgenotype_seconds\tpedigree_seconds\n";

}  // namespace

void write_single_step(output_group& out, const std::string& prefix, const single_step_analysis& r, int threads) {
  const single_step_solution& s = r.solution;
  const int t = static_cast<int>(r.traits.size());
  auto& fi = out.add(prefix + ".iter");
  // Cumulative seconds: all, in the genotype products, in the pedigree terms (A^-1, A_gg^-1).
  fi.write(history_header);
  for (const auto& h : s.pcg.history) {
    const size_t k = static_cast<size_t>(h.iteration);
    fi.printf("%lld\t%.6e\t%.6f\t%.6f\t%.6f\n", static_cast<long long>(h.iteration), h.relative_residual, h.seconds,
              k < s.genotype_seconds_after.size() ? s.genotype_seconds_after[k] : 0.0,
              k < s.pedigree_seconds_after.size() ? s.pedigree_seconds_after[k] : 0.0);
  }
  if (!s.pcg.converged) return;
  PMX_EXPECTS(static_cast<int64_t>(s.ebv.size()) == r.ped.size() * t, "single-step outputs: one EBV per animal and trait");
  auto& fs = out.add(prefix + ".sol");
  fs.write("effect\tlevel\ttrait\tvalue\n");
  for (const auto& f : s.fixed)
    fs.printf("%s\t%s\t%s\t%.10g\n", f.effect.c_str(), f.level.empty() ? "-" : f.level.c_str(),
              r.traits[f.trait].c_str(), f.value);
  auto& fe = out.add(prefix + ".ebv");
  fe.write("ID");
  for (const auto& tr : r.traits) fe.printf("\t%s", tr.c_str());
  fe.write("\n");
  fe.write_rows(r.ped.size(), threads, [&](int64_t i, std::string& text) {
    text += r.ped.id(i);
    for (int k = 0; k < t; ++k) append_value(text, s.ebv[i * t + k]);
    text += '\n';
  });
  if (!s.snp.empty()) {
    PMX_EXPECTS(r.genotypes && static_cast<int64_t>(s.snp.size()) == r.genotypes->n_variants() * t,
                "single-step outputs: one SNP effect per variant and trait");
    const genotype_source& data = *r.genotypes;
    auto& fn = out.add(prefix + ".snp");
    fn.write("SNP\tA1\tp");
    for (const auto& tr : r.traits) fn.printf("\t%s", tr.c_str());
    fn.write("\n");
    fn.write_rows(data.n_variants(), threads, [&](int64_t j, std::string& text) {
      char b[40];
      text += data.variant(j).id;
      text += '\t';
      text += data.variant(j).a1;
      text.append(b, static_cast<size_t>(std::snprintf(b, sizeof b, "\t%.6f", s.p[j])));
      for (int k = 0; k < t; ++k) append_value(text, s.snp[j * t + k]);
      text += '\n';
    });
  }
}

std::string single_step_not_converged(const single_step_analysis& r, const std::string& prefix) {
  const pcg_result& pcg = r.solution.pcg;
  return "PCG did not converge in " + std::to_string(pcg.iterations) + " iterations (||r||^2/||b||^2 = " +
         num(pcg.history.back().relative_residual) + "); raise --max-iter or --tol. Only " + prefix +
         ".iter was written";
}

pcg_progress_file::pcg_progress_file(const std::string& prefix) : path_(prefix + ".iter.part") {
  f_ = std::fopen(path_.c_str(), "w");
  if (!f_) {
    std::remove(path_.c_str());
    throw io_error("cannot write " + path_);
  }
  std::fputs(history_header, f_);
}

pcg_progress_file::~pcg_progress_file() {
  if (f_) std::fclose(f_);
  std::remove(path_.c_str());
}

void pcg_progress_file::add(const pcg_iteration& h, double genotype_seconds, double pedigree_seconds) {
  std::fprintf(f_, "%lld\t%.6e\t%.6f\t%.6f\t%.6f\n", static_cast<long long>(h.iteration), h.relative_residual,
               h.seconds, genotype_seconds, pedigree_seconds);
  std::fflush(f_);
}

}  // namespace pmx
