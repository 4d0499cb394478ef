// bench_gemm: genotype × dense products Z·Λ and Zᵀ·Λ̃ (the PCG kernel) on 2-bit genotypes, side
// by side with OpenBLAS dgemm on the same Z inflated to doubles, same thread count.
//
//   bench_gemm [--samples N] [--variants K] [--missing F] [--reps R] [--threads T] [--ls 1,10,32]
//              [--no-blas] [--no-int8] [--no-tables] [--fastest] [--isa avx512|avx2|scalar]
//
// Genotypes: each variant gets p ~ U(0.02, 0.5); a call is missing with probability F, else the
// sum of two Bernoulli(p) draws (Hardy–Weinberg). Z is centred with the observed frequencies and
// scaled by 1/sqrt(2p(1−p)) (GCTA standardisation; monomorphic variants get s = 0). Timings are
// medians over R repetitions after one warm-up call; dgemm times exclude inflating Z. The stage
// decomposition is thread-seconds per stage (summed over threads) of the panoramix calls.
// Where the CPU has AMX-INT8 (and AVX-512 VBMI), each width is also run on a normwise operand
// with both products forced onto the AMX-INT8 route (cpu_amx.hpp; PMX_GEMM_INT8=require), rows
// "Z*L8" / "Zt*L8"; --no-int8 skips them, --no-tables skips the componentwise rows (their stage
// table then reads 0). --fastest reports the fastest call of each set instead of the median: for
// comparing kernel changes on a machine whose other tenants steal time (RESULTS quotes medians).
#include <cblas.h>
#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "ops/genotype_gemm/cpu_amx.hpp"
#include "ops/genotype_gemm/cpu_isa.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/packed_genotypes.hpp"

extern "C" char* openblas_get_config();
extern "C" char* openblas_get_corename();

namespace {

using namespace pmx;
namespace isa = pmx::kernels::cpu::gemm_isa;

struct options {
  int64_t n = 10000, k = 50000, reps = 5;
  double missing = 0.01;
  int threads = 0;
  std::vector<int64_t> ls = {1, 10, 32};
  bool blas = true, int8 = true, tables = true, fastest = false;
  std::string isa;
};

[[noreturn]] void usage() {
  std::fprintf(
      stderr,
      "usage: bench_gemm [--samples N] [--variants K] [--missing F] [--reps R] [--threads T]\n"
      "                  [--ls 1,10,32] [--no-blas] [--no-int8] [--no-tables] [--fastest]\n"
      "                  [--isa avx512|avx2|scalar]\n");
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) usage();
      return argv[++a];
    };
    if (arg == "--samples")
      o.n = std::stoll(value());
    else if (arg == "--variants")
      o.k = std::stoll(value());
    else if (arg == "--missing")
      o.missing = std::stod(value());
    else if (arg == "--reps")
      o.reps = std::stoll(value());
    else if (arg == "--threads")
      o.threads = std::stoi(value());
    else if (arg == "--no-blas")
      o.blas = false;
    else if (arg == "--no-tables")
      o.tables = false;
    else if (arg == "--fastest")
      o.fastest = true;
    else if (arg == "--no-int8")
      o.int8 = false;
    else if (arg == "--isa")
      o.isa = value();
    else if (arg == "--ls") {
      o.ls.clear();
      std::string s = value();
      for (size_t pos = 0; pos <= s.size();) {
        const size_t comma = std::min(s.find(',', pos), s.size());
        o.ls.push_back(std::stoll(s.substr(pos, comma - pos)));
        pos = comma + 1;
      }
    } else
      usage();
  }
  if (o.threads <= 0) o.threads = omp_get_max_threads();
  if (o.n <= 0 || o.k <= 0 || o.reps <= 0 || o.ls.empty()) usage();
  return o;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Hardy–Weinberg genotypes with missing calls, one deterministic stream per variant.
packed_genotypes simulate(int64_t n, int64_t k, double missing, int threads) {
  packed_genotypes g(n, k);
  const uint64_t miss = static_cast<uint64_t>(missing * 65536);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
  for (int64_t j = 0; j < k; ++j) {
    uint64_t state = 0x1234567ull + static_cast<uint64_t>(j) * 0x9E3779B97F4A7C15ull;
    const double p = 0.02 + 0.48 * static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53;
    const uint64_t cut = static_cast<uint64_t>(p * 65536);
    uint8_t* row = g.row(j);
    std::memset(row, 0, static_cast<size_t>(g.row_bytes()));
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t r = splitmix(state);
      uint8_t code;
      if ((r & 0xFFFF) < miss)
        code = code_missing;
      else {
        const int x = (((r >> 16) & 0xFFFF) < cut) + (((r >> 32) & 0xFFFF) < cut);
        code = x == 2 ? code_hom_a1 : x == 1 ? code_het : code_hom_a2;
      }
      row[i >> 2] |= static_cast<uint8_t>(code << (2 * (i & 3)));
    }
  }
  return g;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

