// LD from the crossprod op: stream variant blocks (rows = variants, columns = samples), ask the op
// for the exact integer sums of each pair, finish r / r² in double exactly as PLINK 1.9 does.
#include "panoramix/ld.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cmath>
#include <future>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "core/checked_number.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx {

namespace {
// The three numerators are exact integers. With n <= 2^30 (the op takes at most 2^29 columns per
// call) every product and difference fits in int64 (|n·Σxy| <= 4n² <= 2^62), and converting to
// double is exact below 2^53 (n up to ~4.7e7) and rounds once above, as PLINK's doubles do.
inline double finish(int64_t cov_i, int64_t var_a_i, int64_t var_b_i, ld_statistic stat) {
  const double cov = static_cast<double>(cov_i);
  const double denom = static_cast<double>(var_a_i) * static_cast<double>(var_b_i);
  if (stat == ld_statistic::r) return cov / std::sqrt(denom);
  return (cov * cov) / denom;
}
}  // namespace

double ld_value(int64_t n, int64_t sa, int64_t sb, int64_t saa, int64_t sbb, int64_t sab,
                ld_statistic stat) {
  if (n > (int64_t{1} << 30)) {  // beyond any single op call; exact in 128 bits
    using i128 = __int128;
    const double cov = static_cast<double>(i128(n) * sab - i128(sa) * sb);
    const double denom = static_cast<double>(i128(n) * saa - i128(sa) * sa) *
                         static_cast<double>(i128(n) * sbb - i128(sb) * sb);
    return stat == ld_statistic::r ? cov / std::sqrt(denom) : (cov * cov) / denom;
  }
  // Exact integer numerators (shift-invariant: PLINK's {-1,0,1} coding gives the same integers),
  // then PLINK 1.9's double operations in its order: one rounding for var_a·var_b, sqrt, divide.
  return finish(n * sab - sa * sb, n * saa - sa * sa, n * sbb - sb * sb, stat);
}

int64_t ld_window_bp_from_kb(double kb) {
  detail::require_number(kb, "--ld-window-kb", detail::number_range::at_least(0));
  const double bp = kb * 1000 * (1 + 0x1p-44);  // PLINK's SMALL_EPSILON guard against 0.0299999...
  return bp >= 4294967295.0 ? int64_t{4294967295} : static_cast<int64_t>(bp);
}

namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

// ------------------------------------------------------------------------------------------------
// Blocks of variants ready for the op: word-aligned rows plus per-row sums over all columns.

struct prepared_rows {
  packed_rows rows;
  std::vector<int64_t> sum, sumsq, missing;  // Σx, Σx², missing calls per row
  int64_t n = 0;                             // columns (samples)
  int64_t total_missing = 0;
  // With missing calls (cpu/cuda executors): the missing samples of row r are
  // miss_idx[miss_start[r] .. miss_start[r + 1]), and by_sample[c * n_rows + r] is the
  // missing_sums table byte of row r at sample c (the sparse companion sums read both).
  std::vector<int64_t> miss_start;
  std::vector<int32_t> miss_idx;
  std::vector<uint8_t> by_sample;

  int64_t n_rows() const { return rows.n_rows(); }
  bool any_missing(int64_t first, int64_t count) const {
    for (int64_t r = first; r < first + count; ++r)
      if (missing[r]) return true;
    return false;
  }
  packed_rows_view view(int64_t first, int64_t count) const {
    const packed_rows_view v = rows.view();
    return {v.data + first * v.row_words, count, v.n_cols, v.row_words};
  }
};

// Missing lists and the sample-major table of prepared rows (see prepared_rows).
void index_missing(prepared_rows& p, int threads) {
  const uint8_t* missing_code = missing_table_code;
  const int64_t R = p.n_rows(), n = p.n;
  const packed_rows_view v = p.rows.view();
  p.miss_start.assign(static_cast<size_t>(R + 1), 0);
  for (int64_t r = 0; r < R; ++r) p.miss_start[r + 1] = p.miss_start[r] + p.missing[r];
  p.miss_idx.resize(static_cast<size_t>(p.total_missing));
  constexpr uint64_t low = 0x5555555555555555ull;
  const int64_t words = (n + 31) / 32;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t r = 0; r < R; ++r) {
    int32_t* out = p.miss_idx.data() + p.miss_start[r];
    int64_t found = 0;
    const uint64_t* row = v.row(r);
    for (int64_t w = 0; w < words; ++w) {
      uint64_t m = row[w] & ~(row[w] >> 1) & low;  // code 1 = missing
      if (w == words - 1 && n % 32) m &= (uint64_t{1} << (2 * (n % 32))) - 1;
      for (; m; m &= m - 1) {
        if (found < p.missing[r]) out[found] = static_cast<int32_t>(32 * w + std::countr_zero(m) / 2);
        ++found;
      }
    }
    if (found != p.missing[r]) std::abort();  // counts and codes disagree: a bug, never input
  }
  p.by_sample.resize(static_cast<size_t>(n * R));
  constexpr int64_t bs = 64;  // 64 samples (2 words) x 64 rows per tile
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t c0 = 0; c0 < n; c0 += bs) {
    const int64_t c1 = std::min(n, c0 + bs);
    for (int64_t r0 = 0; r0 < R; r0 += bs) {
      const int64_t r1 = std::min(R, r0 + bs);
      for (int64_t r = r0; r < r1; ++r) {
        const uint64_t* row = v.row(r);
        for (int64_t c = c0; c < c1; ++c)
          p.by_sample[static_cast<size_t>(c * R + r)] = missing_code[(row[c >> 5] >> (2 * (c & 31))) & 3];
      }
    }
  }
}

