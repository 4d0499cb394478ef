// Ridge regression's normal equations and predictions (ridge_regression.hpp).
#include "panoramix/ridge_regression.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/stage_clock.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/allele_counts.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx {
namespace {

constexpr int64_t read_block_variants = 8192;
constexpr int64_t tile_variants = 2048;  // SNP × SNP tiles: 4 int32 sums of 2048² = 64 MB

// Error-free transformations (Dekker/Knuth; the product needs an FMA, which std::fma is).
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
inline void two_prod(double a, double b, double& p, double& e) {
  p = a * b;
  e = std::fma(a, b, -p);
}

// z_k·z_l = S − q_l U − q_k Ut + q_k q_l N from exact integers, in double-double: the products
// and the sum are carried with their rounding errors, so the result is the exact value rounded
// about once (only the low part of q_k q_l times N is rounded, a term of order u² |q_k q_l N|).
inline double centred_product(int64_t S, int64_t U, int64_t Ut, int64_t N, double qk, double ql) {
  double p1, e1, p2, e2, h, l, p3, e3;
  two_prod(ql, double(U), p1, e1);
  two_prod(qk, double(Ut), p2, e2);
  two_prod(qk, ql, h, l);
  two_prod(h, double(N), p3, e3);
  e3 += l * double(N);
  double s, t, err = 0;
  two_sum(double(S), -p1, s, t);
  err += t;
  two_sum(s, -p2, s, t);
  err += t;
  two_sum(s, p3, s, t);
  err += t;
  return s + (err + ((e3 - e1) - e2));
}

}  // namespace

ridge_normal_equations compute_ridge_normal_equations(const executor& exec, const genotype_source& data,
                                                      std::span<const double> a1_freq,
                                                      std::span<const int64_t> samples, const double* covariates,
                                                      int64_t n_covariates, const double* Y, int64_t traits,
                                                      progress_sink* progress) {
  const int64_t n_all = data.n_samples(), m = data.n_variants();
  const int64_t n = static_cast<int64_t>(samples.size()), c = n_covariates, t = traits;
  PMX_EXPECTS(static_cast<int64_t>(a1_freq.size()) == m, "ridge regression: one frequency per variant");
  PMX_EXPECTS(n > 0, "ridge regression: no samples");
  PMX_EXPECTS(c >= 0 && t >= 0 && (c == 0 || covariates) && (t == 0 || Y), "ridge regression: covariates/Y missing");
  for (int64_t k = 0; k < n; ++k)
    PMX_EXPECTS(samples[k] >= 0 && samples[k] < n_all && (k == 0 || samples[k] > samples[k - 1]),
                "ridge regression: sample indices increasing and inside the genotypes");
  for (double p : a1_freq) PMX_EXPECTS(p >= 0 && p <= 1, "ridge regression: frequencies in [0, 1]");
  PMX_EXPECTS(n <= (int64_t{1} << 29), "ridge regression: more samples than the crossprod op sums in int32");

  ridge_normal_equations r;
  r.n = n, r.m = m, r.c = c, r.traits = t;
  const int64_t dim = m + c;
  const int threads = exec.threads();
  detail::stage_clock clock(r.stage_seconds);
  clock.time("allocate", [&] {
    r.XtX = zeroed_matrix<double>(static_cast<size_t>(dim * dim), threads);
    r.XtY = zeroed_matrix<double>(static_cast<size_t>(dim * t), threads);
  });
  double* XtX = r.XtX.data();
  double* XtY = r.XtY.data();

  // ---- one pass over the genotypes: the chosen samples' word-aligned rows, per-variant sums,
  // and Zᵀ[C | Y] from the gemm op (Z exactly the mean-imputed centred dosages)
  const bool every_sample = n == n_all;
  const std::vector<int64_t> chosen(samples.begin(), samples.end());
  packed_rows rows(m, n);
  std::vector<int64_t> sum(static_cast<size_t>(m)), missing(static_cast<size_t>(m));
  const int64_t l = c + t;
  std::vector<double> lambda(static_cast<size_t>(n * l)), W;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < c; ++k) lambda[i * l + k] = covariates[i * c + k];
    for (int64_t j = 0; j < t; ++j) lambda[i * l + c + j] = Y[j * n + i];
  }
  for (int64_t first = 0; first < m; first += read_block_variants) {
    const int64_t count = std::min(read_block_variants, m - first);
    packed_genotypes copy, kept;
    variant_major_view v;
    clock.time("read", [&] {
      v = data.block(first, count, copy);
      if (!every_sample) {
        std::vector<int64_t> all(static_cast<size_t>(count));
        for (int64_t b = 0; b < count; ++b) all[b] = b;
        kept = subset(v, chosen, all);
        v = kept.view();
      }
    });
    clock.time("variant rows", [&] {
      const packed_rows block = word_aligned_variant_rows(v, threads);
      std::memcpy(rows.row(first), block.view().data,
                  sizeof(uint64_t) * static_cast<size_t>(count * rows.row_words()));
      std::vector<variant_counts> counts(static_cast<size_t>(count));
      allele_counts(exec.host(), v, {}, counts);
      for (int64_t b = 0; b < count; ++b) sum[first + b] = counts[b].a1_copies(), missing[first + b] = counts[b].missing;
    });
    if (l > 0)
      clock.time("genotypes x [C Y]", [&] {
        W.resize(static_cast<size_t>(count * l));
        gemm_transposed(exec, v, {.p = a1_freq.subspan(first, count), .scale = {}}, l, lambda.data(), l, 0.0,
                        W.data(), l);
        for (int64_t b = 0; b < count; ++b) {
          const int64_t row = first + b;
          for (int64_t k = 0; k < c; ++k) XtX[row * dim + m + k] = XtX[(m + k) * dim + row] = W[b * l + k];
          for (int64_t j = 0; j < t; ++j) XtY[j * dim + row] = W[b * l + c + j];
        }
      });
    report(progress, "ridge regression: read", double(first + count) / double(m));
  }

  // ---- Zᵀ Z in tiles of variants (lower triangle of tiles), mirrored
  std::vector<double> q(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) q[j] = 2 * a1_freq[j];
  const int64_t T = std::min(tile_variants, std::max<int64_t>(m, 1)), tiles = (m + T - 1) / T;
  std::vector<int32_t> S, N, U, Ut;
  const packed_rows_view all_rows = rows.view();
  auto tile_view = [&](int64_t first, int64_t count) {
    return packed_rows_view{all_rows.data + first * all_rows.row_words, count, all_rows.n_cols, all_rows.row_words};
  };
  auto any_missing = [&](int64_t first, int64_t count) {
    for (int64_t j = first; j < first + count; ++j)
      if (missing[j]) return true;
    return false;
  };
  int64_t done = 0;
  for (int64_t ta = 0; ta < tiles; ++ta)
    for (int64_t tb = 0; tb <= ta; ++tb) {
      const int64_t a0 = ta * T, na = std::min(T, m - a0), b0 = tb * T, nb = std::min(T, m - b0);
      const bool dense = any_missing(a0, na) || any_missing(b0, nb);
      const size_t size = static_cast<size_t>(na * nb);
      clock.time("crossprod", [&] {
        S.assign(size, 0);
        crossprod_outputs out{.S = S.data(), .ld = nb};
        if (dense) {
          N.assign(size, 0), U.assign(size, 0), Ut.assign(size, 0);
          out.N = N.data(), out.U = U.data(), out.Ut = Ut.data();
        }
        crossprod(exec, tile_view(a0, na), tile_view(b0, nb), out);
      });
      clock.time("centring", [&] {
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (threads > 1)
        for (int64_t i = 0; i < na; ++i) {
          const int64_t k = a0 + i;
          const int64_t last = ta == tb ? i + 1 : nb;  // diagonal tile: lower triangle, then mirrored
          for (int64_t j = 0; j < last; ++j) {
            const int64_t lv = b0 + j, e = i * nb + j;
            const double z = dense ? centred_product(S[e], U[e], Ut[e], N[e], q[k], q[lv])
                                   : centred_product(S[e], sum[k], sum[lv], n, q[k], q[lv]);
            XtX[k * dim + lv] = z;
            XtX[lv * dim + k] = z;
          }
        }
      });
      done += na * nb;
      report(progress, "ridge regression: genotype crossproducts", double(done) / (0.5 * double(m) * double(m + T)));
    }

  // ---- CᵀC and CᵀY
  clock.time("covariates", [&] {
    for (int64_t a = 0; a < c; ++a) {
      for (int64_t b = 0; b <= a; ++b) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += covariates[i * c + a] * covariates[i * c + b];
        XtX[(m + a) * dim + m + b] = XtX[(m + b) * dim + m + a] = s;
      }
      for (int64_t j = 0; j < t; ++j) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += covariates[i * c + a] * Y[j * n + i];
        XtY[j * dim + m + a] = s;
      }
    }
  });
  return r;
}

