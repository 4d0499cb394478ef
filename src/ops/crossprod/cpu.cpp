// Integer crossproducts by AND + POPCOUNT on bit planes.
//
// Each 2-bit call becomes, in its own 2-bit lane of a 64-bit word (32 calls per word):
//   P  thermometer code   x=0 -> 00, x=1 -> 01, x=2 -> 11, missing -> 00
//   SP P with the lane's bits swapped (x=1 -> 10)
//   C1 called flag in the lane's low bit;  C2 called flag in both bits
//   Q  x=2 flag in both bits
// so that, summed over lanes,
//   x_a x_b = pc(P_a & P_b) + pc(P_a & SP_b)    N = pc(C1_a & C1_b)
//   x_a c_b = pc(P_a & C2_b)                    x_a² c_b = pc(P_a & C2_b) + pc(Q_a & C2_b)
// (and the transposed companions with the roles of a and b exchanged).
// Plane rows are zero-padded to multiples of 8 words and 4 rows, so the 4x4 register tiles
// (popcount_tiles_*.cpp, chosen for the CPU at run time) never need tails. Work is blocked: a
// task owns 16 output rows; for each 512-word chunk it sweeps B in 64-row blocks, so the A block
// and the B block (256 KiB each) stay in L2 while tiles run from L1.
#include <algorithm>
#include <bit>
#include <vector>

#include "ops/crossprod/kernels.hpp"
#include "ops/crossprod/popcount_tiles.hpp"

namespace pmx::kernels::cpu {
namespace {

constexpr uint64_t low_lanes = 0x5555555555555555ull;
constexpr int64_t chunk_words = 512;
constexpr int64_t a_block_rows = 64;
constexpr int64_t b_block_rows = 64;

struct planes {
  int64_t rows = 0, rows_padded = 0, words = 0;
  std::vector<uint64_t> p, sp, c1, c2, q;
  const uint64_t* row(const std::vector<uint64_t>& plane, int64_t r) const { return plane.data() + r * words; }
};

struct wanted {
  bool p, sp, c1, c2, q;
};

planes make_planes(const packed_rows_view& g, wanted w, int threads) {
  planes pl;
  pl.rows = g.n_rows;
  pl.rows_padded = (g.n_rows + 3) / 4 * 4;
  pl.words = ((g.n_cols + 31) / 32 + 7) / 8 * 8;
  const auto size = static_cast<size_t>(pl.rows_padded * pl.words);
  for (auto [on, v] : {std::pair{w.p, &pl.p}, {w.sp, &pl.sp}, {w.c1, &pl.c1}, {w.c2, &pl.c2}, {w.q, &pl.q}})
    if (on) v->assign(size, 0);
  const int64_t src_words = (g.n_cols + 31) / 32;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t r = 0; r < g.n_rows; ++r) {
    const uint64_t* src = g.row(r);
    const int64_t o = r * pl.words;
    for (int64_t k = 0; k < src_words; ++k) {
      const uint64_t x = src[k], lo = x & low_lanes, hi = (x >> 1) & low_lanes;
      const uint64_t h = ~lo & low_lanes, d = ~(lo | hi) & low_lanes, c = (~lo | hi) & low_lanes;
      if (w.p) pl.p[o + k] = h | (d << 1);
      if (w.sp) pl.sp[o + k] = d | (h << 1);
      if (w.c1) pl.c1[o + k] = c;
      if (w.c2) pl.c2[o + k] = c | (c << 1);
      if (w.q) pl.q[o + k] = d | (d << 1);
    }
  }
  return pl;
}

struct tile_rows {
  const uint64_t* r[4];
};

tile_rows rows_of(const planes& pl, const std::vector<uint64_t>& plane, int64_t tile, int64_t w0) {
  tile_rows t;
  for (int i = 0; i < 4; ++i) t.r[i] = plane.empty() ? nullptr : pl.row(plane, 4 * tile + i) + w0;
  return t;
}

void add_tile(int32_t* out, int64_t ld, const int64_t* acc, int64_t ta, int64_t tb, int64_t rows_a,
              int64_t rows_b, bool lower_only) {
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      const int64_t i = 4 * ta + a, j = 4 * tb + b;
      if (i >= rows_a || j >= rows_b || (lower_only && j > i)) continue;
      out[i * ld + j] += static_cast<int32_t>(acc[a * 4 + b]);
    }
}

