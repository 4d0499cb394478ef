// GRM assembly from the ops: stream variant blocks, accumulate n×n sums, finish in double.
#include "panoramix/grm.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>

#include "core/mirror_lower.hpp"
#include "core/stage_clock.hpp"
#include "grm_into.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/sample_sums.hpp"
#include "panoramix/ops/table_products.hpp"

namespace pmx {

double grm_frequency(double a1_freq) { return std::isnan(a1_freq) ? 0.5 : a1_freq; }

namespace {

using detail::mirror_lower;
using detail::stage_clock;

}  // namespace

grm_result detail::compute_grm_into(const executor& exec, const genotype_source& data, const grm_options& opt,
                                    double* G, progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  if (m == 0) throw input_error("no variants left for the GRM (after X/Y/MT and --extract)");
  const bool given = !opt.frequencies.empty();
  PMX_EXPECTS(!given || static_cast<int64_t>(opt.frequencies.size()) == m, "one given frequency per variant");
  for (double p : opt.frequencies) PMX_EXPECTS(p >= 0 && p <= 1, "given frequencies in [0, 1]");
  if (4 * m >= (int64_t{1} << 31)) throw unsupported_error("more than 500 M variants: int32 sums overflow");
  const bool vanraden = opt.method == grm_method::vanraden;
  PMX_EXPECTS(!opt.unscaled || vanraden, "an unscaled GRM is VanRaden's Z Zᵀ");
  const int threads = exec.threads();
  frequency_options fo;
  fo.nonfounders = opt.nonfounders;
  fo.chromosomes = opt.chromosomes;
  const frequency_counter counter(data, fo);
  allele_frequencies freqs;
  freqs.resize(m);

  grm_result res;
  res.n = n;
  res.n_variants = m;
  res.a1_freq.resize(static_cast<size_t>(m));
  stage_clock clock(res.stage_seconds);
  const bool counts = opt.pair_counts || !vanraden;
  // Over several ranks each reads and multiplies its own contiguous range of variants (a
  // variant's frequency needs only its own row), and the sums are added over the ranks to the
  // owners of their rows: each rank finishes and holds its rows of G only (whole rows).
  const communicator& comm = exec.comm();
  const bool split = comm.distributed();
  const sample_range mine = split ? rows_of_rank(n, comm.rank(), comm.size()) : sample_range{0, n};
  const int64_t r0 = mine.first, rows = mine.count;
  res.row_begin = r0, res.row_end = r0 + rows;
  matrix_buffer<int32_t> S;
  matrix_buffer<double> W, R;
  std::vector<double> a;
  // (At least one entry: a rank without rows still adds its variants' sums for the others, and
  // sample_sums knows which sums are wanted by their pointers.)
  const auto nn = static_cast<size_t>(n * n), held = static_cast<size_t>(std::max<int64_t>(rows * n, 1));
  // S, N and the standardised G accumulate: sample_sums zeroes them (in the background while a GPU
  // multiplies). VanRaden's G is written whole by the finishing step.
  clock.time("allocate", [&] {
    if (counts) res.N = matrix_buffer<int32_t>(held);
    if (vanraden) S = matrix_buffer<int32_t>(held), a.assign(static_cast<size_t>(n), 0.0);
  });

  // One pass: each block's frequencies come from its own rows, so the block is read once and its
  // code tables are ready before its products. The n×n sums stay where the backend keeps them
  // (on the GPU for cuda) until flush.
  sample_sums sums(exec, n, {.S = vanraden ? S.data() : nullptr, .N = counts ? res.N.data() : nullptr,
                             .C = vanraden ? nullptr : G, .ld = n, .a = vanraden ? a.data() : nullptr,
                             .uninitialised = true, .rows_over_ranks = split});
  res.residence = sums.residence();
  double denom_vr = 0, qq = 0;  // 2 Σ p(1-p);  Σ q² with q = 2p
  // On cuda, blocks of ~1 GiB of 2-bit data: the standardised C is still downloaded per block
  // (table_crossprod's contract), so fewer, larger blocks; the resident sums do not care.
  const int64_t block = exec.on_device()
                            ? std::max(opt.block_variants, std::min<int64_t>(m, (int64_t{1} << 32) / std::max<int64_t>(n, 1)))
                            : opt.block_variants;
  std::vector<code_table> z, rowsum_table, w_table;
  std::vector<double> r_q2;
  const int64_t v0 = m * comm.rank() / comm.size(), v1 = m * (comm.rank() + 1) / comm.size();
  for (int64_t first = v0; first < v1; first += block) {
    const int64_t count = std::min(block, v1 - first);
    packed_genotypes copy;
    variant_major_view g;
    clock.time("read", [&] {
      g = data.mapped_block(first, count);
      if (!g.data) copy = data.read_block(first, count), g = copy.view();
    });
    int64_t block_missing = 0;
    clock.time("frequencies and tables", [&] {
      // On a device the counts come from the host's cores: the GPU is still multiplying the last
      // block while they count this one, and the block then crosses PCIe once, not twice.
      counter.add_block(exec.on_device() ? exec.host() : exec, first, g, freqs);
      // Per-variant tables of z by .bed code {hom A1, missing, het, hom A2}.
      z.resize(static_cast<size_t>(count));
      if (vanraden) rowsum_table.resize(z.size()), w_table.resize(z.size()), r_q2.resize(z.size());
      for (int64_t b = 0; b < count; ++b) {
        const int64_t j = first + b;
        const double p = res.a1_freq[j] = given ? opt.frequencies[j] : grm_frequency(freqs.a1[j]), q = 2 * p;
        block_missing += freqs.missing_all[j];
        denom_vr += 2 * p * (1 - p);
        if (!vanraden) {
          const double s = (p > 0 && p < 1) ? 1 / std::sqrt(2 * p * (1 - p)) : 0.0;
          z[b] = {(2 - q) * s, 0.0, (1 - q) * s, -q * s};
        } else {
          z[b] = {2 - q, 0.0, 1 - q, -q};
          rowsum_table[b] = {2 * q, 0.0, q, 0.0};  // a_i = Σ_l x_il q_l over called
          for (int c = 0; c < 4; ++c) w_table[b][c] = q * z[b][c];
          r_q2[b] = q * q;
          qq += q * q;
        }
      }
    });
    clock.time("products", [&] { sums.add(g, z, rowsum_table, block_missing > 0); });
    if (vanraden && block_missing) {
      // Z Zᵀ = S − a1ᵀ − 1aᵀ + (qᵀq)11ᵀ + W + Wᵀ − R   (S exact; see DESIGN.md §3 / grm.hpp)
      clock.time("missing-call corrections", [&] {
        if (W.empty()) W = zeroed_matrix<double>(nn, threads), R = zeroed_matrix<double>(nn, threads);
        missing_crossprod(exec, g, w_table, r_q2, W.data(), R.data(), n);
      });
    }
    report(progress, "relationship matrix", double(first + count - v0) / double(v1 - v0));
  }
  clock.time("collect sums", [&] { sums.flush(); });
  res.integer_route_variants = sums.integer_route_variants();
  // Over ranks: S, N, C and a were summed to their rows' owners by flush(); the rest here.
  // The missing-call terms W + Wᵀ − R (symmetric) go to the rows' owners too, in R.
  if (split)
    clock.time("sum over ranks", [&] {
      int64_t facts[2] = {res.integer_route_variants, W.empty() ? 0 : 1};
      comm.sum(facts, 2);
      res.integer_route_variants = facts[0];
      double scalars[2] = {denom_vr, qq};
      comm.sum(scalars, 2);
      denom_vr = scalars[0], qq = scalars[1];
      comm.sum(res.a1_freq.data(), m);
      if (!facts[1]) return;
      if (W.empty()) W = zeroed_matrix<double>(nn, threads), R = zeroed_matrix<double>(nn, threads);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) R[i * n + j] = W[j * n + i] + W[i * n + j] - R[i * n + j];
      mirror_lower(R.data(), n, threads);
      std::vector<int64_t> first(static_cast<size_t>(comm.size() + 1));
      for (int o = 0; o <= comm.size(); ++o)
        first[static_cast<size_t>(o)] = (o == comm.size() ? n : rows_of_rank(n, o, comm.size()).first) * n;
      comm.sum_to_owners(R.data(), first.data());
    });