prepared_rows prepare(const executor& exec, const variant_major_view& g) {
  prepared_rows p;
  p.n = g.n_samples;
  p.rows = word_aligned_variant_rows(g, exec.threads());
  std::vector<variant_counts> c(static_cast<size_t>(g.n_variants));
  // Row sums are cheap host work (the codes are in host memory): counted by the host executor.
  allele_counts(exec.host(), g, {}, c);
  p.sum.resize(c.size());
  p.sumsq.resize(c.size());
  p.missing.resize(c.size());
  for (size_t j = 0; j < c.size(); ++j) {
    p.sum[j] = c[j].a1_copies();
    p.sumsq[j] = 4 * c[j].hom_a1 + c[j].het;
    p.missing[j] = c[j].missing;
    p.total_missing += c[j].missing;
  }
  if (p.total_missing > 0) index_missing(p, exec.threads());
  return p;
}

/// The op's int32 sums, kept between calls so large blocks are not re-faulted every time.
struct ld_workspace {
  std::vector<int32_t> S, N, U, V, Ut, Vt;
  static int32_t* zeroed(std::vector<int32_t>& v, size_t size) {
    if (v.size() < size) v.resize(size);
    std::fill(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(size), 0);
    return v.data();
  }
};

// Above this share of missing calls in a block, dense popcounts of the companion sums beat the
// sparse sums (2,000 samples x 6,000 variants, 2 AVX-512 threads: sparse 1.43 s vs dense 1.86 s of
// CPU at 5 % missing, even at 10 %).
constexpr double sparse_missing_rate = 0.08;

/// The general path's results from S (from the op) and the sparse companion sums: pairs in tiles
/// of TI rows of A x TJ rows of B. Per tile, the sums of the A rows over the samples each B row
/// misses (U, V side) are gathered column by column and transposed; then per A row, the sums of
/// the B rows over the samples it misses (Ut, Vt, N side) and the finished values.
void sparse_finish(const executor& exec, const prepared_rows& A, int64_t a0, int64_t na, const prepared_rows& B,
                   int64_t b0, int64_t nb, const int32_t* S, ld_statistic stat, double* out, int64_t ld) {
  const missing_sums_fn sums = missing_sums_kernel(exec);
  const int threads = exec.threads();
  constexpr int64_t TI = 64, TJ = 256;
  const int64_t n = A.n, ti = (na + TI - 1) / TI, tj = (nb + TJ - 1) / TJ;
  const uint8_t* ta = A.by_sample.data() + a0;
  const uint8_t* tb = B.by_sample.data() + b0;
#pragma omp parallel num_threads(threads) if (threads > 1 && na * nb > 4096)
  {
    std::vector<int32_t> cx(TI * TJ), cxx(TI * TJ), ux(TI * TJ), uxx(TI * TJ), rx(TJ), rxx(TJ), rm(TJ);
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = 0; t < ti * tj; ++t) {
      // Tiles sharing j0 run one after another: the B rows' table slice stays in L2.
      const int64_t i0 = t % ti * TI, j0 = t / ti * TJ, ni = std::min(TI, na - i0), nj = std::min(TJ, nb - j0);
      for (int64_t j = 0; j < nj; ++j) {
        const int64_t gb = b0 + j0 + j;
        sums(ta + i0, A.n_rows(), B.miss_idx.data() + B.miss_start[gb], B.missing[gb], ni, cx.data() + j * TI,
             cxx.data() + j * TI, nullptr);
      }
      for (int64_t jb = 0; jb < nj; jb += 16)
        for (int64_t i = 0; i < ni; ++i)
          for (int64_t j = jb; j < std::min(nj, jb + 16); ++j)
            ux[i * TJ + j] = cx[j * TI + i], uxx[i * TJ + j] = cxx[j * TI + i];
      for (int64_t i = 0; i < ni; ++i) {
        const int64_t ga = a0 + i0 + i;
        sums(tb + j0, B.n_rows(), A.miss_idx.data() + A.miss_start[ga], A.missing[ga], nj, rx.data(), rxx.data(),
             rm.data());
        const int64_t sa = A.sum[ga], qa = A.sumsq[ga], ma = A.missing[ga];
        const int32_t* s = S + (i0 + i) * nb + j0;
        const int32_t *u_x = ux.data() + i * TJ, *u_xx = uxx.data() + i * TJ;
        double* o = out + (i0 + i) * ld + j0;
        for (int64_t j = 0; j < nj; ++j) {
          const int64_t gb = b0 + j0 + j;
          const int64_t c = n - ma - B.missing[gb] + rm[j];
          const int64_t u = sa - u_x[j], v = qa - u_xx[j], ut = B.sum[gb] - rx[j], vt = B.sumsq[gb] - rxx[j];
          o[j] = finish(c * s[j] - u * ut, c * v - u * u, c * vt - ut * ut, stat);
        }
      }
    }
  }
}

