// Integer crossproducts by AND + popcount on bit planes.
//
// Each 2-bit code becomes a thermometer code in the same 2-bit lane: x=0 -> 00, x=1 -> 01,
// x=2 -> 11, missing -> 00 (plane P), and its lane-swapped twin SP (x=1 -> 10). Then
//   x_i * x_j = popcount(P_i & P_j) + popcount(P_i & SP_j)    per lane,
// so 32 calls cost two AND+POPCNT per 64-bit word. Called flags are packed densely (64 per
// word) for the pair counts N. Rows are processed in 4x4 register tiles over cache-sized word
// chunks; OpenMP distributes tile rows (each thread owns its output rows).
#include <algorithm>
#include <bit>
#include <vector>

#include "ops/crossprod/kernels.hpp"

namespace pmx::kernels::cpu {
namespace {

constexpr uint64_t low_lanes = 0x5555555555555555ull;

uint32_t compress_even_bits(uint64_t x) {
  x &= low_lanes;
  x = (x | (x >> 1)) & 0x3333333333333333ull;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
  return static_cast<uint32_t>(x);
}

struct planes {
  int64_t rows = 0, words = 0, dense_words = 0;
  std::vector<uint64_t> p, sp, called;
};

planes make_planes(const sample_major_view& g, int64_t rows_padded, int threads) {
  planes pl;
  pl.rows = rows_padded;
  pl.words = (g.n_variants + 31) / 32;
  pl.dense_words = (pl.words + 1) / 2;
  pl.p.assign(static_cast<size_t>(rows_padded * pl.words), 0);
  pl.sp.assign(pl.p.size(), 0);
  pl.called.assign(static_cast<size_t>(rows_padded * pl.dense_words), 0);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < g.n_samples; ++i) {
    const uint64_t* src = g.row(i);
    uint64_t* p = &pl.p[i * pl.words];
    uint64_t* sp = &pl.sp[i * pl.words];
    uint64_t* c = &pl.called[i * pl.dense_words];
    for (int64_t w = 0; w < pl.words; ++w) {
      const uint64_t x = src[w], lo = x & low_lanes, hi = (x >> 1) & low_lanes;
      const uint64_t h = ~lo & low_lanes, d = ~(lo | hi) & low_lanes;
      p[w] = h | (d << 1);
      sp[w] = d | (h << 1);
      c[w >> 1] |= uint64_t{compress_even_bits(~lo | hi)} << (32 * (w & 1));
    }
  }
  return pl;
}

// 4x4 tile of pair sums over words [w0, w1).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "popcnt", "default")))
void tile_products(const uint64_t* const* pi, const uint64_t* const* pj, const uint64_t* const* spj,
                   int64_t w0, int64_t w1, int64_t acc[4][4]) {
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      const uint64_t *x = pi[a], *y = pj[b], *z = spj[b];
      int64_t s = 0;
      for (int64_t w = w0; w < w1; ++w) s += std::popcount(x[w] & y[w]) + std::popcount(x[w] & z[w]);
      acc[a][b] += s;
    }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "popcnt", "default")))
void tile_counts(const uint64_t* const* ci, const uint64_t* const* cj, int64_t w0, int64_t w1,
                 int64_t acc[4][4]) {
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      const uint64_t *x = ci[a], *y = cj[b];
      int64_t s = 0;
      for (int64_t w = w0; w < w1; ++w) s += std::popcount(x[w] & y[w]);
      acc[a][b] += s;
    }
}

}  // namespace

void crossprod_samples(const executor& exec, const sample_major_view& g, const crossprod_outputs& out) {
  const int64_t n = g.n_samples;
  if (n == 0 || g.n_variants == 0) return;
  const int64_t n_tiles = (n + 3) / 4;
  const planes pl = make_planes(g, n_tiles * 4, exec.threads());
  constexpr int64_t chunk = 512;  // words per pass: 4 KiB per plane row stays in L1/L2

#pragma omp parallel for schedule(dynamic, 1) num_threads(exec.threads())
  for (int64_t ti = n_tiles - 1; ti >= 0; --ti) {
    const uint64_t* pi[4];
    const uint64_t* ci[4];
    for (int a = 0; a < 4; ++a) {
      pi[a] = &pl.p[(4 * ti + a) * pl.words];
      ci[a] = &pl.called[(4 * ti + a) * pl.dense_words];
    }
    std::vector<int64_t> s_acc(static_cast<size_t>((ti + 1) * 16), 0), n_acc(s_acc.size(), 0);
    for (int64_t w0 = 0; w0 < pl.words; w0 += chunk) {
      const int64_t w1 = std::min(pl.words, w0 + chunk);
      for (int64_t tj = 0; tj <= ti; ++tj) {
        const uint64_t *pj[4], *spj[4], *cj[4];
        for (int b = 0; b < 4; ++b) {
          pj[b] = &pl.p[(4 * tj + b) * pl.words];
          spj[b] = &pl.sp[(4 * tj + b) * pl.words];
          cj[b] = &pl.called[(4 * tj + b) * pl.dense_words];
        }
        if (out.S) tile_products(pi, pj, spj, w0, w1, reinterpret_cast<int64_t(*)[4]>(&s_acc[tj * 16]));
        if (out.N)
          tile_counts(ci, cj, w0 / 2, std::min(pl.dense_words, (w1 + 1) / 2),
                      reinterpret_cast<int64_t(*)[4]>(&n_acc[tj * 16]));
      }
    }
    for (int64_t tj = 0; tj <= ti; ++tj)
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          const int64_t i = 4 * ti + a, j = 4 * tj + b;
          if (i >= n || j > i) continue;
          if (out.S) out.S[i * out.ld + j] += static_cast<int32_t>(s_acc[tj * 16 + a * 4 + b]);
          if (out.N) out.N[i * out.ld + j] += static_cast<int32_t>(n_acc[tj * 16 + a * 4 + b]);
        }
  }
}

}  // namespace pmx::kernels::cpu