  clock.time("finish", [&] {
    // Row i of the held rows is row r0 + i of G: its lower triangle alone, or (over ranks) whole.
    auto last_column = [&](int64_t gi) { return split ? n - 1 : gi; };
    if (!vanraden) {
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j <= last_column(r0 + i); ++j) G[i * n + j] /= res.N[i * n + j];
    } else {
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t gi = r0 + i;
        for (int64_t j = 0; j <= last_column(gi); ++j) {
          // The lower triangle's order of operations for (i, j) and (j, i) alike: G exactly symmetric.
          double v = double(S[i * n + j]) - a[std::max(gi, j)] - a[std::min(gi, j)] + qq;
          if (!W.empty()) v += split ? R[gi * n + j] : W[j * n + gi] + W[gi * n + j] - R[gi * n + j];
          G[i * n + j] = opt.unscaled ? v : v / denom_vr;
        }
      }
    }
    if (!split) {
      mirror_lower(G, n, threads);
      if (counts) mirror_lower(res.N.data(), n, threads);
    }
    if (!opt.pair_counts) res.N.clear();
  });
  return res;
}

grm_result compute_grm(const executor& exec, const genotype_source& data, const grm_options& opt,
                       progress_sink* progress) {
  const int64_t n = data.n_samples();
  const communicator& comm = exec.comm();
  const int64_t rows = comm.distributed() ? rows_of_rank(n, comm.rank(), comm.size()).count : n;
  // Uninitialised: compute_grm_into writes it all (at least one entry: see there).
  matrix_buffer<double> G(static_cast<size_t>(std::max<int64_t>(rows * n, 1)));
  grm_result res = detail::compute_grm_into(exec, data, opt, G.data(), progress);
  res.G = std::move(G);
  return res;
}

}  // namespace pmx
