// One distance's Matérn sums by the trapezoid rule in s = ln u (the `trapezoid` route), shared by
// the host backends and the CUDA kernel (host-device inline). The integrals and the combination
// with Γ, ψ, ψ′ are the op header's (matern_finish); the table is trapezoid_table.hpp's.
//
// Per distance, with y_j = a r_j = a/u_j the argument of e^{−a/u}:
//   explicit nodes  y ∈ (ln 2, 170]: one exp each (88 nodes: s from ln(a/ln 2) − 5.5; 72 nodes,
//                   y up to 62, where a ≤ 4 and so the peak, at y ≤ √a, is at y ≤ 2);
//   left of them    e^{−y} < e^{−62}: the direct form's terms vanish; the complement's first
//                   term is Q (its (1 − e^{−y}) = 1), summed once per call (the table's prefix);
//   right of them   y ≤ ln 2: e^{−y} and 1 − e^{−y} as 20 Taylor terms in y = y_0 r_i/r_0, whose
//                   sums over the nodes are the table's per-call moments: a Horner step each.
// So the work is the same for every distance (72 or 88 exps, 20-term Horner sums), whatever a is.
//
// Why δ = 1/16 suffices, and where: the integrand e^{νs − a e^{−s} − e^s} is analytic in
// |Im s| < π/2 (there |e^{−a e^{−s}}| ≤ 1 and |e^{−e^s}| ≤ 1), so the rule's relative error is
// about e^{−2π·1.4/δ} ≈ e^{−140} where the integrand is broad; where its peak is narrow (large
// a or ν) it behaves like a Gaussian of curvature κ = u* + a/u* (u* the peak) and the error is
// ≈ e^{−(2π/δ)²/(2κ)}: below e^{−50} for κ ≤ 100 (x = √(2ν)h/ρ ≤ ~100 at small ν, ν ≤ ~90).
// Beyond that (C < e^{−100} or ν > 90), and for a < 1e-300 (below the grid), trap_applies is
// false and the caller uses the exp-sinh route (point.hpp) for that distance.
#pragma once
#include <cstddef>

#include "ops/matern_covariance/point.hpp"
#include "ops/matern_covariance/quadrature_table.hpp"
#include "ops/matern_covariance/trapezoid_table.hpp"

