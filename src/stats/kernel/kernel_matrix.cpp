// Kernel matrices from one Gram matrix of a feature map of the calls (kernel_matrix.hpp).
#include "panoramix/kernel_matrix.hpp"

#include <cmath>

#include "core/mirror_lower.hpp"
#include "core/stage_clock.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/sample_sums.hpp"
#include "panoramix/ops/table_products.hpp"

namespace pmx {
namespace {

// IBS's three feature tables of a variant (by .bed code: hom A1, missing, het, hom A2), each
// centred on its value for a missing call (any per-variant shift leaves distances unchanged and
// smaller numbers round less).
void ibs_tables(double p, code_table& t1, code_table& t2, code_table& t3) {
  const double q = 2 * p, s1 = std::min(q, 1.0), s2 = std::max(q - 1, 0.0);
  const double w = s1 * (1 - s1) + s2 * (1 - s2);
  t1 = {1 - s1, 0.0, 1 - s1, -s1};  // [g >= 1]
  t2 = {1 - s2, 0.0, -s2, -s2};     // [g >= 2]
  t3 = {0.0, std::sqrt(w), 0.0, 0.0};
}

}  // namespace

const char* kernel_name(kernel_type t) { return t == kernel_type::ibs ? "ibs" : "gaussian"; }

genotype_gram compute_genotype_gram(const executor& exec, const genotype_source& data, kernel_type type,
                                    std::span<const double> a1_freq, progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  PMX_EXPECTS(static_cast<int64_t>(a1_freq.size()) == m, "one frequency per variant");
  if (m == 0) throw input_error(data.name() + ": no variants for the kernel");
  bool polymorphic = false;
  for (double p : a1_freq) {
    PMX_EXPECTS(p >= 0 && p <= 1, "frequencies in [0, 1]");
    polymorphic = polymorphic || (p > 0 && p < 1);
  }
  if (!polymorphic)
    throw input_error(data.name() + ": every variant is monomorphic in the training samples; the kernel would be constant");
  genotype_gram g;
  g.n = n, g.n_variants = m, g.type = type;
  if (type == kernel_type::gaussian) {
    grm_options go;
    go.method = grm_method::vanraden;
    go.frequencies.assign(a1_freq.begin(), a1_freq.end());
    go.unscaled = true;
    go.pair_counts = false;
    grm_result r = compute_grm(exec, data, go, progress);
    g.F = std::move(r.G);
    g.stage_seconds = std::move(r.stage_seconds);
    g.row_begin = r.row_begin, g.row_end = r.row_end, g.rows_over_ranks = exec.comm().distributed();
    g.diagonal.assign(static_cast<size_t>(n), 0.0);
    for (int64_t i = r.row_begin; i < r.row_end; ++i) g.diagonal[i] = g.F[(i - r.row_begin) * n + i];
    exec.comm().sum(g.diagonal.data(), n);  // each entry from its row's owner: exact
    return g;
  }
  // Over ranks (as the GRM): each rank adds its own variants; flush() sums them to the owners of
  // their rows, with both triangles.
  const communicator& comm = exec.comm();
  const bool split = comm.distributed();
  const sample_range mine = split ? rows_of_rank(n, comm.rank(), comm.size()) : sample_range{0, n};
  g.row_begin = mine.first, g.row_end = mine.first + mine.count, g.rows_over_ranks = split;
  detail::stage_clock clock(g.stage_seconds);
  const int threads = exec.threads();
  // (At least one entry: a rank without rows still adds its variants for the others.)
  clock.time("allocate", [&] { g.F = zeroed_matrix<double>(static_cast<size_t>(std::max<int64_t>(mine.count * n, 1)), threads); });
  {
    sample_sums sums(exec, n, {.C = g.F.data(), .ld = n, .rows_over_ranks = split});
    constexpr int64_t block = 8192;
    std::vector<code_table> t1, t2, t3;
    const int64_t v0 = m * comm.rank() / comm.size(), v1 = m * (comm.rank() + 1) / comm.size();
    for (int64_t first = v0; first < v1; first += block) {
      const int64_t count = std::min(block, v1 - first);
      packed_genotypes copy;
      variant_major_view v;
      clock.time("read", [&] { v = data.block(first, count, copy); });
      clock.time("tables", [&] {
        t1.resize(static_cast<size_t>(count)), t2.resize(t1.size()), t3.resize(t1.size());
        for (int64_t b = 0; b < count; ++b) ibs_tables(a1_freq[first + b], t1[b], t2[b], t3[b]);
      });
      clock.time("products", [&] {
        sums.add(v, t1, {}, true);
        sums.add(v, t2, {}, true);
        sums.add(v, t3, {}, true);
      });
      report(progress, "IBS kernel", double(first + count - v0) / double(std::max<int64_t>(v1 - v0, 1)));
    }
    clock.time("collect sums", [&] { sums.flush(); });
  }
  if (!split) {
    clock.time("finish", [&] { detail::mirror_lower(g.F.data(), n, threads); });
    return g;
  }
  g.diagonal.assign(static_cast<size_t>(n), 0.0);
  for (int64_t i = mine.first; i < mine.first + mine.count; ++i) g.diagonal[i] = g.F[(i - mine.first) * n + i];
  comm.sum(g.diagonal.data(), n);  // each entry from its row's owner: exact
  return g;
}

void kernel_block(const genotype_gram& g, double gamma, const double* covariates, int64_t n_covariates,
                  std::span<const int64_t> rows, std::span<const int64_t> cols, double* K, int64_t ldk,
                  int threads) {
  const int64_t n = g.n, nr = static_cast<int64_t>(rows.size()), nc = static_cast<int64_t>(cols.size());
  PMX_EXPECTS(ldk >= nc, "kernel block: leading dimension smaller than its columns");
  for (int64_t i : rows) PMX_EXPECTS(i >= 0 && i < n, "kernel block: row outside the Gram matrix");
  for (int64_t j : cols) PMX_EXPECTS(j >= 0 && j < n, "kernel block: column outside the Gram matrix");
  PMX_EXPECTS(n_covariates == 0 || (covariates && g.type == kernel_type::gaussian), "covariates: Gaussian kernel only");
  const int64_t held_end = g.row_end > 0 ? g.row_end : n;
  for (int64_t i : rows) PMX_EXPECTS(i >= g.row_begin && i < held_end, "kernel block: a row this rank does not hold");
  PMX_EXPECTS(!g.diagonal.empty() || (g.row_begin == 0 && held_end == n), "kernel block: rows split without the diagonal");
  const double* F = g.F.data();
  auto diagonal = [&](int64_t i) { return g.diagonal.empty() ? F[i * n + i] : g.diagonal[i]; };
  const double alleles = 2.0 * double(g.n_variants);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t r = 0; r < nr; ++r) {
    const int64_t i = rows[r];
    const double* Fi = F + (i - g.row_begin) * n;
    for (int64_t c = 0; c < nc; ++c) {
      const int64_t j = cols[c];
      double d = diagonal(i) + diagonal(j) - 2 * Fi[j];
      if (g.type == kernel_type::ibs) {
        K[r * ldk + c] = 1 - d / alleles;
        continue;
      }
      for (int64_t k = 0; k < n_covariates; ++k) {
        const double e = covariates[i * n_covariates + k] - covariates[j * n_covariates + k];
        d += e * e;
      }
      K[r * ldk + c] = std::exp(-gamma * d);
    }
  }
}

}  // namespace pmx
