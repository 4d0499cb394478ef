// CPU backend of genotype_gemm: table lookups on the 2-bit codes, never a dense Z.
//
//   Z·Λ    Z values s_j (x − 2p_j) per (variant, code), 0 for missing, go into 256-entry tables
//          over 4 variants (the centring folded in, thesis §4.2.2); the kernel transposes each
//          block of .bed rows into sample-major bytes on the fly and adds one table entry per
//          4 calls. Missing calls are a code like any other: exact.
//   Zᵀ·Λ̃  The tables over 4 samples cannot hold p_j, so with the pivot r_j = round(2p_j):
//            W_j = s_j [ Σ_{i called} (x_ij − r_j) Λ̃_i  +  (r_j − 2p_j) C_j ],
//            C_j = Σ_{i called} Λ̃_i = Σ_i Λ̃_i − Σ_{i missing} Λ̃_i,
//          the first sum from the pivot tables (cpu_isa_impl.hpp), Σ_{i missing} Λ̃_i from the
//          kernel too (extra table lanes for l < 8, else added as the rows are read), C_j from
//          the column totals (or summed directly over the called samples when more than half
//          are missing). |r_j − 2p_j| ≤ |x − 2p_j| for
//          every genotype x, so neither part is larger than the terms of the exact sum (see the
//          accuracy note in the public header). For l = 1 tables over samples save little and
//          gathering row segments costs much: the rows are transposed as for Z·Λ and each
//          sample's 4 z values (one 4-wide table entry) are multiplied by Λ̃_i and summed.
//
// Threads share nothing but the inputs: Z·Λ is split by sample blocks, Zᵀ·Λ̃ by variant blocks,
// each thread with its own tables and accumulators. The table kernels come in one build per
// instruction set (cpu_<isa>.cpp), picked at run time; PMX_CPU_ISA=avx512|avx2|scalar forces one.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "core/blas_threads.hpp"
#include "core/cpu_dispatch.hpp"
#include "ops/genotype_gemm/cpu_amx.hpp"
#include "ops/genotype_gemm/cpu_isa.hpp"
#include "ops/genotype_gemm/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cpu {

namespace gemm_isa {
std::vector<table_kernels> supported_table_kernels() {
  std::vector<table_kernels> out;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("bmi2"))
    out.push_back(table_kernels_avx512());
  if (__builtin_cpu_supports("avx2")) out.push_back(table_kernels_avx2());
  out.push_back(table_kernels_scalar());
  return out;
}

const table_kernels& active_table_kernels(const executor& exec) {
  return choose_cpu_isa<table_kernels>(exec.tuning().cpu_isa, supported_table_kernels);
}

namespace {
bool profiling = false;
stage_times profile_sum;
}  // namespace
void set_gemm_profiling(bool on) { profiling = on; }
stage_times gemm_profile() { return profile_sum; }
void reset_gemm_profile() { profile_sum = {}; }
}  // namespace gemm_isa

namespace {
using namespace gemm_isa;

/// 64-byte aligned doubles (table entries are read with aligned vector loads).
class aligned_doubles {
 public:
  explicit aligned_doubles(int64_t count)
      : p_(static_cast<double*>(
            std::aligned_alloc(64, static_cast<size_t>((count * 8 + 63) / 64 * 64)))) {
    if (!p_) throw std::bad_alloc();
  }
  ~aligned_doubles() { std::free(p_); }
  aligned_doubles(const aligned_doubles&) = delete;
  aligned_doubles& operator=(const aligned_doubles&) = delete;
  aligned_doubles(aligned_doubles&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  double* get() const { return p_; }

 private:
  double* p_;
};

/// Output rows per task: a multiple of 32, at most `most`, the tasks a multiple of the thread
/// count when there are several. More rows per task amortise the tables better; fewer keep the
/// task's working set (tables, codes or row segments, accumulators) in L2. (Block sizes do not
/// change any sum: see zl_groups.)
int64_t block_rows(int64_t rows, int threads, int64_t most) {
  int64_t tasks = (rows + most - 1) / most;
  tasks = (tasks + threads - 1) / threads * threads;
  const int64_t per_task = (rows + tasks - 1) / tasks;
  return std::clamp<int64_t>((per_task + 31) / 32 * 32, 32, most);
}
constexpr int64_t zl_max_rows = 8192;   // samples per Z·Λ task
constexpr int64_t zlt_max_rows = 4096;  // variants per Zᵀ·Λ̃ task

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Adds the threads' stage clocks to the profile (when profiling).
void add_profile(const std::vector<stage_times>& per_thread, double setup) {
  if (!gemm_isa::profiling) return;
  stage_times& sum = gemm_isa::profile_sum;
  sum.setup += setup;
  for (const auto& t : per_thread) {
    sum.repack += t.repack, sum.tables += t.tables, sum.lookups += t.lookups;
    sum.finish += t.finish;
  }
}

double scale_of(const gemm_centring& c, int64_t j) { return c.scale.empty() ? 1.0 : c.scale[j]; }

/// Z value of each code per variant (s_j (x − 2p_j), 0 for missing); padding variants (to a
/// multiple of 4) are all zero.
std::vector<double> z_values(const gemm_centring& c, int64_t k) {
  std::vector<double> zv(static_cast<size_t>((k + 3) / 4 * 16), 0.0);
  for (int64_t j = 0; j < k; ++j) {
    const double s = scale_of(c, j), two_p = 2 * c.p[j];
    for (int code = 0; code < 4; ++code) {
      const int x = dosage_of_code(static_cast<uint8_t>(code));
      zv[4 * j + code] = x < 0 ? 0.0 : s * (x - two_p);
    }
  }
  return zv;
}

void store(const double* acc, int64_t rows, int64_t l, double beta, double* out, int64_t ld) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < l; ++c) {
      double& o = out[r * ld + c];
      o = beta == 0 ? acc[r * l + c] : acc[r * l + c] + beta * o;
    }
}

