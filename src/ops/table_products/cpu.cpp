// CPU kernels for products of table-decoded genotypes.
//
// table_crossprod decodes a panel of variants (a few hundred at a time, so the panel stays in
// cache-sized memory and the genotype matrix is never inflated whole) and hands it to OpenBLAS
// dsyrk/dgemm on tiles of the lower triangle: the weights differ per variant, so the product is
// genuinely floating point, and a tuned GEMM beats a hand-written loop here. The next panel is
// decoded while the current one is multiplied (one barrier per panel). On CPUs with AMX-INT8,
// affine tables (centred and scaled dosages, 0 for missing) take the integer route instead
// (cpu_amx.hpp); PMX_TABLE_CROSSPROD=blas keeps this one.
#include <cblas.h>

#include <algorithm>
#include <vector>

#include "core/blas_threads.hpp"
#include "core/cpu_dispatch.hpp"
#include "ops/table_products/cpu_amx.hpp"
#include "ops/table_products/kernels.hpp"

namespace pmx::kernels::cpu {
namespace {

inline uint8_t code_at(const uint8_t* row, int64_t i) { return (row[i >> 2] >> (2 * (i & 3))) & 3; }

// Missing-call rate above which "auto" keeps BLAS: the AMX route's missing-call terms cost ~n FP64
// operations per missing call. Measured on 2,000 × 8,192 (2 threads): AMX 1.5× faster at 1 %,
// even at 5 %, 3× slower at 15 %.
constexpr double amx_max_missing_rate = 0.03;

// Variants per decoded panel: large enough for dsyrk efficiency, small enough for cache.
int64_t panel_width(int64_t n) { return std::clamp<int64_t>((int64_t{1} << 22) / std::max<int64_t>(n, 1), 128, 512); }

// Per-variant lists of missing samples, read with popcount-style scanning of the code words.
std::vector<std::vector<int64_t>> missing_by_variant(const variant_major_view& g, int threads) {
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(g.n_variants));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t l = 0; l < g.n_variants; ++l) {
    const uint8_t* row = g.row(l);
    for (int64_t i = 0; i < g.n_samples; ++i)
      if (code_at(row, i) == code_missing) out[l].push_back(i);
  }
  return out;
}

// The AMX route when it applies; false leaves the work to BLAS. tuning().table_crossprod: automatic
// (AMX when usable, the tables are affine and missing calls are sparse enough), amx (AMX whenever
// usable and the tables allow it, whatever the missing rate), blas (FP64 OpenBLAS on decoded
// panels). A forced tuning().cpu_isa also selects BLAS, so that comparison runs that force an
// instruction set do not use AMX.
bool amx_route(const executor& exec, const variant_major_view& g, std::span<const code_table> t, double* C,
               int64_t ld) {
  using route = tuning::route;
  const route chosen = exec.tuning().table_crossprod;
  if (chosen == route::blas || !exec.tuning().cpu_isa.empty() || !amx_int8_usable()) return false;
  const int64_t n = g.n_samples, k = g.n_variants;
  // Below a tile row the BLAS route is as fast and avoids the setup.
  if (chosen != route::amx && n < 64) return false;
  affine_plan plan;
  if (!make_affine_plan(t, plan)) return false;
  const auto miss = missing_samples(g, exec.threads());
  if (chosen != route::amx) {
    // The missing-call terms cost ~n per missing call in FP64; past a few percent BLAS wins.
    int64_t calls = 0;
    for (const auto& m : miss) calls += static_cast<int64_t>(m.size());
    if (calls > amx_max_missing_rate * double(n) * double(k)) return false;
  }
  amx_table_crossprod(exec, g, plan, miss, C, ld);
  return true;
}

}  // namespace