/// out[i * ld + j] for rows [a0, a0 + na) of A and [b0, b0 + nb) of B.
void ld_block(const executor& exec, const prepared_rows& A, int64_t a0, int64_t na,
              const prepared_rows& B, int64_t b0, int64_t nb, ld_statistic stat, ld_path path,
              double* out, int64_t ld, ld_workspace& ws) {
  PMX_EXPECTS(A.n == B.n, "blocks with different samples");
  if (na == 0 || nb == 0) return;
  const bool missing = A.any_missing(a0, na) || B.any_missing(b0, nb);
  if (path == ld_path::no_missing && missing)
    throw logic_error("ld_matrix: the no-missing path was asked for blocks with missing calls");
  const bool fast = path == ld_path::no_missing || (path == ld_path::automatic && !missing);
  const auto size = static_cast<size_t>(na * nb);
  const packed_rows_view va = A.view(a0, na), vb = B.view(b0, nb);
  const int64_t n = A.n;
  PMX_EXPECTS(n <= (int64_t{1} << 29), "more than 2^29 samples");
  const int threads = exec.threads();
  if (fast) {
    // No missing call: N = n, U/V/Ut/Vt are the row sums; only S = Σ x_a x_b needs the op.
    const int32_t* S = ws.zeroed(ws.S, size);
    crossprod(exec, va, vb, {.S = ws.S.data(), .ld = nb});
    // var_a, var_b are row constants here.
    std::vector<int64_t> var_b(static_cast<size_t>(nb));
    for (int64_t j = 0; j < nb; ++j) var_b[j] = n * B.sumsq[b0 + j] - B.sum[b0 + j] * B.sum[b0 + j];
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && na * nb > 4096)
    for (int64_t i = 0; i < na; ++i) {
      const int64_t sa = A.sum[a0 + i], var_a = n * A.sumsq[a0 + i] - sa * sa;
      const int32_t* s = S + i * nb;
      double* o = out + i * ld;
      for (int64_t j = 0; j < nb; ++j)
        o[j] = finish(n * s[j] - sa * B.sum[b0 + j], var_a, var_b[j], stat);
    }
    return;
  }
  // General: every sum over the samples called in both rows of the pair. S needs no mask (x = 0
  // where missing); the companions N, U, V, Ut, Vt come from the missing calls (sparse) unless
  // they are dense or ld_path::all_sums asks the op for all six (the sparse sums' oracle).
  const int64_t miss_a = A.miss_start.empty() ? 0 : A.miss_start[a0 + na] - A.miss_start[a0];
  const int64_t miss_b = B.miss_start.empty() ? 0 : B.miss_start[b0 + nb] - B.miss_start[b0];
  const bool sparse = path != ld_path::all_sums && !A.by_sample.empty() && !B.by_sample.empty() &&
                      double(miss_a + miss_b) <= sparse_missing_rate * double(na + nb) * double(n);
  if (sparse) {
    int32_t* S = ws.zeroed(ws.S, size);
    crossprod(exec, va, vb, {.S = S, .ld = nb});
    sparse_finish(exec, A, a0, na, B, b0, nb, S, stat, out, ld);
    return;
  }
  int32_t *S = ws.zeroed(ws.S, size), *N = ws.zeroed(ws.N, size), *U = ws.zeroed(ws.U, size),
          *V = ws.zeroed(ws.V, size), *Ut = ws.zeroed(ws.Ut, size), *Vt = ws.zeroed(ws.Vt, size);
  crossprod(exec, va, vb, {.S = S, .N = N, .U = U, .V = V, .Ut = Ut, .Vt = Vt, .ld = nb});
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && na * nb > 4096)
  for (int64_t i = 0; i < na; ++i)
    for (int64_t j = 0; j < nb; ++j) {
      const size_t k = static_cast<size_t>(i * nb + j);
      const int64_t c = N[k], u = U[k], ut = Ut[k];
      out[i * ld + j] = finish(c * S[k] - u * ut, c * V[k] - u * u, c * Vt[k] - ut * ut, stat);
    }
}

// ------------------------------------------------------------------------------------------------
// The genotypes LD uses: kept variants, founders (or all kept samples), haploid coding.

class ld_source {
 public:
  ld_source(const genotype_source& data, const ld_options& opt) : data_(data) {
    const int64_t n = data.n_samples();
    bool all = true;
    for (int64_t i = 0; i < n; ++i) {
      const sample_record& s = data.sample(i);
      if (!opt.ld_nonfounders && !s.founder()) {
        all = false;
        continue;
      }
      samples_.push_back(i);
      male_.push_back(s.sex == 1);
    }
    n_ = static_cast<int64_t>(samples_.size());
    if (all) samples_.clear();  // the source's blocks as they come
    kinds_.resize(static_cast<size_t>(data.n_variants()));
    for (int64_t j = 0; j < data.n_variants(); ++j)
      kinds_[j] = opt.chromosomes.classify(data.variant(j).chrom);
  }

