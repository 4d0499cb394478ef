// Interface between the cpu driver of genotype_gemm (cpu.cpp: centring, blocking, threads, missing
// calls, final scaling) and its table kernels, one build per instruction set (cpu_<isa>.cpp, all
// from the one template source cpu_isa_impl.hpp), chosen at run time like the popcount tiles.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/genotype_gemm/stage_clock.hpp"
#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"

namespace pmx::kernels::cpu::gemm_isa {

/// Groups of 4 (variants for Z·Λ, samples for Zᵀ·Λ̃) whose tables are built and used together:
/// as many as keep a block's tables within 512 KiB (more for narrow products, whose table entries
/// are small). The order of every floating-point sum depends on l and these counts and on nothing
/// else (not on threads, block sizes or the instruction set), so results are reproducible bit for
/// bit. Zᵀ·Λ̃ entries for l < 8 carry the missing-call sums too (twice as wide).
constexpr int64_t zl_groups(int64_t l) { return l >= 8 ? 32 : l >= 4 ? 64 : 128; }
constexpr int64_t zlt_groups(int64_t l) { return l >= 4 ? 32 : 64; }
/// Zᵀ·Λ̃ gathers zlt_span bytes (4 × that many samples) of each row of a block per visit, a
/// multiple of zlt_groups(): visits of strided rows shorter than a few cache lines leave most of
/// the memory bandwidth unused; longer ones crowd the tables out of L2.
inline constexpr int64_t zlt_span = 256;
/// Doubles of table scratch one thread needs (groups × 256 entries × entry width ≤ 64 Ki).
inline constexpr int64_t table_doubles = 32 * 256 * 8;

/// Thread-seconds spent in each stage, summed over threads (for bench/bench_gemm; off by default).
struct stage_times {
  double setup = 0;  ///< driver: z values / pivots / column totals, before the kernels
  double repack = 0;  ///< Z·Λ: .bed rows -> sample-major bytes; Zᵀ·Λ̃: row segments, missing calls
  double tables = 0;   ///< building the 256-entry tables
  double lookups = 0;  ///< the table lookups
  double finish = 0;   ///< driver: centring sums, scaling, β, writing the output
};
/// Turns the stage clocks on or off (they cost a clock read per table block when on).
void set_gemm_profiling(bool on);
/// Stage times accumulated by the calls since the last reset.
stage_times gemm_profile();
void reset_gemm_profile();

/// Z·Λ over the samples [i0, i1) (i0 a multiple of 32):
///   acc[(i − i0) * l + c] = Σ_j zv[4j + code(i, j)] · Λ[j][c]
struct zl_problem {
  variant_major_view g;
  const double* zv = nullptr;  ///< 4 per variant, padded with zeros to a multiple of 4 variants
  const double* lambda = nullptr;
  int64_t ld_lambda = 0, l = 0;
  int64_t groups = 0;  ///< zl_groups(l)
};
struct zl_scratch {
  uint8_t* codes = nullptr;      ///< groups × round_up(i1 − i0, 32) sample-major code bytes
  double* tables = nullptr;      ///< table_doubles, 64-byte aligned
  stage_times* times = nullptr;  ///< stage clocks, or null
};

/// Zᵀ·Λ̃ over the variants [j0, j1), with pivots r_j ∈ {0, 1, 2}:
///   acc[(j − j0) * l + c]          = Σ_{i called at j} (x_ij − r_j) · Λ̃[i][c]
///   missing_sum[(j − j0) * l + c]  = Σ_{i missing at j} Λ̃[i][c]     (in increasing i)
///   missing_count[j − j0]          = number of missing calls of variant j
struct zlt_problem {
  variant_major_view g;
  const uint8_t* pivot = nullptr;  ///< r_j per variant
  const double* lambda = nullptr;
  int64_t ld_lambda = 0, l = 0;
  int64_t groups = 0;  ///< zlt_groups(l)
};
struct zlt_scratch {
  double* tables = nullptr;          ///< table_doubles, 64-byte aligned
  int32_t* order = nullptr;          ///< j1 − j0 entries
  uint8_t* segs = nullptr;           ///< (j1 − j0 + 16) × zlt_span bytes, zero-initialised
  uint8_t* block_segs = nullptr;     ///< (j1 − j0 + 16) × groups bytes, zero-initialised
  double* missing_sum = nullptr;     ///< output, (j1 − j0) × l
  int64_t* missing_count = nullptr;  ///< output, j1 − j0
  stage_times* times = nullptr;      ///< stage clocks, or null
};

using zl_fn = void (*)(const zl_problem&, int64_t i0, int64_t i1, const zl_scratch&, double* acc);
using zlt_fn = void (*)(const zlt_problem&, int64_t j0, int64_t j1, const zlt_scratch&,
                        double* acc);

/// Zᵀ·Λ̃ for l = 1 over the variants [j0, j1) (j0 a multiple of 4), from z values as for Z·Λ
/// (p.lambda is then Λ̃, n × 1): acc[j − j0] = Σ_i zv[4j + code(i, j)] · Λ̃[i][0].
/// Scratch: codes of 32 groups × 1024 samples, tables of 32 × 256 × 4 doubles.
using zts_fn = zl_fn;

struct table_kernels {
  const char* isa;
  zl_fn zl;
  zlt_fn zlt;
  zts_fn zts;
};

/// The builds this CPU can run, best first ("avx512", "avx2", "scalar").
std::vector<table_kernels> supported_table_kernels();
/// The build ops of `exec` use: the best supported, or the one its tuning().cpu_isa names.
const table_kernels& active_table_kernels(const executor& exec);

table_kernels table_kernels_scalar();
table_kernels table_kernels_avx2();
table_kernels table_kernels_avx512();

}  // namespace pmx::kernels::cpu::gemm_isa