namespace pmx::detail {

inline constexpr double trap_kappa_max = 100;
inline constexpr double trap_a_min = 1e-300;

/// Whether the trapezoid sums are accurate at a = νh²/(2ρ²) (see above); false for a = ∞.
PMX_MATERN_HD inline bool trap_applies(double nu, double a) {
  if (!(a >= trap_a_min)) return false;
  const double u = 0.5 * (nu + sqrt(nu * nu + 4 * a));
  return u + a / u <= trap_kappa_max;
}

/// Σ_k c_k z^k over the tail's terms (Horner; c_k at c[k·stride]).
PMX_MATERN_HD inline double trap_horner(const double* c, int stride, double z) {
  double v = c[(trap_terms - 1) * stride];
  for (int k = trap_terms - 2; k >= 0; --k) v = v * z + c[k * stride];
  return v;
}

/// Σ_k (a g_k + h_k) z^k: the complement's tail (its first term carries one more power of a).
PMX_MATERN_HD inline double trap_horner2(const double* g, const double* h, int stride, double a, double z) {
  double v = a * g[(trap_terms - 1) * stride] + h[(trap_terms - 1) * stride];
  for (int k = trap_terms - 2; k >= 0; --k) v = v * z + (a * g[k * stride] + h[k * stride]);
  return v;
}

/// Coefficient set `set` of the tail at the distance's right node (its k-th term at [k·t.tails]).
PMX_MATERN_HD inline const double* trap_tail_set(const trap_view& t, int right, int set) {
  return t.tail + static_cast<size_t>(set) * trap_terms * t.tails + (right - t.tail_first);
}

/// The direct form's sums (I, I′, I″ as in point.hpp; K = Σ (a/u) f for dC/dρ).
PMX_MATERN_HD inline matern_sums trap_direct(const trap_view& t, const trap_range& w, double a, double b, bool deriv) {
  matern_sums m;
  double s = trap_s(w.lo);  // (s_j by exact additions of 1/16: no int-to-double conversion a node)
  for (int j = w.lo; j < w.hi; ++j, s += trap_delta) {
    const trap_node n = t.node[j - t.node_first];
    const double y = a * n.r, f = n.P * exp(-y);
    m.I += f;
    m.K += y * f;
    if (deriv) {
      const double L = s - b * n.r;  // ∂/∂ν log f = ln u − b/u
      m.I1 += f * L;
      m.I2 += f * L * L;
    }
  }
  if (w.right > trap_grid_hi) return m;
  const double z = -a * t.node[w.right - t.node_first].r;
  const int st = t.tails;
  m.I += trap_horner(trap_tail_set(t, w.right, trap_d0), st, z);
  m.K += trap_horner(trap_tail_set(t, w.right, trap_h0), st, z);
  if (deriv) {
    m.I1 += trap_horner(trap_tail_set(t, w.right, trap_d0 + 1), st, z);
    m.I2 += trap_horner(trap_tail_set(t, w.right, trap_d0 + 2), st, z);
  }
  return m;
}

/// The complement form's sums J = ∫ T1 + T2 (the terms and their ν-derivatives as in
/// matern_complement_node; here f = P e^{−y}, T1 = (1 − e^{−y}) Q, T2 = y f).
PMX_MATERN_HD inline matern_sums trap_complement(const trap_view& t, const trap_range& w, double a, double b,
                                                 bool deriv) {
  matern_sums m;
  const double* pq = t.prefix + (w.lo - t.node_first);
  m.I = pq[0], m.I1 = pq[t.nodes], m.I2 = pq[2 * t.nodes];
  double s = trap_s(w.lo);
  for (int j = w.lo; j < w.hi; ++j, s += trap_delta) {
    const trap_node n = t.node[j - t.node_first];
    const double y = a * n.r, E = exp(-y), f = n.P * E, t1 = (1 - E) * t.Q[j - t.node_first], t2 = y * f;
    m.I += t1 + t2;
    m.K += t2;
    if (deriv) {
      const double br = b * n.r, mm = s - br;
      m.I1 += s * t1 + b * f + br * f + t2 * mm;
      m.I2 += s * s * t1 + 2 * s * b * f - b * br * f + 2 * br * f * mm + t2 * mm * mm;
    }
  }
  if (w.right > trap_grid_hi) return m;
  const double z = -a * t.node[w.right - t.node_first].r;
  const int st = t.tails;
  auto set = [&](int s) { return trap_tail_set(t, w.right, s); };
  m.I += trap_horner2(set(trap_g0), set(trap_h0), st, a, z);
  m.K += trap_horner(set(trap_h0), st, z);
  if (deriv) {
    m.I1 += trap_horner2(set(trap_g0 + 1), set(trap_h0 + 1), st, a, z);
    m.I2 += trap_horner2(set(trap_g0 + 2), set(trap_h0 + 2), st, a, z);
  }
  return m;
}

/// C and the requested derivatives at h > 0 with trap_applies(ν, a): the direct form, and the
/// complement where C > 1/2 and ν-derivatives are asked (C alone is accurate either way).
PMX_MATERN_HD inline matern_point matern_trapezoid(const matern_consts& k, const trap_view& t, double h) {
  const double a = k.a_per_h2 * h * h, b = k.b_per_h2 * h * h;
  const trap_range w = trap_range_of(a);
  const bool deriv = k.derivatives != 0;
  const matern_sums m = trap_direct(t, w, a, b, deriv);
  if (!deriv || m.I * k.inv_gamma <= 0.5) return matern_finish(k, false, m, 1);
  return matern_finish(k, true, trap_complement(t, w, a, b, deriv), 1);
}

/// Which code serves a distance: h = 0 and overflowing a as point.hpp; where the trapezoid rule is
/// not accurate (trap_applies), the exp-sinh route's windowed sums.
enum class trap_case { zero, beyond, trapezoid, exp_sinh };
PMX_MATERN_HD inline trap_case trap_case_of(const matern_consts& k, double h) {
  if (h == 0) return trap_case::zero;
  const double a = k.a_per_h2 * h * h;
  if (matern_beyond_range(a)) return trap_case::beyond;
  return trap_applies(k.nu, a) ? trap_case::trapezoid : trap_case::exp_sinh;
}

/// One distance of the route, the exp-sinh sums on `exp_sinh` where needed (k.stride = 1).
template <class Table>
PMX_MATERN_HD inline matern_point matern_trapezoid_point(const matern_consts& k, const trap_view& t,
                                                         const Table& exp_sinh, double h) {
  switch (trap_case_of(k, h)) {
    case trap_case::zero: return matern_at_zero(k);
    case trap_case::beyond: return matern_point{0, 0, 0, 0, 0};
    case trap_case::trapezoid: return matern_trapezoid(k, t, h);
    case trap_case::exp_sinh: break;
  }
  return matern_window(k, exp_sinh, matern_nodes, matern_origin, matern_delta, h);
}

}  // namespace pmx::detail