/// Σ_i Λ̃_i per column, compensated (Neumaier), so that C_j = total − Σ_missing is as good as
/// the missing sum.
std::vector<double> column_totals(const double* lambda, int64_t ld, int64_t rows, int64_t l) {
  std::vector<double> sum(static_cast<size_t>(l), 0.0), comp(static_cast<size_t>(l), 0.0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < l; ++c) {
      const double x = lambda[i * ld + c], t = sum[c] + x;
      comp[c] += std::fabs(sum[c]) >= std::fabs(x) ? (sum[c] - t) + x : (x - t) + sum[c];
      sum[c] = t;
    }
  for (int64_t c = 0; c < l; ++c) sum[c] += comp[c];
  return sum;
}

struct zlt_thread {
  aligned_doubles tables{table_doubles};
  std::vector<int32_t> order;
  std::vector<uint8_t> segs, block_segs;
  std::vector<double> acc, missing_sum, called_sum;
  std::vector<int64_t> missing_count;
};

/// W_j = s_j [acc_j + (r_j − 2p_j) C_j] (+ β W_j) for the variants [j0, j1) of one block.
void finish_transposed(const variant_major_view& g, const gemm_centring& c, const uint8_t* pivot,
                       const double* lambda, int64_t ld_lambda, int64_t l,
                       const std::vector<double>& total, int64_t j0, int64_t j1, zlt_thread& t,
                       double beta, double* W, int64_t ld_w) {
  const int64_t rows = j1 - j0, n = g.n_samples;
  t.called_sum.resize(static_cast<size_t>(l));
  double* C = t.called_sum.data();
  for (int64_t jl = 0; jl < rows; ++jl) {
    const int64_t j = j0 + jl, m = t.missing_count[jl], called = n - m;
    double* out = W + j * ld_w;
    const double* a = t.acc.data() + jl * l;
    if (called == 0) {  // Z column is exactly 0, whatever p_j
      for (int64_t col = 0; col < l; ++col) out[col] = beta == 0 ? 0.0 : beta * out[col];
      continue;
    }
    if (m <= called) {
      const double* ms = t.missing_sum.data() + jl * l;
      for (int64_t col = 0; col < l; ++col) C[col] = total[col] - ms[col];
    } else {  // mostly missing: sum the called samples directly
      std::fill(C, C + l, 0.0);
      for (int64_t i = 0; i < n; ++i)
        if (g.code(i, j) != code_missing)
          for (int64_t col = 0; col < l; ++col) C[col] += lambda[i * ld_lambda + col];
    }
    const double s = scale_of(c, j), coef = s * (pivot[j] - 2 * c.p[j]);
    for (int64_t col = 0; col < l; ++col) {
      const double v = s * a[col] + coef * C[col];
      out[col] = beta == 0 ? v : v + beta * out[col];
    }
  }
}

/// Runs `kernel(r0, r1, scratch, acc)` over blocks of `rows` output rows in parallel, each thread
/// with its own code bytes, table and accumulators, then stores every block into `out` (β
/// semantics) and adds the stage profile. Shared by Z·Λ and the narrow Zᵀ·Λ̃ path.
template <class Kernel>
void run_row_blocks(const executor& exec, int64_t total, int64_t rows, size_t code_bytes, int64_t l,
                    double beta, double* out, int64_t ld_out, double setup, Kernel&& kernel) {
  const int64_t blocks = (total + rows - 1) / rows;
  const int threads = static_cast<int>(std::min<int64_t>(exec.threads(), blocks));
  std::vector<std::vector<uint8_t>> codes(threads, std::vector<uint8_t>(code_bytes));
  std::vector<std::vector<double>> acc(threads, std::vector<double>(static_cast<size_t>(rows * l)));
  std::vector<aligned_doubles> tables;
  for (int t = 0; t < threads; ++t) tables.emplace_back(table_doubles);
  std::vector<stage_times> times(static_cast<size_t>(threads));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t b = 0; b < blocks; ++b) {
    const int t = omp_get_thread_num();
    const int64_t r0 = b * rows, r1 = std::min(total, r0 + rows);
    kernel(r0, r1, zl_scratch{codes[t].data(), tables[t].get(), gemm_isa::profiling ? &times[t] : nullptr},
           acc[t].data());
    const auto t_store = clock_type::now();
    store(acc[t].data(), r1 - r0, l, beta, out + r0 * ld_out, ld_out);
    if (gemm_isa::profiling) times[t].finish += seconds_since(t_store);
  }
  add_profile(times, setup);
}