  int64_t n_samples() const { return n_; }

  /// Kept variants [first, first + count) over the samples LD uses, X and Y coded as PLINK 1.9.
  packed_genotypes load(int64_t first, int64_t count) const {
    packed_genotypes g;
    if (samples_.empty()) {
      g = data_.read_block(first, count);
    } else {  // the used samples of the block (a second copy only where the source has none to map)
      packed_genotypes copy;
      const variant_major_view all = data_.block(first, count, copy);
      std::vector<int64_t> rows(static_cast<size_t>(count));
      std::iota(rows.begin(), rows.end(), int64_t{0});
      g = subset(all, samples_, rows);
    }
    for (int64_t j = 0; j < count; ++j) {
      const auto k = kinds_[first + j];
      if (k == chromosome_set::kind::x)
        code_x(g.row(j));
      else if (k == chromosome_set::kind::y)
        code_y(g.row(j));
    }
    return g;
  }

 private:
  static uint8_t get(const uint8_t* row, int64_t i) { return (row[i >> 2] >> (2 * (i & 3))) & 3; }
  static void put(uint8_t* row, int64_t i, uint8_t c) {
    const int s = 2 * (i & 3);
    row[i >> 2] = static_cast<uint8_t>((row[i >> 2] & ~(3u << s)) | (unsigned(c) << s));
  }
  // Males are haploid on X: het -> missing, hom A1 -> one copy (coded het), hom A2 -> zero.
  void code_x(uint8_t* row) const {
    for (int64_t i = 0; i < n_; ++i) {
      if (!male_[i]) continue;
      const uint8_t c = get(row, i);
      if (c == code_het)
        put(row, i, code_missing);
      else if (c == code_hom_a1)
        put(row, i, code_het);
    }
  }
  // Y: only males count, and their heterozygous calls are missing.
  void code_y(uint8_t* row) const {
    for (int64_t i = 0; i < n_; ++i)
      if (!male_[i] || get(row, i) == code_het) put(row, i, code_missing);
  }

  const genotype_source& data_;
  std::vector<int64_t> samples_;  // indices among the source's samples; empty = every one
  std::vector<uint8_t> male_;     // per used sample
  std::vector<chromosome_set::kind> kinds_;
  int64_t n_ = 0;
};

// Bytes one variant costs while a block of it is prepared for the op: 2-bit copy, word-aligned
// copy, the op's bit planes (up to 5), per-row sums and, with missing calls, the sample-major
// table of the sparse companion sums (one byte per call; its missing lists are smaller).
int64_t bytes_per_prepared_row(int64_t n) {
  const int64_t words = (n + 31) / 32, words8 = (words + 7) / 8 * 8;
  return (n + 3) / 4 + 8 * words + 5 * 8 * words8 + n + 64;
}

int64_t budget_bytes(const ld_options& opt) {
  if (opt.memory_mb < 1) throw input_error("--memory must be at least 1 (MB)");
  return opt.memory_mb * (int64_t{1} << 20);
}

// Runs the caller's sink on one background thread, in submission order, so that writing a block
// overlaps computing the next. At most one job is in flight: submit() first waits for (and
// rethrows the error of) the previous one.
class background_sink {
 public:
  void submit(std::function<void()> job) {
    wait();
    job_ = std::async(std::launch::async, std::move(job));
  }
  void wait() {
    if (job_.valid()) job_.get();
  }
  ~background_sink() {
    if (job_.valid()) job_.wait();
  }

 private:
  std::future<void> job_;
};

}  // namespace

void ld_matrix(const executor& exec, const variant_major_view& A, const variant_major_view& B,
               ld_statistic stat, ld_path path, double* out, int64_t ld) {
  PMX_EXPECTS(A.n_samples == B.n_samples, "A and B must have the same samples");
  PMX_EXPECTS(ld >= B.n_variants, "leading dimension smaller than the rows of B");
  const prepared_rows pa = prepare(exec, A), pb = prepare(exec, B);
  ld_workspace ws;
  ld_block(exec, pa, 0, pa.n_rows(), pb, 0, pb.n_rows(), stat, path, out, ld, ws);
}

// ------------------------------------------------------------------------------------------------
// Square matrix

std::vector<ld_square_block> ld_square_blocks_of_rank(int64_t n_variants, int rank, int ranks) {
  PMX_EXPECTS(ranks >= 1 && rank >= 0 && rank < ranks && n_variants >= 0, "ld blocks: rank out of range");
  const int64_t K = 4 * int64_t(ranks) + 1, half = (K - 1) / 2;
  auto bound = [&](int64_t c) { return c * n_variants / K; };
  const int64_t total = K * (half + 1), first = total * rank / ranks, end = total * (rank + 1) / ranks;
  std::vector<ld_square_block> out;
  for (int64_t k = first; k < end; ++k) {
    const int64_t I = k / (half + 1), J = (I + k % (half + 1)) % K;
    const ld_square_block b{bound(I), bound(I + 1), bound(J), bound(J + 1)};
    if (b.r1 > b.r0 && b.c1 > b.c0) out.push_back(b);
  }
  return out;
}

