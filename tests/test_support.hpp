// Shared helpers of the tests: random genotype matrices with adversarial content, temporary
// directories, running the panoramix binary and PLINK, reading binary outputs.
#pragma once
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/packed_genotypes.hpp"

/// First statement of a test that needs a GPU: skips it, saying why, when none can run here.
#define PMX_REQUIRE_GPU()                                                                          \
  do {                                                                                             \
    if (!::pmx::cuda_available())                                                                  \
      GTEST_SKIP() << (::pmx::cuda_compiled_in() ? "no CUDA device is visible on this machine"    \
                                                 : "this build has no CUDA backend (PMX_CUDA off)"); \
  } while (0)

namespace pmx::test {

/// The shared reference executor of op tests.
inline const executor& reference_executor() {
  static const executor r = executor::reference();
  return r;
}

/// Which executor checks a backend on a case of `work` units: the reference up to
/// `reference_limit`, `fallback` beyond (a backend itself checked against the reference up to that
/// size) or, without one, none (the case is left out); cases whose check costs more than
/// `cost_limit` are left out too (the cpu tests keep their time so).
struct backend_oracle {
  int64_t reference_limit = INT64_MAX;
  const executor* fallback = nullptr;
  int64_t cost_limit = INT64_MAX;
  const executor* pick(int64_t work, int64_t cost) const {
    if (cost > cost_limit) return nullptr;
    return work <= reference_limit ? &reference_executor() : fallback;
  }
};

/// A cpu executor whose kernel families run their `isa` build ("" = the best supported).
inline executor cpu_with_isa(const std::string& isa, int threads) {
  tuning t;
  t.cpu_isa = isa;
  return executor(backend::cpu, threads, t);
}

/// Random genotypes: each call missing with probability `missing`, else 0/1/2 from a per-variant
/// frequency. Variant 0 is all-missing and variant 1 monomorphic when `adversarial` and k >= 2.
packed_genotypes random_genotypes(int64_t n, int64_t k, double missing, uint64_t seed,
                                  bool adversarial = true);

/// Dosage (0/1/2) of a call, or -1 if missing.
inline int dosage(const packed_genotypes& g, int64_t i, int64_t l) {
  return dosage_of_code(g.view().code(i, l));
}

/// A fresh directory under the build tree's working directory, removed on destruction.
class temp_dir {
 public:
  temp_dir();
  ~temp_dir();
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

/// Runs a shell command; returns its exit status. Output goes to `log` if given.
int run(const std::string& command, const std::string& log = {});
/// Runs the panoramix binary with `args`; returns the exit status.
int panoramix(const std::string& args, const std::string& log = {});
/// Path of a dataset prefix under ../shared/data, or "" when it is absent.
std::string shared_data(const std::string& relative_prefix);
/// Path of a file under ../shared/data, or "" when it is absent (the test then skips, saying so).
std::string data_file(const std::string& relative_path);
bool have_program(const std::string& name);
/// A Python interpreter with numpy and scipy (Debian's /usr/bin/python3 first, else python3 on
/// PATH, as on the GPU machine), or "" when there is none.
std::string python_with_scipy();

/// One scratch directory shared by a test program's side-by-side runs (removed at exit).
temp_dir& work();
/// `s` in single quotes for the shell.
std::string shq(const std::string& s);
/// Runs a shell command (output to `log`) the first time it is asked for; later calls return the
/// first exit status, so tests that compare the same outputs run each tool once.
int run_once(const std::string& command, const std::string& log);

std::vector<double> read_doubles(const std::string& path);
std::vector<float> read_floats(const std::string& path);
std::string read_text(const std::string& path);

/// A symmetric n × n matrix (row-major, exactly symmetric) with the given eigenvalues.
std::vector<double> matrix_with_spectrum(const std::vector<double>& lambda, uint64_t seed);

/// Checks a shifted solve against closed forms for A = Q diag(lambda) Qᵀ: the residual
/// (a·A + b·I) X − B in long double, and log det = Σ log(a·λ_i + b). Returns the largest
/// relative deviation of either.
double shifted_solve_error(const std::vector<double>& A, const std::vector<double>& lambda, double a, double b,
                           const std::vector<double>& B, const std::vector<double>& X, int64_t m, double logdet);

/// Gaussian elimination with partial pivoting in long double (the dense oracle of the solver
/// tests): solves M X = B (M k×k, B k×m, row-major; B overwritten by X), returns log|det M|.
long double ld_solve(std::vector<long double> M, std::vector<long double>& B, int64_t k, int64_t m);

#ifdef PMX_MPIEXEC
/// The command that starts the panoramix binary as `np` ranks under the build's MPI launcher
/// (tests of commands split over ranks; PMX_MPIEXEC from tests/CMakeLists.txt): Open MPI allowed
/// as root (CI containers), more ranks than cores, one OpenMP thread per rank.
inline std::string mpirun_panoramix(int np) {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
                     "OMP_NUM_THREADS=1 ") +
         PMX_MPIEXEC + " -n " + std::to_string(np) + " " + PMX_BINARY;
}
#endif

}  // namespace pmx::test

/// Declares `var` = the path of ../shared/data/`rel`, or skips the test saying that it is absent.
#define PMX_REQUIRE_DATA(var, rel)                  \
  const std::string var = ::pmx::test::data_file(rel); \
  if (var.empty()) GTEST_SKIP() << "../shared/data/" << (rel) << " is absent"

/// First statement of a test that compares with plink2: skips it, saying so, when plink2 is absent.
#define PMX_REQUIRE_PLINK2()                                                        \
  do {                                                                              \
    if (!::pmx::test::have_program("plink2")) GTEST_SKIP() << "plink2 is not installed"; \
  } while (0)