/// Zᵀ·Λ̃ for l = 1: dot products of the z values (as in Z·Λ) with Λ̃.
void transposed_narrow(const executor& exec, const variant_major_view& g, const gemm_centring& c,
                       int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* W,
                       int64_t ld_w) {
  const int64_t k = g.n_variants;
  const auto t_setup = clock_type::now();
  const std::vector<double> zv = z_values(c, k);
  const zl_problem prob{g, zv.data(), lambda, ld_lambda, l, 0};
  const table_kernels& kern = active_table_kernels(exec);
  const int64_t rows = block_rows(k, exec.threads(), zlt_max_rows);
  run_row_blocks(exec, k, rows, 32 * 1024, l, beta, W, ld_w, seconds_since(t_setup),
                 [&](int64_t j0, int64_t j1, const zl_scratch& scratch, double* acc) {
                   kern.zts(prob, j0, j1, scratch, acc);
                 });
}

}  // namespace

void gemm(const executor& exec, const variant_major_view& g, const gemm_centring& c, int64_t l,
          const double* lambda, int64_t ld_lambda, double beta, double* Y, int64_t ld_y) {
  const int64_t n = g.n_samples, k = g.n_variants;
  if (n == 0 || l == 0) return;
  const auto t_setup = clock_type::now();
  const std::vector<double> zv = z_values(c, k);
  const zl_problem prob{g, zv.data(), lambda, ld_lambda, l, zl_groups(l)};
  const table_kernels& kern = active_table_kernels(exec);
  const int64_t rows = block_rows(n, exec.threads(), zl_max_rows);
  const int64_t stride = (rows + 255) / 256 * 256;  // as zl_stride() in the kernels
  run_row_blocks(exec, n, rows, static_cast<size_t>(stride * prob.groups), l, beta, Y, ld_y,
                 seconds_since(t_setup), [&](int64_t i0, int64_t i1, const zl_scratch& scratch, double* acc) {
                   kern.zl(prob, i0, i1, scratch, acc);
                 });
}

/// Zᵀ·Λ̃ for wide Λ̃ (l ≥ wide_columns: the eigenbasis rotations of mixed-model association):
/// blocks of variants (up to 4,096) decoded to their dense z values (one row per variant, missing calls 0), then
/// BLAS dgemm. Above that width the product is compute-bound and dgemm's register blocking beats
/// the table kernels, whose lookups are re-made for every 64-column panel (bench/lmm_vs_gemma.sh).
constexpr int64_t wide_columns = 256;
constexpr int64_t wide_block_doubles = int64_t(1) << 24;  // 128 MB of decoded z values per dgemm

void transposed_wide(const executor& exec, const variant_major_view& g, const gemm_centring& c, int64_t l,
                     const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  const int64_t n = g.n_samples, k = g.n_variants;
  const std::vector<double> zv = z_values(c, k);
  // Wide blocks: dgemm of n × l by n × rows runs near its peak only for rows in the thousands.
  const int64_t block = std::clamp<int64_t>(wide_block_doubles / std::max<int64_t>(n, 1), 256, 4096);
  std::vector<double> D(static_cast<size_t>(std::min(k, block) * n));
  for (int64_t j0 = 0; j0 < k; j0 += block) {
    const int64_t rows = std::min(block, k - j0);
#pragma omp parallel for schedule(static) num_threads(exec.threads())
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* codes = g.row(j0 + r);
      const double* z = zv.data() + 4 * (j0 + r);
      double* d = D.data() + r * n;
      for (int64_t i = 0; i < n; ++i) d[i] = z[(codes[i >> 2] >> (2 * (i & 3))) & 3u];
    }
    // Row-major W rows [j0, j0 + rows) = D Λ̃, i.e. column-major Wᵀ = Λ̃ᵀ Dᵀ.
    const detail::blas_threads t(exec.threads());
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(l), static_cast<int>(rows),
                static_cast<int>(n), 1.0, lambda, static_cast<int>(ld_lambda), D.data(), static_cast<int>(n), beta,
                W + j0 * ld_w, static_cast<int>(ld_w));
  }
}