void compute_ld_square_blocks(const executor& exec, const genotype_source& data, const ld_options& opt,
                              std::span<const ld_square_block> blocks,
                              const std::function<void(const ld_square_block&, const double*)>& sink,
                              progress_sink* progress) {
  check_ld_options(opt);
  const int64_t m = data.n_variants();
  if (m == 0) throw input_error("no variants left for LD (after --extract)");
  const ld_source src(data, opt);
  std::map<std::pair<int64_t, int64_t>, prepared_rows> ranges;  // each variant range read once
  auto rows_of = [&](int64_t first, int64_t end) -> const prepared_rows& {
    PMX_EXPECTS(first >= 0 && first < end && end <= m, "LD block out of range");
    auto it = ranges.find({first, end});
    if (it == ranges.end()) it = ranges.emplace(std::pair{first, end}, prepare(exec, src.load(first, end - first).view())).first;
    return it->second;
  };
  ld_workspace ws;
  std::vector<double> values;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const ld_square_block& b = blocks[k];
    const prepared_rows &A = rows_of(b.r0, b.r1), &B = rows_of(b.c0, b.c1);
    const int64_t na = b.r1 - b.r0, nb = b.c1 - b.c0;
    values.resize(static_cast<size_t>(na * nb));
    ld_block(exec, A, 0, na, B, 0, nb, opt.stat, ld_path::automatic, values.data(), nb, ws);
    sink(b, values.data());
    report(progress, "linkage disequilibrium", double(k + 1) / double(blocks.size()));
  }
}

void compute_ld_square(const executor& exec, const genotype_source& data, const ld_options& opt,
                       const std::function<void(int64_t, int64_t, const double*)>& sink,
                       progress_sink* progress) {
  check_ld_options(opt);
  const int64_t m = data.n_variants();
  if (m == 0) throw input_error("no variants left for LD (after --extract)");
  const ld_source src(data, opt);
  const int64_t budget = budget_bytes(opt), per_row = bytes_per_prepared_row(src.n_samples());
  auto progress_at = [&](double fraction) { report(progress, "linkage disequilibrium", fraction); };
  ld_workspace ws;

  // Symmetric scheme (r(a,b) and r(b,a) are the same bits: same integers, commutative product):
  // every variant prepared once; row block I is computed against columns [a0, m) only, and the
  // blocks (I, J > I) are kept until row block J is written, which takes them transposed. Half
  // the op work; the pending blocks peak at ~m²/4 doubles. Used when that fits in --memory.
  // Per row of a block: prepared data, the computed part and the assembled row (2 × 8m bytes),
  // the op's six int32 sums (24m bytes).
  const int64_t row0 = opt.first_row, row1 = opt.end_row < 0 ? m : opt.end_row;
  PMX_EXPECTS(row0 >= 0 && row0 <= row1 && row1 <= m, "LD rows out of range");
  if (row0 == row1) return;  // a rank without rows
  const bool all_rows = row0 == 0 && row1 == m;
  const int64_t fixed = m * per_row + 2 * m * m;
  const int64_t per_block_row = per_row + 40 * m;
  const bool symmetric = all_rows && opt.block_cols == 0 && budget - fixed >= 64 * per_block_row;
  if (symmetric) {
    int64_t a = std::min<int64_t>({(budget - fixed) / per_block_row, m, 1024});
    if (opt.block_rows > 0) a = std::min(opt.block_rows, m);
    const int threads = exec.threads();
    const prepared_rows all = prepare(exec, src.load(0, m).view());
    const int64_t n_blocks = (m + a - 1) / a;
    std::vector<std::vector<double>> pending(
        static_cast<size_t>(n_blocks * n_blocks));  // [J][I], I < J
    std::vector<double>
        buffers[2];  // row block I is assembled in buffers[I % 2] while I - 1 is written
    background_sink writer;
    double done = 0;
    for (int64_t I = 0; I < n_blocks; ++I) {
      const int64_t a0 = I * a, na = std::min(a, m - a0), w = m - a0;
      std::vector<double>& rows = buffers[I % 2];
      rows.resize(static_cast<size_t>(na * m));
      // Columns [0, a0): the blocks (J < I, I) kept from earlier row blocks, already transposed.
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && a0 * na > 65536)
      for (int64_t i = 0; i < na; ++i)
        for (int64_t J = 0; J < I; ++J) {
          const double* blk = pending[I * n_blocks + J].data();
          std::copy(blk + i * a, blk + (i + 1) * a, rows.begin() + i * m + J * a);
        }
      for (int64_t J = 0; J < I; ++J) std::vector<double>().swap(pending[I * n_blocks + J]);
      // Columns [a0, m): computed now, straight into the rows.
      ld_block(exec, all, a0, na, all, a0, w, opt.stat, ld_path::automatic, rows.data() + a0, m,
               ws);
      // Keep the blocks (I, J > I) transposed for row block J: blk[j · na + i] = r(J·a + j, a0 +
      // i).
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
      for (int64_t J = I + 1; J < n_blocks; ++J) {
        const int64_t c0 = J * a, nj = std::min(a, m - c0);
        std::vector<double>& blk = pending[J * n_blocks + I];
        blk.resize(static_cast<size_t>(nj * na));
        for (int64_t i0 = 0; i0 < na; i0 += 16)
          for (int64_t j0 = 0; j0 < nj; j0 += 16)
            for (int64_t i = i0; i < std::min(na, i0 + 16); ++i)
              for (int64_t j = j0; j < std::min(nj, j0 + 16); ++j)
                blk[j * na + i] = rows[i * m + c0 + j];
      }
      writer.submit([&sink, a0, na, &rows] { sink(a0, na, rows.data()); });
      done += double(na) * double(w);
      progress_at(done / (0.5 * double(m) * double(m + a)));
    }
    writer.wait();
    return;
  }

  // Full rows: each row block against every column; B (the columns) prepared once when it fits
  // in half the budget, else in chunks re-read for every row block. A row costs its prepared
  // data, its m results and the op's int32 sums against one B chunk (6 arrays with missing calls).
  int64_t bc = std::clamp<int64_t>(budget / 2 / per_row, 1, m);
  if (bc < m) bc = std::max<int64_t>(1, budget / 4 / (per_row + 24 * 1024));  // leave room for rows
  bc = std::min(bc, m);
  if (opt.block_cols > 0) bc = std::min(opt.block_cols, m);
  const int64_t left = budget - (bc == m ? m : bc) * per_row;
  int64_t a = left / (per_row + 16 * m + 24 * bc);  // two row buffers (one being written) + op sums
  if (a < 1)
    throw input_error("--memory " + std::to_string(opt.memory_mb) +
                      " MB is too small for LD rows of " + std::to_string(m) +
                      " variants; raise --memory");
  a = std::min<int64_t>({a, m, 1024});
  if (opt.block_rows > 0) a = std::min(opt.block_rows, m);

  prepared_rows all_b;
  if (bc == m) all_b = prepare(exec, src.load(0, m).view());
  std::vector<double> buffers[2];
  background_sink writer;
  for (int64_t a0 = row0; a0 < row1; a0 += a) {
    const int64_t na = std::min(a, row1 - a0);
    std::vector<double>& rows = buffers[((a0 - row0) / a) % 2];
    rows.assign(static_cast<size_t>(na * m), nan_value);
    if (bc == m) {
      ld_block(exec, all_b, a0, na, all_b, 0, m, opt.stat, ld_path::automatic, rows.data(), m, ws);
    } else {
      const prepared_rows pa = prepare(exec, src.load(a0, na).view());
      for (int64_t b0 = 0; b0 < m; b0 += bc) {
        const int64_t nb = std::min(bc, m - b0);
        const prepared_rows pb = prepare(exec, src.load(b0, nb).view());
        ld_block(exec, pa, 0, na, pb, 0, nb, opt.stat, ld_path::automatic, rows.data() + b0, m, ws);
        progress_at((double(a0 - row0) + double(na) * double(b0 + nb) / double(m)) / double(row1 - row0));
      }
    }
    writer.submit([&sink, a0, na, &rows] { sink(a0, na, rows.data()); });
    progress_at(double(a0 + na - row0) / double(row1 - row0));
  }
  writer.wait();
}