void run(const executor& exec, const planes& A, const planes& B, const crossprod_outputs& out, bool symmetric) {
  const popcount_tiles& k = active_popcount_tiles(exec);
  const int64_t a_tiles = A.rows_padded / 4, b_tiles = B.rows_padded / 4;
  const int64_t n_tasks = (A.rows + a_block_rows - 1) / a_block_rows;
  const bool uv = out.U || out.V;
  const bool uvt = out.Ut || out.Vt;
#pragma omp parallel for schedule(dynamic, 1) num_threads(exec.threads())
  for (int64_t task = n_tasks - 1; task >= 0; --task) {  // largest (symmetric) first
    const int64_t ta0 = task * a_block_rows / 4, ta1 = std::min(a_tiles, ta0 + a_block_rows / 4);
    // Symmetric S/N stop at the diagonal; U/V (not symmetric) and rectangular runs sweep all of B.
    const int64_t tb_end = symmetric && !uv ? ta1 : b_tiles;
    for (int64_t w0 = 0; w0 < A.words; w0 += chunk_words) {
      const int64_t nw = std::min(chunk_words, A.words - w0);
      for (int64_t tb0 = 0; tb0 < tb_end; tb0 += b_block_rows / 4) {
        const int64_t tb1 = std::min(tb_end, tb0 + b_block_rows / 4);
        for (int64_t ta = ta0; ta < ta1; ++ta) {
          const tile_rows ap = rows_of(A, A.p, ta, w0), ac1 = rows_of(A, A.c1, ta, w0), aq = rows_of(A, A.q, ta, w0);
          const tile_rows ac2 = rows_of(A, A.c2, ta, w0);
          for (int64_t tb = tb0; tb < tb1; ++tb) {
            const bool sn = !symmetric || tb <= ta;
            int64_t acc[16];
            if (out.S && sn) {
              std::fill(acc, acc + 16, 0);
              const tile_rows bp = rows_of(B, B.p, tb, w0), bsp = rows_of(B, B.sp, tb, w0);
              k.tile2(ap.r, bp.r, bsp.r, nw, acc);
              add_tile(out.S, out.ld, acc, ta, tb, A.rows, B.rows, symmetric);
            }
            if (out.N && sn) {
              std::fill(acc, acc + 16, 0);
              k.tile1(ac1.r, rows_of(B, B.c1, tb, w0).r, nw, acc);
              add_tile(out.N, out.ld, acc, ta, tb, A.rows, B.rows, symmetric);
            }
            if (uv) {
              std::fill(acc, acc + 16, 0);
              const tile_rows bc2 = rows_of(B, B.c2, tb, w0);
              k.tile1(ap.r, bc2.r, nw, acc);
              if (out.U) add_tile(out.U, out.ld, acc, ta, tb, A.rows, B.rows, false);
              if (out.V) {
                k.tile1(aq.r, bc2.r, nw, acc);
                add_tile(out.V, out.ld, acc, ta, tb, A.rows, B.rows, false);
              }
            }
            if (uvt) {
              std::fill(acc, acc + 16, 0);
              k.tile1(ac2.r, rows_of(B, B.p, tb, w0).r, nw, acc);
              if (out.Ut) add_tile(out.Ut, out.ld, acc, ta, tb, A.rows, B.rows, false);
              if (out.Vt) {
                k.tile1(ac2.r, rows_of(B, B.q, tb, w0).r, nw, acc);
                add_tile(out.Vt, out.ld, acc, ta, tb, A.rows, B.rows, false);
              }
            }
          }
        }
      }
    }
  }
}

wanted a_planes(const crossprod_outputs& out) {
  return {out.S || out.U || out.V, false, static_cast<bool>(out.N), out.Ut || out.Vt, static_cast<bool>(out.V)};
}
wanted b_planes(const crossprod_outputs& out) {
  return {out.S || out.Ut || out.Vt, static_cast<bool>(out.S), static_cast<bool>(out.N), out.U || out.V,
          static_cast<bool>(out.Vt)};
}

