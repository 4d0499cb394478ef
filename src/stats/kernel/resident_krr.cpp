// KRR with K resident in device memory (resident_krr.hpp).
#include "stats/kernel/resident_krr.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/stage_clock.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/sample_sums.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx::detail {
namespace {

constexpr uint64_t low_bits = 0x5555555555555555ULL;

// Every variant of `src` over the samples `keep` (empty, or listing every sample: all), variant-major.
packed_genotypes read_samples(const genotype_source& src, std::span<const int64_t> keep) {
  packed_genotypes copy;
  const variant_major_view v = src.block(0, src.n_variants(), copy);
  const bool all = keep.empty() || static_cast<int64_t>(keep.size()) == src.n_samples();
  if (all && copy.n_samples() > 0) return copy;
  std::vector<int64_t> variants(static_cast<size_t>(src.n_variants()));
  std::iota(variants.begin(), variants.end(), int64_t{0});
  return subset(v, std::vector<int64_t>(keep.begin(), keep.end()), variants);
}

// ‖x_i‖² = Σ_l x_il² of each sample-major row: 4 per hom-A1 call (code 00), 1 per het (code 10);
// hom A2 (11), missing and the padding (01) add nothing.
std::vector<double> self_products(const packed_rows_view& r, int threads) {
  std::vector<double> s(static_cast<size_t>(r.n_rows));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < r.n_rows; ++i) {
    int64_t hom = 0, het = 0;
    const uint64_t* w = r.row(i);
    for (int64_t k = 0; k < r.row_words; ++k) {
      const uint64_t lo = w[k] & low_bits, hi = (w[k] >> 1) & low_bits;
      hom += std::popcount(~lo & ~hi & low_bits);
      het += std::popcount(~lo & hi);
    }
    s[i] = double(4 * hom + het);
  }
  return s;
}

// Rows `rows` of a row-major n_all × nc matrix, in that order.
std::vector<double> gather_rows(const double* x, int64_t nc, std::span<const int64_t> rows) {
  std::vector<double> out(rows.size() * static_cast<size_t>(nc));
  for (size_t r = 0; r < rows.size(); ++r) std::copy_n(x + rows[r] * nc, nc, out.data() + r * nc);
  return out;
}

}  // namespace

std::string resident_krr_refusal(const executor& exec, const kernel_ridge_options& solve, int64_t train_missing_calls,
                                 const genotype_source* test) {
  if (exec.kind() != backend::cuda) return "it needs --device cuda";
  if (solve.precision == solve_precision::fp64)
    return "--precision fp64 factorises a second copy of K (use fp32 or adaptive, which refine to --accuracy)";
  if (train_missing_calls > 0)
    return "the training genotypes have " + std::to_string(train_missing_calls) +
           " missing calls (mean imputation needs the host Gram matrix's corrections)";
  if (test) {  // the missing calls of TEST as the allele counts see them (every sample counted)
    frequency_options fo;
    fo.nonfounders = true;
    const int64_t missing = compute_allele_frequencies(exec, *test, fo, nullptr).total_missing();
    if (missing > 0)
      return "the TEST genotypes have " + std::to_string(missing) +
             " missing calls (mean imputation needs the host Gram matrix's corrections)";
  }
  return {};
}

