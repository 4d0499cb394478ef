// The restricted likelihood in λ of one mixed-model fit (restricted_likelihood.hpp).
#include "ops/lmm_search/restricted_likelihood.hpp"

#include <boost/math/distributions/fisher_f.hpp>
#include <algorithm>
#include <cmath>
#include <limits>

namespace pmx::detail {
namespace {

// reml_math's working storage for K columns.
struct storage {
  std::vector<double> p[4], pivot[4];
  explicit storage(int K) {
    for (int r = 0; r < 4; ++r) p[r].resize(static_cast<size_t>(K * K)), pivot[r].resize(static_cast<size_t>(K));
  }
  reml::workspace view() {
    reml::workspace w;
    for (int r = 0; r < 4; ++r) w.p[r] = p[r].data(), w.pivot[r] = pivot[r].data();
    return w;
  }
};

}  // namespace

void weighted_grams::resize(int columns) {
  K = columns;
  for (auto& m : g) m.assign(static_cast<size_t>(K * K), 0.0);
}

void lambda_weights::set(std::span<const double> d, double l, int max_power, bool with_logdet) {
  lambda = l;
  const auto n = static_cast<int64_t>(d.size());
  for (int r = 0; r < 3; ++r) h[r].resize(r < max_power ? static_cast<size_t>(n) : 0);
  double t1 = 0, t2 = 0;
  double* h1 = h[0].data();
#pragma omp simd reduction(+ : t1, t2)
  for (int64_t i = 0; i < n; ++i) {
    const double hi = 1.0 / (l * d[i] + 1.0);
    h1[i] = hi;
    t1 += hi, t2 += hi * hi;
  }
  if (max_power >= 2) {
    double* h2 = h[1].data();
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) h2[i] = h1[i] * h1[i];
  }
  if (max_power >= 3) {
    double* h3 = h[2].data();
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) h3[i] = h1[i] * h1[i] * h1[i];
  }
  trace_h = t1, trace_h2 = t2;
  logdet_h = std::numeric_limits<double>::quiet_NaN();  // only the likelihood's value needs it
  if (with_logdet) {
    double ld = 0;
    for (int64_t i = 0; i < n; ++i) ld += std::log(std::fabs(l * d[i] + 1.0));
    logdet_h = ld;
  }
}

void weigh_against(const lambda_weights& w, const double* u, const double* const* cols, int count, int64_t n,
                   int max_power, bool with_unweighted, double* out, std::vector<double>& scratch) {
  // h^r ∘ u once, then one pass per column for all powers (two loads per sum instead of three).
  scratch.resize(static_cast<size_t>(max_power * n));
  for (int r = 0; r < max_power; ++r) {
    const double* h = w.h[r].data();
    double* hu = scratch.data() + r * n;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) hu[i] = h[i] * u[i];
  }
  const double *h1 = scratch.data(), *h2 = h1 + n, *h3 = h2 + n;
  for (int b = 0; b < count; ++b) {
    const double* v = cols[b];
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (with_unweighted) {
#pragma omp simd reduction(+ : s0)
      for (int64_t i = 0; i < n; ++i) s0 += u[i] * v[i];
    }
    if (max_power == 1) {
#pragma omp simd reduction(+ : s1)
      for (int64_t i = 0; i < n; ++i) s1 += h1[i] * v[i];
    } else if (max_power == 2) {
#pragma omp simd reduction(+ : s1, s2)
      for (int64_t i = 0; i < n; ++i) s1 += h1[i] * v[i], s2 += h2[i] * v[i];
    } else if (max_power == 3) {
#pragma omp simd reduction(+ : s1, s2, s3)
      for (int64_t i = 0; i < n; ++i) s1 += h1[i] * v[i], s2 += h2[i] * v[i], s3 += h3[i] * v[i];
    }
    double* o = out + 4 * b;
    o[0] = s0, o[1] = s1, o[2] = s2, o[3] = s3;
  }
}

void weigh_columns(const lambda_weights& w, const double* const* cols, int K, int64_t n, int max_power,
                   bool with_unweighted, weighted_grams& out) {
  if (out.K != K) out.resize(K);
  out.lambda = w.lambda;
  out.trace_h = w.trace_h, out.trace_h2 = w.trace_h2, out.logdet_h = w.logdet_h;
  std::vector<double> sums(static_cast<size_t>(4 * K)), scratch;
  for (int a = 0; a < K; ++a) {
    weigh_against(w, cols[a], cols + a, K - a, n, max_power, with_unweighted, sums.data(), scratch);
    for (int b = a; b < K; ++b)
      for (int r = with_unweighted ? 0 : 1; r <= max_power; ++r)
        out.at(r, a, b) = out.at(r, b, a) = sums[4 * (b - a) + r];
  }
}

reml::grams weighted_grams::view() const {
  reml::grams v;
  v.K = K, v.lambda = lambda, v.trace_h = trace_h, v.trace_h2 = trace_h2, v.logdet_h = logdet_h;
  for (int r = 0; r < 4; ++r) v.g[r] = g[r].data();
  return v;
}

reml::point restricted_likelihood(const weighted_grams& w, int64_t n, int order) {
  storage s(w.K);
  return reml::likelihood(w.view(), double(n), order, s.view());
}

double projected_yy(const weighted_grams& w) {
  storage s(w.K);
  return reml::projected_yy(w.view(), s.view());
}

reml::wald wald_test(const weighted_grams& w, int64_t n) {
  storage s(w.K);
  return reml::wald_test(w.view(), double(n), s.view());
}

double r2_on_previous(const weighted_grams& w, int x) {
  storage s(w.K);
  return reml::r2_on_previous(w.view(), x, s.view());
}

double wald_p(const reml::wald& w) {
  return std::isfinite(w.F) && w.F >= 0
             ? boost::math::cdf(boost::math::complement(boost::math::fisher_f(1.0, w.df), w.F))
             : std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> search_grid(const lmm_search_range& range) {
  std::vector<double> grid(static_cast<size_t>(range.regions + 1));
  for (int k = 0; k <= range.regions; ++k)
    grid[k] = range.l_min * std::exp(std::log(range.l_max / range.l_min) / double(range.regions) * double(k));
  return grid;
}

}  // namespace pmx::detail