// Pair counts of a symmetric call from the missing calls when they are sparse (the GRM's case:
// rows = samples, columns = the variants of a block, ~1 % missing):
//   N(i,j) = cols − miss_i − miss_j + #{c : both i and j miss c}
// The last term visits, for each missing call (i, c), the rows j <= i that also miss c: about
// rate² · rows² · cols / 2 increments, against rows² · cols / 256 popcount words for the dense
// stream. Returns false (nothing written) above 4 % missing, where the dense stream wins.
bool sparse_pair_counts(const executor& exec, const packed_rows_view& A, int32_t* N, int64_t ld) {
  const int64_t rows = A.n_rows, cols = A.n_cols, words = (cols + 31) / 32;
  auto missing_bits = [&](int64_t r, int64_t w) {
    uint64_t m = A.row(r)[w] & ~(A.row(r)[w] >> 1) & low_lanes;  // code 01 = missing
    if (w == words - 1 && cols % 32) m &= (uint64_t{1} << (2 * (cols % 32))) - 1;
    return m;
  };
  std::vector<int64_t> miss(static_cast<size_t>(rows), 0), col_start(static_cast<size_t>(cols + 1), 0);
  int64_t total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t w = 0; w < words; ++w)
      for (uint64_t m = missing_bits(r, w); m; m &= m - 1) ++miss[r], ++col_start[32 * w + std::countr_zero(m) / 2 + 1];
    total += miss[r];
  }
  if (double(total) > 0.04 * double(rows) * double(cols)) return false;
  for (int64_t c = 0; c < cols; ++c) col_start[c + 1] += col_start[c];
  // Rows missing each column, ascending (rows are visited in order).
  std::vector<int32_t> col_rows(static_cast<size_t>(total));
  {
    std::vector<int64_t> fill(col_start.begin(), col_start.end() - 1);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t w = 0; w < words; ++w)
        for (uint64_t m = missing_bits(r, w); m; m &= m - 1)
          col_rows[fill[32 * w + std::countr_zero(m) / 2]++] = static_cast<int32_t>(r);
  }
#pragma omp parallel for schedule(dynamic, 16) num_threads(exec.threads())
  for (int64_t i = 0; i < rows; ++i) {
    int32_t* n_i = N + i * ld;
    const auto base = static_cast<int32_t>(cols - miss[i]);
    for (int64_t j = 0; j <= i; ++j) n_i[j] += base - static_cast<int32_t>(miss[j]);
    for (int64_t w = 0; w < words; ++w)
      for (uint64_t m = missing_bits(i, w); m; m &= m - 1) {
        const int64_t c = 32 * w + std::countr_zero(m) / 2;
        for (int64_t k = col_start[c]; k < col_start[c + 1] && col_rows[k] <= i; ++k) ++n_i[col_rows[k]];
      }
  }
  return true;
}

}  // namespace

void crossprod(const executor& exec, const packed_rows_view& A, const packed_rows_view& B,
               const crossprod_outputs& out) {
  if (A.n_rows == 0 || B.n_rows == 0 || A.n_cols == 0) return;
  const planes pa = make_planes(A, a_planes(out), exec.threads());
  const planes pb = make_planes(B, b_planes(out), exec.threads());
  run(exec, pa, pb, out, false);
}

void crossprod_symmetric(const executor& exec, const packed_rows_view& A, const crossprod_outputs& in) {
  if (A.n_rows == 0 || A.n_cols == 0) return;
  crossprod_outputs out = in;
  if (out.N && sparse_pair_counts(exec, A, out.N, out.ld)) out.N = nullptr;
  if (!out.S && !out.N && !out.U && !out.V) return;
  const wanted wa = a_planes(out), wb = b_planes(out);
  const planes pl = make_planes(A, {wa.p || wb.p, wb.sp, wa.c1 || wb.c1, wa.c2 || wb.c2, wa.q || wb.q}, exec.threads());
  run(exec, pl, pl, out, true);
}

}  // namespace pmx::kernels::cpu