// ------------------------------------------------------------------------------------------------
// Windowed table

void check_ld_options(const ld_options& opt) {
  detail::require_integer(opt.window_variants, "--ld-window", 2);
  if (opt.window_bp < 0) throw input_error("--ld-window-kb must be >= 0");
  detail::require_number(opt.window_r2, "--ld-window-r2", detail::number_range::closed(0, 1));
  detail::require_integer(opt.memory_mb, "--memory", 1, int64_t{1} << 30);  // MB; 2^30 MB = 1 PB
}

std::vector<int64_t> ld_window_ends(const genotype_source& data, const ld_options& opt) {
  const int64_t m = data.n_variants();
  std::vector<int64_t> end(static_cast<size_t>(m), m);
  if (opt.inter_chr) return end;
  PMX_EXPECTS(opt.window_variants >= 2, "--ld-window must be at least 2");
  std::vector<std::string> chrom(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) chrom[j] = opt.chromosomes.canonical(data.variant(j).chrom);
  for (int64_t i = 0; i < m; ++i) {
    const int64_t limit = data.variant(i).pos + opt.window_bp;
    int64_t j = i + 1;
    while (j < m && j - i <= opt.window_variants - 1 && chrom[j] == chrom[i] &&
           data.variant(j).pos <= limit)
      ++j;
    end[i] = j;
  }
  return end;
}