void ridge_predict(const executor& exec, const genotype_source& data, std::span<const double> a1_freq,
                   const double* covariates, int64_t n_covariates, const double* beta, int64_t ld_beta,
                   int64_t traits, double* pred, int64_t ld_pred, progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants(), c = n_covariates, t = traits;
  PMX_EXPECTS(static_cast<int64_t>(a1_freq.size()) == m, "ridge prediction: one frequency per variant");
  PMX_EXPECTS(ld_beta >= m + c && ld_pred >= n, "ridge prediction: leading dimensions");
  PMX_EXPECTS(c == 0 || covariates, "ridge prediction: covariates missing");
  if (t == 0 || n == 0) return;
  // The gemm op's Λ (variants × traits) and Y (samples × traits) are row-major.
  std::vector<double> b(static_cast<size_t>(m * t)), y(static_cast<size_t>(n * t), 0.0);
  for (int64_t j = 0; j < t; ++j)
    for (int64_t k = 0; k < m; ++k) b[k * t + j] = beta[j * ld_beta + k];
  for (int64_t first = 0; first < m; first += read_block_variants) {
    const int64_t count = std::min(read_block_variants, m - first);
    packed_genotypes copy;
    const variant_major_view v = data.block(first, count, copy);
    gemm(exec, v, {.p = a1_freq.subspan(first, count), .scale = {}}, t, b.data() + first * t, t,
         first == 0 ? 0.0 : 1.0, y.data(), t);
    report(progress, "ridge regression: predict", double(first + count) / double(m));
  }
  for (int64_t i = 0; i < n; ++i) {
    bool known = true;
    for (int64_t k = 0; k < c; ++k) known = known && !std::isnan(covariates[i * c + k]);
    for (int64_t j = 0; j < t; ++j) {
      double s = y[i * t + j];
      for (int64_t k = 0; k < c; ++k) s += covariates[i * c + k] * beta[j * ld_beta + m + k];
      pred[j * ld_pred + i] = known ? s : std::numeric_limits<double>::quiet_NaN();
    }
  }
}

}  // namespace pmx