void table_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> t,
                     double* C, int64_t ld) {
  const int64_t n = g.n_samples, k = g.n_variants;
  if (n == 0 || k == 0) return;
  if (amx_route(exec, g, t, C, ld)) return;
  const int64_t b = panel_width(n), n_panels = (k + b - 1) / b;
  // Two panels: BLAS multiplies one while the next is decoded into the other.
  std::vector<double> Z[2] = {std::vector<double>(static_cast<size_t>(n * b)),
                              std::vector<double>(static_cast<size_t>(n * b))};
  // One thread pool: OpenMP splits the lower triangle into tiles and each thread runs
  // single-threaded BLAS on its tiles (OpenBLAS's own threads would compete with OpenMP's).
  const pmx::detail::blas_threads blas_guard(1);  // the caller parallelises with OpenMP
  // Tiles as large as leave 4 per thread: BLAS packs both operands of every call, so packing per
  // multiply-add halves from 512 to 1024 (4,000 × 20,000 at 2 threads: 8.3 vs 9.8 CPU seconds).
  int64_t tile = 1024;
  while (tile > 256 && ((n + tile - 1) / tile) * ((n + tile - 1) / tile + 1) / 2 < 4 * int64_t{exec.threads()}) tile /= 2;
  const int64_t nt = (n + tile - 1) / tile;
  std::vector<std::pair<int64_t, int64_t>> tasks;  // largest first (dsyrk tiles are half a dgemm)
  for (int64_t I = nt - 1; I >= 0; --I)
    for (int64_t J = 0; J < I; ++J) tasks.emplace_back(I, J);
  for (int64_t I = nt - 1; I >= 0; --I) tasks.emplace_back(I, I);
  const auto n_tiles = static_cast<int64_t>(tasks.size());
  // Decoding a panel is split into chunks of samples (4 per byte), handed out after the BLAS
  // tiles of the previous panel: a thread that runs out of tiles decodes instead of waiting at
  // the panel's barrier.
  const int64_t bytes = (n + 3) / 4;
  const int64_t chunks = std::min<int64_t>(bytes, 8 * exec.threads());
  auto decode = [&](int64_t panel, int64_t chunk) {
    const int64_t l0 = panel * b, bl = std::min(b, k - l0);
    double* z = Z[panel % 2].data();
    for (int64_t byte = chunk * bytes / chunks; byte < (chunk + 1) * bytes / chunks; ++byte) {
      const int64_t i0 = 4 * byte, ni = std::min<int64_t>(4, n - i0);
      for (int64_t l = 0; l < bl; ++l) {
        const unsigned v = g.row(l0 + l)[byte];
        const code_table& tl = t[l0 + l];
        for (int64_t s = 0; s < ni; ++s) z[(i0 + s) * bl + l] = tl[(v >> (2 * s)) & 3];
      }
    }
  };
  auto multiply = [&](int64_t panel, int64_t task) {
    const int64_t l0 = panel * b, bl = std::min(b, k - l0);
    const double* z = Z[panel % 2].data();
    const auto [I, J] = tasks[task];
    const int64_t i0 = I * tile, ni = std::min(tile, n - i0), j0 = J * tile, nj = std::min(tile, n - j0);
    const double* zi = z + i0 * bl;
    double* c = C + i0 * ld + j0;
    if (I == J)
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, int(ni), int(bl), 1.0, zi, int(bl), 1.0, c, int(ld));
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(ni), int(nj), int(bl), 1.0, zi, int(bl),
                  z + j0 * bl, int(bl), 1.0, c, int(ld));
  };
#pragma omp parallel num_threads(exec.threads())
  {
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < chunks; ++c) decode(0, c);
    for (int64_t p = 0; p < n_panels; ++p) {
      const int64_t work = n_tiles + (p + 1 < n_panels ? chunks : 0);
#pragma omp for schedule(dynamic, 1)
      for (int64_t w = 0; w < work; ++w) {
        if (w < n_tiles)
          multiply(p, w);
        else
          decode(p + 1, w - n_tiles);
      }
    }
  }
}

void table_rowsums(const executor& exec, const variant_major_view& g, std::span<const code_table> t,
                   std::span<double> y) {
  const int64_t n = g.n_samples;
#pragma omp parallel for schedule(static) num_threads(exec.threads())
  for (int64_t i0 = 0; i0 < n; i0 += 256) {
    const int64_t i1 = std::min(n, i0 + 256);
    for (int64_t l = 0; l < g.n_variants; ++l) {
      const uint8_t* row = g.row(l);
      for (int64_t i = i0; i < i1; ++i) y[i] += t[l][code_at(row, i)];
    }
  }
}

void missing_crossprod(const executor& exec, const variant_major_view& g, std::span<const code_table> t,
                       std::span<const double> r, double* Y, double* R, int64_t ld) {
  const int64_t n = g.n_samples;
  const auto by_variant = missing_by_variant(g, exec.threads());
  std::vector<std::vector<int64_t>> by_sample(static_cast<size_t>(n));
  for (int64_t l = 0; l < g.n_variants; ++l)
    for (int64_t j : by_variant[l]) by_sample[j].push_back(l);
#pragma omp parallel for schedule(dynamic, 16) num_threads(exec.threads())
  for (int64_t j = 0; j < n; ++j) {
    double* yj = Y + j * ld;
    for (int64_t l : by_sample[j]) {
      const uint8_t* row = g.row(l);
      const code_table& tl = t[l];
      for (int64_t i = 0; i < n; ++i) yj[i] += tl[code_at(row, i)];
      for (int64_t i : by_variant[l])
        if (i >= j) R[i * ld + j] += r[l];
    }
  }
}

}  // namespace pmx::kernels::cpu