void gemm_transposed(const executor& exec, const variant_major_view& g, const gemm_centring& c,
                     int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* W,
                     int64_t ld_w) {
  const int64_t n = g.n_samples, k = g.n_variants;
  if (k == 0 || l == 0) return;
  if (l == 1) return transposed_narrow(exec, g, c, l, lambda, ld_lambda, beta, W, ld_w);
  if (l >= wide_columns)
    return transposed_wide(exec, g, c, l, lambda, ld_lambda, beta, W, ld_w);
  const auto t_setup = clock_type::now();
  std::vector<uint8_t> pivot(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    const double two_p = 2 * c.p[j];
    pivot[j] = std::isfinite(two_p)
                   ? static_cast<uint8_t>(std::clamp(std::nearbyint(two_p), 0.0, 2.0))
                   : 0;
  }
  const std::vector<double> total = column_totals(lambda, ld_lambda, n, l);
  const zlt_problem prob{g, pivot.data(), lambda, ld_lambda, l, zlt_groups(l)};
  const table_kernels& kern = active_table_kernels(exec);
  const int64_t rows = block_rows(k, exec.threads(), zlt_max_rows), blocks = (k + rows - 1) / rows;
  const int threads = static_cast<int>(std::min<int64_t>(exec.threads(), blocks));
  std::vector<zlt_thread> work(static_cast<size_t>(threads));
  for (auto& t : work) {
    t.order.resize(static_cast<size_t>(rows));
    t.segs.assign(static_cast<size_t>((rows + 16) * zlt_span), 0);  // whole 16-row tiles
    t.block_segs.assign(static_cast<size_t>((rows + 16) * prob.groups), 0);
    t.acc.resize(static_cast<size_t>(rows * l));
    t.missing_sum.resize(static_cast<size_t>(rows * l));
    t.missing_count.resize(static_cast<size_t>(rows));
  }
  std::vector<stage_times> times(static_cast<size_t>(threads));
  const double setup = seconds_since(t_setup);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t b = 0; b < blocks; ++b) {
    const int thread = omp_get_thread_num();
    zlt_thread& t = work[thread];
    const int64_t j0 = b * rows, j1 = std::min(k, j0 + rows);
    kern.zlt(
        prob, j0, j1,
        {t.tables.get(), t.order.data(), t.segs.data(), t.block_segs.data(), t.missing_sum.data(),
         t.missing_count.data(), gemm_isa::profiling ? &times[thread] : nullptr},
        t.acc.data());
    const auto t_finish = clock_type::now();
    finish_transposed(g, c, pivot.data(), lambda, ld_lambda, l, total, j0, j1, t, beta, W, ld_w);
    if (gemm_isa::profiling) times[thread].finish += seconds_since(t_finish);
  }
  add_profile(times, setup);
}

namespace {
// The AMX-INT8 route for a normwise operand's product (cpu_amx.hpp): it measured faster than the
// table kernels for both products at every width (bench_gemm, dev VM, 10,000 × 50,000, 2 threads,
// fastest of 5: Z·Λ 72 / 115 / 256 ms against 80 / 164 / 396 ms at l = 1 / 10 / 32, Zᵀ·Λ̃ 55 / 90
// / 231 against 83 / 289 / 532 ms).
bool int8_route(const gemm_operand& g, bool transposed) {
  if (g.accuracy() != gemm_accuracy::normwise) return false;
  const tuning::int8 setting = g.exec().tuning().gemm_int8;
  if (setting == tuning::int8::off) return false;
  if (gemm_amx_applies(transposed ? g.view().n_samples : g.view().n_variants)) return true;
  if (setting == tuning::int8::require)
    throw unsupported_error("gemm (cpu): PMX_GEMM_INT8=require, but this CPU has no usable AMX-INT8 / AVX-512 VBMI");
  return false;
}
}  // namespace

void gemm(const gemm_operand& g, const gemm_centring& c, int64_t l, const double* lambda, int64_t ld_lambda,
          double beta, double* Y, int64_t ld_y) {
  if (int8_route(g, false)) return gemm_amx(g.exec(), g.view(), c, l, lambda, ld_lambda, beta, Y, ld_y);
  cpu::gemm(g.exec(), g.view(), c, l, lambda, ld_lambda, beta, Y, ld_y);
}

void gemm_transposed(const gemm_operand& g, const gemm_centring& c, int64_t l, const double* lambda,
                     int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  if (int8_route(g, true)) return gemm_transposed_amx(g.exec(), g.view(), c, l, lambda, ld_lambda, beta, W, ld_w);
  cpu::gemm_transposed(g.exec(), g.view(), c, l, lambda, ld_lambda, beta, W, ld_w);
}

}  // namespace pmx::kernels::cpu
