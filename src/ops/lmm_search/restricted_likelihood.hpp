// The host side of the restricted likelihood (reml_math.hpp): the weighted Gram sums of a fit's
// columns at one λ, formed in O(n K²) with SIMD loops, and the likelihood, Wald test and λ search
// on them. Used by the null model and by the cpu fit of every variant (cpu.cpp).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "ops/lmm_search/reml_math.hpp"
#include "panoramix/ops/lmm_search.hpp"

namespace pmx::detail {

/// G_0..G_3 (K × K, symmetric, row-major) and the traces Σh, Σh², Σ log(λd + 1) of one λ.
struct weighted_grams {
  int K = 0;
  double lambda = 0;
  std::vector<double> g[4];
  double trace_h = 0, trace_h2 = 0, logdet_h = 0;
  void resize(int columns);
  double& at(int r, int a, int b) { return g[r][static_cast<size_t>(a * K + b)]; }
  double at(int r, int a, int b) const { return g[r][static_cast<size_t>(a * K + b)]; }
  reml::grams view() const;
};

/// h_i^r for r = 1..max_power at one λ, with the traces Σh, Σh² (shared by every column pair of
/// that λ) and, when asked for (the likelihood's value needs it, its derivatives do not),
/// Σ log(λd + 1); NaN otherwise.
struct lambda_weights {
  double lambda = 0;
  std::vector<double> h[3];
  double trace_h = 0, trace_h2 = 0, logdet_h = 0;
  void set(std::span<const double> d, double lambda, int max_power, bool with_logdet);
};

/// For each of `count` columns v_b: Σ u_i v_bi (when with_unweighted) and Σ h_i^r u_i v_bi for
/// r = 1..max_power, into out[4b + r] (out[4b] the unweighted one). `scratch` is reused memory.
void weigh_against(const lambda_weights& w, const double* u, const double* const* cols, int count, int64_t n,
                   int max_power, bool with_unweighted, double* out, std::vector<double>& scratch);

/// Every pair of `cols` (K column pointers of n values) at powers 1..max_power (and 0 when
/// with_unweighted).
void weigh_columns(const lambda_weights& w, const double* const* cols, int K, int64_t n, int max_power,
                   bool with_unweighted, weighted_grams& out);

/// reml_math.hpp's functions on host Grams (their working storage allocated here).
reml::point restricted_likelihood(const weighted_grams& w, int64_t n, int order);
double projected_yy(const weighted_grams& w);
reml::wald wald_test(const weighted_grams& w, int64_t n);
double r2_on_previous(const weighted_grams& w, int x);

/// The upper tail of F(1, df) at the Wald statistic (NaN for a statistic that is not a number or
/// negative): the p-value, on the host for both backends (Boost).
double wald_p(const reml::wald& w);

/// The range's grid points (regions + 1), computed once on the host: the cuda kernel searches the
/// same points bit for bit.
std::vector<double> search_grid(const lmm_search_range& range);

}  // namespace pmx::detail
