// KRR from a Gram matrix split by rows over ranks (krr_gram_rows.hpp).
#include "stats/kernel/krr_gram_rows.hpp"

#include <algorithm>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/tile_cholesky.hpp"

namespace pmx::detail {
namespace {

// The rows of g that rank r holds (all of them when g is whole).
sample_range gram_rows(const genotype_gram& g, const communicator& comm, int r) {
  if (!g.rows_over_ranks) return {0, g.n};
  return rows_of_rank(g.n, r, comm.size());
}

// Positions [first, end) of the ascending `samples` that lie in `rows`.
std::pair<int64_t, int64_t> positions_in(std::span<const int64_t> samples, sample_range rows) {
  const auto lo = std::lower_bound(samples.begin(), samples.end(), rows.first);
  const auto hi = std::lower_bound(lo, samples.end(), rows.first + rows.count);
  return {lo - samples.begin(), hi - samples.begin()};
}

}  // namespace

matrix_buffer<double> tile_cyclic_kernel(const executor& exec, const genotype_gram& g, double gamma,
                                         const double* covariates, int64_t n_covariates,
                                         std::span<const int64_t> fitted, int64_t tile) {
  const communicator& comm = exec.comm();
  const int P = comm.size(), me = comm.rank();
  const int64_t n = static_cast<int64_t>(fitted.size()), T = tile;
  if (!comm.distributed()) {  // one rank: the whole K, made in place
    matrix_buffer<double> K(static_cast<size_t>(n * n));
    kernel_block(g, gamma, covariates, n_covariates, fitted, fitted, K.data(), n, exec.threads());
    return K;
  }
  PMX_EXPECTS(g.rows_over_ranks, "kernel rows over ranks: a Gram matrix split over the ranks");
  PMX_EXPECTS(std::is_sorted(fitted.begin(), fitted.end()), "kernel rows: fitted samples in ascending order");
  auto owner = [&](int64_t a) { return static_cast<int>((a / T) % P); };
  // This rank's fitted rows of K, ordered by the rank whose columns they are (ascending within).
  const auto [a0, a1] = positions_in(fitted, gram_rows(g, comm, me));
  std::vector<int64_t> samples, send(static_cast<size_t>(P), 0), recv(static_cast<size_t>(P), 0);
  for (int r = 0; r < P; ++r)
    for (int64_t a = a0; a < a1; ++a)
      if (owner(a) == r) samples.push_back(fitted[a]), send[r] += n * int64_t(sizeof(double));
  // Each rank's columns arrive from the holders in rank order, each holder's ascending: that is
  // the columns' own order (holders hold ascending ranges of the fitted samples).
  for (int o = 0; o < P; ++o) {
    const auto [b0, b1] = positions_in(fitted, gram_rows(g, comm, o));
    for (int64_t a = b0; a < b1; ++a)
      if (owner(a) == me) recv[o] += n * int64_t(sizeof(double));
  }
  const int64_t width = tile_cyclic_width(n, T, me, P);
  matrix_buffer<double> K(static_cast<size_t>(std::max<int64_t>(width * n, 1)));
  {
    matrix_buffer<double> rows(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(samples.size()) * n, 1)));
    kernel_block(g, gamma, covariates, n_covariates, samples, fitted, rows.data(), n, exec.threads());
    comm.exchange(rows.data(), send.data(), K.data(), recv.data());
  }
  return K;
}

void predict_from_gram(const executor& exec, const genotype_gram& g, double gamma, const double* covariates,
                       int64_t n_covariates, std::span<const int64_t> rows, std::span<const int64_t> fitted,
                       const double* W, int64_t traits, double* P) {
  const communicator& comm = exec.comm();
  const int64_t n = static_cast<int64_t>(fitted.size()), nr = static_cast<int64_t>(rows.size());
  const sample_range held = gram_rows(g, comm, comm.rank());
  std::vector<int64_t> mine, at;  // the rows held here, and their positions in `rows`
  for (int64_t r = 0; r < nr; ++r)
    if (rows[r] >= held.first && rows[r] < held.first + held.count) mine.push_back(rows[r]), at.push_back(r);
  const int64_t k = static_cast<int64_t>(mine.size());
  matrix_buffer<double> Kc(static_cast<size_t>(std::max<int64_t>(k * n, 1))), Pk(static_cast<size_t>(std::max<int64_t>(k * traits, 1)));
  if (k > 0) {
    kernel_block(g, gamma, covariates, n_covariates, mine, fitted, Kc.data(), n, exec.threads());
    // Kc is row-major k × n, i.e. column-major n × k: P = Kcᵀ-as-stored · W.
    dense_gemm(exec.host(), true, false, k, traits, n, 1.0, Kc.data(), n, W, n, 0.0, Pk.data(), k);
  }
  std::fill_n(P, nr * traits, 0.0);
  for (int64_t c = 0; c < traits; ++c)
    for (int64_t i = 0; i < k; ++i) P[c * nr + at[i]] = Pk[c * k + i];
  if (g.rows_over_ranks) comm.sum(P, nr * traits);
}

}  // namespace pmx::detail
