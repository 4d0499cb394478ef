// Builds the per-call table of the Matérn `trapezoid` route in long double (what it holds:
// trapezoid_table.hpp; how it is used: trapezoid.hpp).
#include "ops/matern_covariance/trapezoid_table.hpp"

#include <algorithm>
#include <cmath>

#include "ops/matern_covariance/trapezoid.hpp"
#include "panoramix/error.hpp"

namespace pmx::detail {

trap_table build_trap_table(double nu_d, double a_lo, double a_hi) {
  PMX_EXPECTS(a_lo > 0 && a_lo <= a_hi && trap_applies(nu_d, a_lo) && trap_applies(nu_d, a_hi),
              "trapezoid table: distances outside the route's domain");
  using ld = long double;
  const ld nu = nu_d, delta = trap_delta;
  // The right nodes of a_lo and a_hi, one more each way: a device's log may round a/ln 2 to the
  // other side of a node than the host's. The widest window from the first: it grows with a.
  const int right_lo = trap_range_of(a_lo).right - 1, right_hi = trap_range_of(a_hi).right + 1;
  const int node_first = std::max(right_lo - trap_window, trap_grid_lo), node_last = std::min(right_hi, trap_grid_hi);
  const int tail_first = std::max(right_lo, trap_grid_lo), tail_last = std::min(right_hi, trap_grid_hi);
  auto s_of = [](int j) { return static_cast<ld>(j) / trap_per_unit; };
  auto P_of = [&](int j) { return delta * std::exp(nu * s_of(j) - std::exp(s_of(j))); };

  trap_table t;
  t.node_first = node_first;
  t.tail_first = tail_first;
  const size_t nodes = static_cast<size_t>(node_last - node_first + 1);
  t.node.resize(nodes);
  t.Q.resize(nodes);
  t.prefix.resize(3 * nodes);
  // Σ_{i<j} s_i^m Q_i. Below s = −40, e^{−u} = 1 − O(e^{−40}) and Q_i = δ e^{c s_i} (c = ν + 1)
  // is geometric: the sum over i < j0 in closed form (q = e^{−cδ}, s_i = s0 − kδ, k ≥ 1), which
  // also counts the nodes below the grid; the rest node by node.
  const int j0 = std::min(node_first, -40 * trap_per_unit);
  ld pq[3];
  {
    const ld c = nu + 1, s0 = s_of(j0), q = std::exp(-c * delta), p = -std::expm1(-c * delta);  // p = 1 − q
    const ld e = delta * std::exp(c * s0), g1 = q / p, g2 = q / (p * p), g3 = q * (1 + q) / (p * p * p);
    pq[0] = e * g1;                                                  // Σ q^k
    pq[1] = e * (s0 * g1 - delta * g2);                              // Σ (s0 − kδ) q^k
    pq[2] = e * (s0 * s0 * g1 - 2 * s0 * delta * g2 + delta * delta * g3);  // Σ (s0 − kδ)² q^k
  }
  for (int j = j0; j <= node_last; ++j) {
    const ld s = s_of(j), P = P_of(j), Q = std::exp(s) * P;
    if (j >= node_first) {
      const size_t at = static_cast<size_t>(j - node_first);
      t.node[at] = {static_cast<double>(std::exp(-s)), static_cast<double>(P)};
      t.Q[at] = static_cast<double>(Q);
      for (int m = 0; m < 3; ++m) t.prefix[m * nodes + at] = static_cast<double>(pq[m]);
    }
    pq[0] += Q, pq[1] += s * Q, pq[2] += s * s * Q;
  }

  // Right-tail moments R_k(j) = Σ_{i≥j} s_i^m P_i (r_i/r_j)^k, from the grid's end down.
  if (tail_first > tail_last) return t;
  const size_t tails = static_cast<size_t>(tail_last - tail_first + 1);
  t.tail.resize(tails * trap_sets * trap_terms);
  ld R[3][trap_terms] = {}, decay[trap_terms], inv_fact[trap_terms + 1];
  inv_fact[0] = 1;
  for (int k = 0; k < trap_terms; ++k) decay[k] = std::exp(-k * delta), inv_fact[k + 1] = inv_fact[k] / (k + 1);
  for (int j = trap_grid_hi; j >= tail_first; --j) {
    const ld s = s_of(j), P = P_of(j);
    for (int k = 0; k < trap_terms; ++k) {
      R[0][k] = P + decay[k] * R[0][k];
      R[1][k] = s * P + decay[k] * R[1][k];
      R[2][k] = s * s * P + decay[k] * R[2][k];
    }
    if (j > tail_last) continue;
    double* out = t.tail.data() + (j - tail_first);
    auto put = [&](int set, int k, ld v) { out[(set * trap_terms + k) * tails] = static_cast<double>(v); };
    for (int k = 0; k < trap_terms; ++k) {
      // a term of power p in a = νb: its ν-derivatives add p/ν and p(p−1)/ν² (trapezoid.hpp)
      auto set = [&](ld p, int m0, ld scale) {
        const ld x0 = R[0][k], x1 = R[1][k] + p / nu * x0, x2 = R[2][k] + 2 * p / nu * R[1][k] + p * (p - 1) / (nu * nu) * x0;
        put(m0, k, scale * x0), put(m0 + 1, k, scale * x1), put(m0 + 2, k, scale * x2);
      };
      set(k, trap_d0, inv_fact[k]);
      set(k, trap_h0, -k * inv_fact[k]);
      set(k + 1, trap_g0, inv_fact[k + 1]);
    }
  }
  return t;
}

trap_table build_trap_table_for(double nu, double a_per_h2, double h_lo, double h_hi) {
  // trap_applies holds on one interval of a (κ grows with a): clamp [a(h_lo), a(h_hi)] into it.
  const double lo = std::max(a_per_h2 * h_lo * h_lo, trap_a_min), a_hi = a_per_h2 * h_hi * h_hi;
  if (!(lo <= a_hi) || !trap_applies(nu, lo)) return {};
  double hi = a_hi;
  if (!trap_applies(nu, hi)) {
    double good = lo, bad = std::min(hi, 1e300);  // largest a that applies lies in [good, bad)
    for (int i = 0; i < 200 && bad > good * (1 + 1e-15); ++i) {
      const double mid = std::sqrt(good) * std::sqrt(bad);
      (trap_applies(nu, mid) ? good : bad) = mid;
    }
    hi = good;
  }
  return build_trap_table(nu, lo, hi);
}

trap_table build_trap_table_for(double nu, double a_per_h2, const double* h, int64_t n) {
  double lo = INFINITY, hi = 0;
  for (int64_t i = 0; i < n; ++i)
    if (h[i] > 0 && h[i] < INFINITY) lo = std::min(lo, h[i]), hi = std::max(hi, h[i]);
  return hi > 0 ? build_trap_table_for(nu, a_per_h2, lo, hi) : trap_table{};
}

}  // namespace pmx::detail