bool report_fastest = false;  // --fastest

/// Median (or, with --fastest, least) seconds of `reps` calls after one warm-up call.
double time_median(int64_t reps, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int64_t r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (t.empty()) return std::nan("");
  return report_fastest ? *std::min_element(t.begin(), t.end()) : median(t);
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i)
    num = std::max(num, std::fabs(a[i] - b[i])), den = std::max(den, std::fabs(b[i]));
  return den > 0 ? num / den : num;
}

void print_stages(int64_t l, const char* what, const isa::stage_times& t, double calls) {
  const double total = t.setup + t.repack + t.tables + t.lookups + t.finish;
  auto pct = [&](double x) { return total > 0 ? 100 * x / total : 0.0; };
  std::printf(
      "%-4ld %-6s setup %6.1f (%2.0f%%)  repack %6.1f (%2.0f%%)  tables %6.1f (%2.0f%%)  lookups "
      "%7.1f (%2.0f%%)"
      "  finish %5.1f (%2.0f%%)\n",
      l, what, 1e3 * t.setup / calls, pct(t.setup), 1e3 * t.repack / calls, pct(t.repack),
      1e3 * t.tables / calls, pct(t.tables), 1e3 * t.lookups / calls, pct(t.lookups),
      1e3 * t.finish / calls, pct(t.finish));
}