void compute_ld_table(const executor& exec, const genotype_source& data, const ld_options& opt,
                      const std::function<void(std::span<const ld_pair>)>& sink,
                      progress_sink* progress) {
  check_ld_options(opt);
  const int64_t m = data.n_variants();
  if (m == 0) throw input_error("no variants left for LD (after --extract)");
  const ld_source src(data, opt);
  const std::vector<int64_t> end = ld_window_ends(data, opt);
  // PLINK 1.9 compares |r| with sqrt(threshold) for --r, r² with the threshold for --r2; NaN
  // (monomorphic or no joint call) never passes.
  const double threshold = opt.stat == ld_statistic::r ? std::sqrt(opt.window_r2) : opt.window_r2;
  auto keep = [&](double v) { return std::fabs(v) >= threshold; };

  int64_t span = 1;  // longest window
  for (int64_t i = 0; i < m; ++i) span = std::max(span, end[i] - i - 1);
  const int64_t budget = budget_bytes(opt), per_row = bytes_per_prepared_row(src.n_samples());

  // Variants are prepared a chunk at a time (consecutive rows, a quarter of the budget); rows
  // whose whole window lies in the chunk are computed from it in blocks of `a` rows against
  // [a0 + 1, last window end). With `a` a quarter of the longest window the rectangle computes
  // about 25 % more pairs than the windows hold (those below the diagonal); `a` is bounded so a
  // block's results (one double and six int32 per pair) use at most half the budget. A row whose
  // window does not fit in a chunk (huge windows, --inter-chr on large sets) goes through the
  // streaming path below.
  int64_t chunk = std::clamp<int64_t>(budget / 4 / per_row, 2, m);
  int64_t a = std::clamp<int64_t>(span / 4, 8, 1024);
  a = std::clamp<int64_t>(budget / 2 / (per_row + 32 * (span + a)), 1, a);
  int64_t bc = std::clamp<int64_t>(budget / 4 / per_row, 1, span);  // streaming path: B chunk
  if (opt.block_rows > 0) a = opt.block_rows;
  if (opt.block_cols > 0) bc = opt.block_cols, chunk = std::max<int64_t>(2, 4 * opt.block_cols);

  // Small blocks run side by side, one thread each; large ones use the op's threads.
  const bool side_by_side = !exec.on_device() && exec.threads() > 1 && a * span < 64 * 256;
  const executor one = exec.with_threads(1);

  // Rows [a0, a0 + na) of the chunk C (which starts at variant c0) against their windows.
  // One workspace per thread (side by side) or one for all (sequential), reused block to block.
  struct block_space {
    ld_workspace ws;
    std::vector<double> vals;
  };
  std::vector<block_space> spaces(static_cast<size_t>(side_by_side ? exec.threads() : 1));
  auto chunk_block = [&](const executor& ex, const prepared_rows& C, int64_t c0, int64_t a0,
                         int64_t na, std::vector<ld_pair>& pairs, block_space& sp) {
    pairs.clear();
    int64_t b_end = a0 + 1;
    for (int64_t i = a0; i < a0 + na; ++i) b_end = std::max(b_end, end[i]);
    const int64_t b0 = a0 + 1, nb = b_end - b0;
    if (nb <= 0) return;
    std::vector<double>& vals = sp.vals;
    if (vals.size() < static_cast<size_t>(na * nb)) vals.resize(static_cast<size_t>(na * nb));
    ld_block(ex, C, a0 - c0, na, C, b0 - c0, nb, opt.stat, ld_path::automatic, vals.data(), nb,
             sp.ws);
    for (int64_t i = a0; i < a0 + na; ++i)
      for (int64_t j = i + 1; j < end[i]; ++j) {
        const double v = vals[static_cast<size_t>((i - a0) * nb + (j - b0))];
        if (keep(v)) pairs.push_back({i, j, v});
      }
  };

  // Streaming path: rows [a0, a0 + na) against B loaded in chunks of bc variants; each row's
  // pairs are gathered over the chunks, then emitted in (a, b) order.
  auto streamed_block = [&](int64_t a0, int64_t na, std::vector<ld_pair>& pairs) {
    pairs.clear();
    int64_t b_end = a0 + 1;
    for (int64_t i = a0; i < a0 + na; ++i) b_end = std::max(b_end, end[i]);
    std::vector<std::vector<ld_pair>> per_row(static_cast<size_t>(na));
    const prepared_rows pa = prepare(exec, src.load(a0, na).view());
    std::vector<double> vals;
    ld_workspace ws;
    for (int64_t b0 = a0 + 1; b0 < b_end; b0 += bc) {
      const int64_t nb = std::min(bc, b_end - b0);
      int64_t r0 = na, r1 = 0;  // rows of the block whose window reaches this chunk
      for (int64_t i = 0; i < na; ++i)
        if (end[a0 + i] > b0 && a0 + i + 1 < b0 + nb)
          r0 = std::min(r0, i), r1 = std::max(r1, i + 1);
      if (r0 >= r1) continue;
      const prepared_rows pb = prepare(exec, src.load(b0, nb).view());
      vals.assign(static_cast<size_t>((r1 - r0) * nb), nan_value);
      ld_block(exec, pa, r0, r1 - r0, pb, 0, nb, opt.stat, ld_path::automatic, vals.data(), nb, ws);
      for (int64_t i = r0; i < r1; ++i) {
        const int64_t gi = a0 + i;
        for (int64_t j = std::max(b0, gi + 1); j < std::min(b0 + nb, end[gi]); ++j) {
          const double v = vals[static_cast<size_t>((i - r0) * nb + (j - b0))];
          if (keep(v)) per_row[i].push_back({gi, j, v});
        }
      }
    }
    for (auto& r : per_row) pairs.insert(pairs.end(), r.begin(), r.end());
  };

  const int64_t batch = side_by_side ? 64 * int64_t(exec.threads()) : 1;
  // Pairs of one batch of blocks are written in the background while the next batch is computed.
  std::vector<std::vector<ld_pair>> found_sets[2] = {
      std::vector<std::vector<ld_pair>>(static_cast<size_t>(batch)),
      std::vector<std::vector<ld_pair>>(static_cast<size_t>(batch))};
  int64_t set = 0;
  background_sink writer;
  auto emit = [&](int64_t count) {
    auto& f = found_sets[set];
    writer.submit([&sink, &f, count] {
      for (int64_t k = 0; k < count; ++k) sink(f[k]);
    });
    set ^= 1;
  };
  // Rows [row0, row1): all, or an MPI rank's share (their windows reach beyond it).
  const int64_t row0 = opt.first_row, row1 = opt.end_row < 0 ? m : opt.end_row;
  PMX_EXPECTS(row0 >= 0 && row0 <= row1 && row1 <= m, "LD rows out of range");
  const double rows_all = double(std::max<int64_t>(row1 - row0, 1));
  int64_t start = row0;
  while (start < row1) {
    const int64_t c1 = std::min(m, start + chunk);
    int64_t r1 = start;
    while (r1 < row1 && end[r1] <= c1) ++r1;
    if (r1 == start) {  // this row's window is longer than a chunk
      const int64_t na = std::min(a, row1 - start);
      streamed_block(start, na, found_sets[set][0]);
      emit(1);
      start += na;
      report(progress, "linkage disequilibrium", double(start - row0) / rows_all);
      continue;
    }
    const prepared_rows C = prepare(exec, src.load(start, c1 - start).view());
    const int64_t n_blocks = (r1 - start + a - 1) / a;
    for (int64_t k0 = 0; k0 < n_blocks; k0 += batch) {
      const int64_t nk = std::min(batch, n_blocks - k0);
      auto& found = found_sets[set];
      auto run = [&](const executor& ex, int64_t k, block_space& sp) {
        const int64_t a0 = start + (k0 + k) * a;
        chunk_block(ex, C, start, a0, std::min(a, r1 - a0), found[k], sp);
      };
      if (side_by_side) {
        std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(exec.threads())
        for (int64_t k = 0; k < nk; ++k) {
          try {
            run(one, k, spaces[static_cast<size_t>(omp_get_thread_num())]);
          } catch (...) {
#pragma omp critical(pmx_ld_failure)
            if (!failure) failure = std::current_exception();
          }
        }
        if (failure) std::rethrow_exception(failure);
      } else {
        for (int64_t k = 0; k < nk; ++k) run(exec, k, spaces[0]);
      }
      emit(nk);
      report(progress, "linkage disequilibrium", double(std::min(r1, start + (k0 + nk) * a) - row0) / rows_all);
    }
    start = r1;
  }
  writer.wait();
}