resident_krr_result run_resident_krr(const executor& exec, const resident_krr_problem& p, analysis_log& log) {
  PMX_EXPECTS(p.train && p.Y && p.traits > 0 && !p.fitted.empty(), "resident KRR: empty problem");
  PMX_EXPECTS(p.nc == 0 || p.covariates, "resident KRR: covariates");
  const int64_t n = static_cast<int64_t>(p.fitted.size()), m = p.train->n_variants(), t = p.traits;
  const int threads = exec.threads();
  resident_krr_result r;
  stage_clock build(r.build_seconds), predict(r.predict_seconds);

  // ---- Build: S on the device, K beside it, S released
  packed_genotypes X;
  build.time("read", [&] { X = read_samples(*p.train, p.fitted); });
  const std::vector<double> cov = p.nc ? gather_rows(p.covariates, p.nc, p.fitted) : std::vector<double>();
  executor_array<double> K;
  {
    sample_sums sums(exec, n, {.ld = n, .S_on_device_only = true});
    build.time("integer sums", [&] { sums.add(X.view(), {}, {}, false); });
    build.time("allocate K",
               [&] { K = executor_array<double>(exec, static_cast<size_t>(n) * static_cast<size_t>(n)); });
    build.time("kernel", [&] { sums.finish_gaussian_kernel(p.gamma, p.nc ? cov.data() : nullptr, p.nc, K.data(), n); });
  }
  log.message("Build on the device: K of " + std::to_string(n) + " fitted samples over " + std::to_string(m) +
              " variants from the exact integer X X^T, " +
              (K.on_device() ? "resident in device memory" : "in host memory"));

  // ---- Associate where K lies; then K goes
  r.solution = solve_kernel_ridge(exec, n, K.data(), p.alpha, t, p.Y, p.solve);
  K = executor_array<double>();
  if (!p.test) return r;

  // ---- Predict: TEST × train distances by the crossprod op, a block of TEST rows at a time
  const int64_t n_test = p.test->n_samples(), n_train_all = p.train->n_samples();
  packed_rows train_rows, test_rows;
  std::vector<double> train_self, test_self;
  predict.time("transpose", [&] {
    train_rows = transpose_to_sample_major(X.view(), threads);
    X = packed_genotypes();
    const packed_genotypes T = read_samples(*p.test, {});
    test_rows = transpose_to_sample_major(T.view(), threads);
    train_self = self_products(train_rows.view(), threads);
    test_self = self_products(test_rows.view(), threads);
  });
  r.predictions.assign(static_cast<size_t>(n_test * t), 0.0);
  // Rows per block: its int32 products and double kernel within about 2 GB of host memory.
  const int64_t rows = std::clamp<int64_t>((int64_t{2} << 30) / (12 * n), 1, std::max<int64_t>(n_test, 1));
  std::vector<int32_t> S;
  matrix_buffer<double> Kc;
  const packed_rows_view B = train_rows.view(), A_all = test_rows.view();
  for (int64_t r0 = 0; r0 < n_test; r0 += rows) {
    const int64_t nb = std::min(rows, n_test - r0);
    predict.time("crossprod", [&] {
      S.assign(static_cast<size_t>(nb * n), 0);
      const packed_rows_view A{A_all.row(r0), nb, A_all.n_cols, A_all.row_words};
      crossprod(exec, A, B, {.S = S.data(), .ld = n});
    });
    predict.time("kernel", [&] {
      Kc.resize(static_cast<size_t>(nb * n));
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t i = 0; i < nb; ++i) {
        const double* ci = p.nc ? p.covariates + (n_train_all + r0 + i) * p.nc : nullptr;
        for (int64_t j = 0; j < n; ++j) {
          double d = test_self[r0 + i] + train_self[j] - 2.0 * double(S[i * n + j]);
          for (int64_t k = 0; k < p.nc; ++k) {
            const double e = ci[k] - cov[j * p.nc + k];
            d += e * e;
          }
          Kc[i * n + j] = std::exp(-p.gamma * d);
        }
      }
    });
    // Kc is row-major nb × n, i.e. column-major n × nb: P[r0.., :] = Kcᵀ-as-stored · W.
    predict.time("K_test,train W", [&] {
      dense_gemm(exec.host(), true, false, nb, t, n, 1.0, Kc.data(), n, r.solution.W.data(), n, 0.0,
                 r.predictions.data() + r0, n_test);
    });
    report(&log, "predict", double(r0 + nb) / double(n_test));
  }
  return r;
}

}  // namespace pmx::detail