void print_amx_stages(int64_t l, const char* what, const kernels::cpu::amx_stage_times& t, double calls) {
  const double total = t.digits + t.decode + t.products + t.missing + t.finish;
  auto pct = [&](double x) { return total > 0 ? 100 * x / total : 0.0; };
  std::printf(
      "%-4ld %-6s digits %6.1f (%2.0f%%)  decode %6.1f (%2.0f%%)  tile products %7.1f (%2.0f%%)  missing "
      "%6.1f (%2.0f%%)  finish %5.1f (%2.0f%%)\n",
      l, what, 1e3 * t.digits / calls, pct(t.digits), 1e3 * t.decode / calls, pct(t.decode),
      1e3 * t.products / calls, pct(t.products), 1e3 * t.missing / calls, pct(t.missing),
      1e3 * t.finish / calls, pct(t.finish));
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  report_fastest = o.fastest;
  tuning settings = tuning::from_environment();
  if (!o.isa.empty()) settings.cpu_isa = o.isa;
  const executor cpu(backend::cpu, o.threads, settings);

  std::string command;
  for (int a = 0; a < argc; ++a) command += (a ? " " : "") + std::string(argv[a]);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  utsname un{};
  uname(&un);
  std::printf("command : %s\n", command.c_str());
  std::printf("date    : %s\n", date);
  std::printf("machine : %s, %ld online cores, %s %s\n", cpu_model().c_str(),
              sysconf(_SC_NPROCESSORS_ONLN), un.sysname, un.release);
  std::printf("threads : %d (panoramix and OpenBLAS)   table kernels: %s   OpenBLAS: %s (%s)\n",
              o.threads, isa::active_table_kernels(cpu).isa, openblas_get_config(),
              openblas_get_corename());
  const double bytes_2bit = static_cast<double>(o.k) * ((o.n + 3) / 4);
  std::printf(
      "data    : %ld samples x %ld variants, %.1f%% missing; 2-bit %.1f MB, inflated double %.1f "
      "MB\n",
      o.n, o.k, 100 * o.missing, bytes_2bit / 1e6, 8.0 * o.n * o.k / 1e6);
  std::printf("load    : %s (1/5/15 min; other processes share these cores)\n\n",
              load_average().c_str());

  auto t0 = std::chrono::steady_clock::now();
  const packed_genotypes g = simulate(o.n, o.k, o.missing, o.threads);
  std::vector<variant_counts> counts(static_cast<size_t>(o.k));
  allele_counts(cpu, g.view(), {}, counts);
  std::vector<double> p(static_cast<size_t>(o.k)), s(static_cast<size_t>(o.k));
  for (int64_t j = 0; j < o.k; ++j) {
    const auto& c = counts[j];
    p[j] = c.called() ? static_cast<double>(c.a1_copies()) / (2.0 * c.called()) : 0.0;
    const double v = 2 * p[j] * (1 - p[j]);
    s[j] = v > 0 ? 1 / std::sqrt(v) : 0.0;
  }
  const gemm_centring centring{p, s};
  std::printf("simulated in %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  // Phase 1: panoramix, all widths (before any dgemm, whose idle threads may spin for a while).
  const bool int8 = o.int8 && kernels::cpu::gemm_amx_applies(std::max(o.n, o.k));
  std::printf("int8    : %s\n", int8 ? "normwise operands on AMX-INT8 (rows int8)" : "not run");
  struct result {
    int64_t l;
    std::vector<double> lambda, lambda_t, Y, W, Y8, W8;
    double t_zl = 0, t_ztl = 0, b_zl = 0, b_ztl = 0, d_zl = 0, d_ztl = 0;
    double t_zl8 = 0, t_ztl8 = 0, d_zl8 = 0, d_ztl8 = 0, c_zl8 = 0, c_ztl8 = 0;
    isa::stage_times st_zl, st_ztl;
    kernels::cpu::amx_stage_times st_zl8, st_ztl8;
  };
  std::vector<result> results;
  for (int64_t l : o.ls) {
    result r;
    r.l = l;
    r.lambda.resize(static_cast<size_t>(o.k * l));
    r.lambda_t.resize(static_cast<size_t>(o.n * l));
    uint64_t st = 42 + static_cast<uint64_t>(l);
    for (auto& v : r.lambda) v = static_cast<double>(splitmix(st) >> 11) * 0x1.0p-53 - 0.5;
    for (auto& v : r.lambda_t) v = static_cast<double>(splitmix(st) >> 11) * 0x1.0p-53 - 0.5;
    r.Y.resize(static_cast<size_t>(o.n * l));
    r.W.resize(static_cast<size_t>(o.k * l));
    // Stage clocks are on (a clock read per table block, negligible); they count thread-seconds.
    isa::set_gemm_profiling(true);
    isa::reset_gemm_profile();
    const int64_t table_reps = o.tables ? o.reps : 0;  // --no-tables: one untimed call each, for the checks
    r.t_zl = time_median(
        table_reps, [&] { gemm(cpu, g.view(), centring, l, r.lambda.data(), l, 0.0, r.Y.data(), l); });
    r.st_zl = isa::gemm_profile();
    isa::reset_gemm_profile();
    r.t_ztl = time_median(table_reps, [&] {
      gemm_transposed(cpu, g.view(), centring, l, r.lambda_t.data(), l, 0.0, r.W.data(), l);
    });
    r.st_ztl = isa::gemm_profile();
    isa::set_gemm_profiling(false);
    if (int8) {
      tuning amx = settings;
      amx.gemm_int8 = tuning::int8::require;  // both products on AMX, whatever the default picks
      const gemm_operand op(executor(backend::cpu, o.threads, amx), g.view(), gemm_accuracy::normwise);
      r.Y8.resize(r.Y.size());
      r.W8.resize(r.W.size());
      kernels::cpu::set_amx_profiling(true);
      kernels::cpu::reset_amx_profile();
      r.t_zl8 = time_median(o.reps, [&] { gemm(op, centring, l, r.lambda.data(), l, 0.0, r.Y8.data(), l); });
      r.st_zl8 = kernels::cpu::amx_profile();
      kernels::cpu::reset_amx_profile();
      r.t_ztl8 = time_median(o.reps, [&] {
        gemm_transposed(op, centring, l, r.lambda_t.data(), l, 0.0, r.W8.data(), l);
      });
      r.st_ztl8 = kernels::cpu::amx_profile();
      kernels::cpu::set_amx_profiling(false);
      r.c_zl8 = max_rel_diff(r.Y8, r.Y);
      r.c_ztl8 = max_rel_diff(r.W8, r.W);
    }
    results.push_back(std::move(r));
  }

  // Phase 2: OpenBLAS on Z inflated to doubles, variant-major (k x n row-major, the .bed
  // orientation): the same matrix for both products, as panoramix has only the one copy.
  if (o.blas) {
    t0 = std::chrono::steady_clock::now();
    std::vector<double> Zd(static_cast<size_t>(o.k * o.n));
#pragma omp parallel for schedule(static) num_threads(o.threads)
    for (int64_t j = 0; j < o.k; ++j)
      for (int64_t i = 0; i < o.n; ++i) {
        const int x = dosage_of_code(g.view().code(i, j));
        Zd[j * o.n + i] = x < 0 ? 0.0 : s[j] * (x - 2 * p[j]);
      }
    std::printf("inflated to double in %.1f s (not timed)\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    openblas_set_num_threads(o.threads);
    for (auto& r : results) {
      const int n = static_cast<int>(o.n), k = static_cast<int>(o.k), l = static_cast<int>(r.l);
      std::vector<double> Yb(r.Y.size()), Wb(r.W.size());
      r.b_zl = time_median(o.reps, [&] {
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, l, k, 1.0, Zd.data(), n,
                    r.lambda.data(), l, 0.0, Yb.data(), l);
      });
      r.b_ztl = time_median(o.reps, [&] {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, l, n, 1.0, Zd.data(), n,
                    r.lambda_t.data(), l, 0.0, Wb.data(), l);
      });
      r.d_zl = max_rel_diff(r.Y, Yb);
      r.d_ztl = max_rel_diff(r.W, Wb);
      if (int8) r.d_zl8 = max_rel_diff(r.Y8, Yb), r.d_ztl8 = max_rel_diff(r.W8, Wb);
    }
  }

  std::printf(
      "\n%s of %ld repetitions after a warm-up call; GB/s = 2-bit genotype bytes / time;\n"
      "GFLOP/s-eq = 2·n·k·l / time; max rel d = max|panoramix − dgemm| / max|dgemm|\n",
      o.fastest ? "fastest" : "medians", o.reps);
  std::printf("%-4s %-6s | %10s %8s %10s | %10s %10s | %7s | %9s\n", "l", "op", "panoramix", "GB/s",
              "GFLOP/s-eq", "dgemm", "GFLOP/s", "speedup", "max rel d");
  for (const auto& r : results) {
    const double flops = 2.0 * o.n * o.k * r.l;
    auto row = [&](const char* op, double t, double b, double d) {
      if (o.blas)
        std::printf("%-4ld %-6s | %8.1f ms %8.2f %10.1f | %7.1f ms %10.1f | %6.1fx | %9.1e\n", r.l,
                    op, 1e3 * t, bytes_2bit / t / 1e9, flops / t / 1e9, 1e3 * b, flops / b / 1e9,
                    b / t, d);
      else
        std::printf("%-4ld %-6s | %8.1f ms %8.2f %10.1f | %10s %10s | %7s | %9s\n", r.l, op,
                    1e3 * t, bytes_2bit / t / 1e9, flops / t / 1e9, "-", "-", "-", "-");
    };
    if (o.tables) {
      row("Z*L", r.t_zl, r.b_zl, r.d_zl);
      row("Zt*L", r.t_ztl, r.b_ztl, r.d_ztl);
    }
    if (int8) {
      row("Z*L8", r.t_zl8, r.b_zl, r.d_zl8);
      row("Zt*L8", r.t_ztl8, r.b_ztl, r.d_ztl8);
    }
  }
  if (int8) {
    std::printf("int8 rows (normwise operand, AMX-INT8) against the componentwise kernels: max rel d\n");
    for (const auto& r : results) std::printf("  l = %-3ld Z*L %.1e   Zt*L %.1e\n", r.l, r.c_zl8, r.c_ztl8);
  }
  std::printf(
      "\nstages of the panoramix calls (thread-ms per call, summed over threads; share of the "
      "total):\n");
  for (const auto& r : results) {
    if (!o.tables) break;
    print_stages(r.l, "Z*L", r.st_zl, static_cast<double>(o.reps + 1));
    print_stages(r.l, "Zt*L", r.st_ztl, static_cast<double>(o.reps + 1));
  }
  if (int8) {
    std::printf("stages of the int8 rows (thread-ms per call; digits: wall time x threads):\n");
    for (const auto& r : results) {
      print_amx_stages(r.l, "Z*L8", r.st_zl8, static_cast<double>(o.reps + 1));
      print_amx_stages(r.l, "Zt*L8", r.st_ztl8, static_cast<double>(o.reps + 1));
    }
  }
  std::printf("load average at the end: %s\n", load_average().c_str());
  return 0;
}