// ------------------------------------------------------------------------------------------------
// Frequencies for --with-freqs

std::vector<double> ld_frequencies(const executor& exec, const genotype_source& data,
                                   const ld_options& opt) {
  using kind = chromosome_set::kind;
  const int64_t m = data.n_variants(), n = data.n_samples();
  std::vector<uint8_t> males(static_cast<size_t>(n)), others(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const sample_record& s = data.sample(i);
    const bool used = opt.nonfounders || opt.ld_nonfounders || s.founder();
    males[i] = used && s.sex == 1;
    others[i] = used && s.sex != 1;
  }
  std::vector<double> freq(static_cast<size_t>(m));
  const int64_t block = 16384;
  std::vector<variant_counts> cm(static_cast<size_t>(block)), co(static_cast<size_t>(block));
  for (int64_t first = 0; first < m; first += block) {
    const int64_t count = std::min(block, m - first);
    const packed_genotypes g = data.read_block(first, count);
    allele_counts(exec, g.view(), males, std::span(cm).first(count));
    allele_counts(exec, g.view(), others, std::span(co).first(count));
    for (int64_t b = 0; b < count; ++b) {
      const variant_counts &x = cm[b], &o = co[b];
      int64_t a1 = 0, a2 = 0;
      switch (opt.chromosomes.classify(data.variant(first + b).chrom)) {
        case kind::x:
          a1 = o.a1_copies() + x.hom_a1, a2 = 2 * o.hom_a2 + o.het + x.hom_a2;
          break;
        case kind::y:
          a1 = x.hom_a1, a2 = x.hom_a2;
          break;
        default:
          a1 = o.a1_copies() + x.a1_copies(), a2 = 2 * (o.hom_a2 + x.hom_a2) + o.het + x.het;
      }
      // PLINK 1.9 keeps the A2 ("set") frequency and prints 1 - it.
      freq[first + b] = a1 + a2 ? 1.0 - double(a2) / double(a1 + a2) : nan_value;
    }
  }
  return freq;
}

}  // namespace pmx
