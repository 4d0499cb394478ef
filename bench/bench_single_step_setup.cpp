// Set-up pieces of a single-step evaluation that depend on the pedigree only: reading it,
// inbreeding, A⁻¹, the A⁻¹ product of a PCG iteration, the CHOLMOD factor of A^{nn} for A_gg⁻¹
// and one A_gg⁻¹ product, with t = 1 and t = 3 columns. Prints one line per piece (seconds) and
// the peak resident memory.
//   bench_single_step_setup --ped PED --fam FAM [--threads N] [--reps R] [--full]
// FAM: PLINK .fam of the genotyped animals (IID = pedigree ID). --full also factorises A^{nn}
// of the whole pedigree (not pruned to genotyped animals and their ancestors).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "panoramix/genotyped_a_inverse.hpp"
#include "panoramix/pedigree.hpp"

using namespace pmx;

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
double peak_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);
}
void row(const char* what, double s, const std::string& note = {}) {
  std::printf("%-34s %9.3f s  (peak RSS %.2f GiB)%s%s\n", what, s, peak_gib(),
              note.empty() ? "" : "  ", note.c_str());
  std::fflush(stdout);
}

std::vector<double> random_block(int64_t n, int64_t t) {
  std::vector<double> X(n * t);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& x : X) x = u(rng);
  return X;
}

// Median seconds of `reps` calls of f.
template <class F>
double median_time(int reps, F&& f) {
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = clock_type::now();
    f();
    s.push_back(since(t0));
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

void time_agg(const char* name, genotyped_a_inverse& op, double setup, int reps) {
  char note[256];
  std::snprintf(note, sizeof note, "A^nn %lld x %lld, %lld nonzeros; factor %lld nonzeros, %s, %d levels",
                static_cast<long long>(op.nongenotyped()), static_cast<long long>(op.nongenotyped()),
                static_cast<long long>(op.nongenotyped_nonzeros()),
                static_cast<long long>(op.factor_nonzeros()),
                op.supernodal() ? "supernodal" : "simplicial", op.solve_levels());
  row((std::string(name) + ": set-up").c_str(), setup, note);
  row((std::string(name) + ": factorisation").c_str(), op.factor_seconds());
  const int64_t k = op.size();
  // The level-scheduled sweeps (when the factor allows them), then cholmod_solve2.
  for (bool cholmod : {false, true}) {
    if (cholmod && op.solve_levels() == 0) break;
    op.use_cholmod_solve(cholmod);
    for (int64_t t : {1, 3}) {
      const auto X = random_block(k, t);
      std::vector<double> Y(k * t);
      op.apply(t, X.data(), Y.data());  // first call allocates the workspaces
      const double s = median_time(reps, [&] { op.apply(t, X.data(), Y.data()); });
      row((std::string(name) + ": apply t = " + std::to_string(t) +
           (cholmod ? " (cholmod_solve2)" : op.solve_levels() ? " (sweeps)" : ""))
              .c_str(),
          s);
    }
  }
  op.use_cholmod_solve(false);
}

}  // namespace

int main(int argc, char** argv) {
  std::string ped_path, fam_path;
  int threads = 0, reps = 3;
  bool full = false;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--full")) full = true;
    else if (a + 1 < argc && !std::strcmp(argv[a], "--ped")) ped_path = argv[++a];
    else if (a + 1 < argc && !std::strcmp(argv[a], "--fam")) fam_path = argv[++a];
    else if (a + 1 < argc && !std::strcmp(argv[a], "--threads")) threads = std::stoi(argv[++a]);
    else if (a + 1 < argc && !std::strcmp(argv[a], "--reps")) reps = std::stoi(argv[++a]);
    else {
      std::fprintf(stderr, "usage: %s --ped PED --fam FAM [--threads N] [--reps R] [--full]\n", argv[0]);
      return 2;
    }
  }
  if (ped_path.empty() || fam_path.empty()) {
    std::fprintf(stderr, "--ped and --fam are required\n");
    return 2;
  }
  try {
    auto t0 = clock_type::now();
    const pedigree ped = read_pedigree_file(ped_path);
    row("read pedigree", since(t0), std::to_string(ped.size()) + " animals");

    std::vector<int64_t> genotyped;
    {
      std::ifstream fam(fam_path);
      std::string fid, iid, rest;
      while (fam >> fid >> iid && std::getline(fam, rest)) genotyped.push_back(ped.index(iid));
    }
    t0 = clock_type::now();
    const auto F = inbreeding(ped, threads);
    double fmax = 0, fsum = 0;
    for (double f : F) fmax = std::max(fmax, f), fsum += f;
    char note[128];
    std::snprintf(note, sizeof note, "mean F %.4f, max %.4f", fsum / F.size(), fmax);
    row("inbreeding", since(t0), note);

    t0 = clock_type::now();
    const sparse_symmetric ainv = a_inverse(ped, F);
    row("A-inverse", since(t0), std::to_string(ainv.nonzeros()) + " nonzeros (lower)");
    t0 = clock_type::now();
    const sparse_symmetric_operator op(ainv);
    row("A-inverse operator (both triangles)", since(t0));
    for (int64_t t : {1, 3}) {
      const auto X = random_block(ped.size(), t);
      std::vector<double> Y(X.size());
      const double s = median_time(reps, [&] { op.apply(t, X.data(), Y.data(), threads); });
      row(("A-inverse product t = " + std::to_string(t)).c_str(), s);
    }

    std::printf("genotyped: %zu\n", genotyped.size());
    t0 = clock_type::now();
    {
      genotyped_a_inverse agg(ped, F, genotyped, threads);
      time_agg("A_gg^-1 (pruned pedigree)", agg, since(t0), reps);
    }
    if (full) {
      t0 = clock_type::now();
      genotyped_a_inverse agg(ainv, genotyped, threads);
      time_agg("A_gg^-1 (whole A^-1)", agg, since(t0), reps);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
