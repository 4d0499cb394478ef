// The per-call table of the Matérn `trapezoid` route (trapezoid.hpp has the per-distance sums).
//
// The integrals of the op's header in s = ln u are trapezoid sums on the fixed grid s_j = jδ,
// δ = 1/16 (the integrands are analytic in the strip |Im s| < π/2 and decay double-exponentially,
// so the rule converges like e^{−2πd/δ}; see trapezoid.hpp for where that holds). Everything that
// depends on ν but not on the distance is tabulated once per call, so that a node costs one exp:
//   node j:  r = e^{−s}, P = δ e^{νs − e^s} (direct integrand without e^{−a/u}), Q = e^s P
//            (s = j/16 itself is exact in double, so it is not stored);
//   prefix:  Σ_{i<j} s_i^m Q_i (m = 0, 1, 2): the complement's left tail, where e^{−a/u} = 0;
//   tail:    Taylor coefficients of the right tail Σ_{i≥j} (in powers of a r_j ≤ ln 2), with the
//            ν-derivatives of a = νb and of P folded in (trapezoid.hpp says which is which).
// Only the nodes the call's distances need are built (the caller passes its range of a).
// Layout, for the GPU: neighbouring lanes of a warp read neighbouring nodes j (their distances'
// windows overlap), so every array is indexed by j last — one 16-byte (r, P) load a node, and a
// tail coefficient's 32 lanes fall into a few cache lines, not 32.
#pragma once
#include <cstdint>
#include <vector>

#include "ops/matern_covariance/point.hpp"

namespace pmx::detail {

inline constexpr int trap_per_unit = 16;  ///< 1/δ
inline constexpr double trap_delta = 1.0 / trap_per_unit;
inline constexpr int trap_grid_lo = -700 * trap_per_unit;  ///< s = −700 (r = e^{700} still finite)
inline constexpr int trap_grid_hi = 9 * trap_per_unit;     ///< s = 9 (e^{−u} = 0 beyond)
/// Explicit nodes a distance: s ∈ [ln(a/ln 2) − 5.5, ln(a/ln 2)), i.e. a/u from ln 2 to 170: the
/// integrand's peak, at a/u* ≤ √a, then lies 60 e-folds inside the window up to a = 2500 (κ = 100).
inline constexpr int trap_window = 88;
/// For a ≤ 4 (peak at a/u* ≤ 2) a/u up to 62 suffices: s ∈ [ln(a/ln 2) − 4.5, ln(a/ln 2)).
inline constexpr int trap_window_small = 72;
inline constexpr double trap_small_a = 4;
inline constexpr int trap_terms = 20;  ///< Taylor terms of the right tail: (ln 2)^20/20! < 1e-20
inline constexpr double trap_y_right = 0.69314718055994531;  ///< ln 2
/// Tail coefficient sets a node: D0 D1 D2 (direct form), H0 H1 H2 and G0 G1 G2 (complement);
/// the digit is the order of the ν-derivative folded in.
inline constexpr int trap_sets = 9;
inline constexpr int trap_d0 = 0, trap_h0 = 3, trap_g0 = 6;

struct alignas(16) trap_node {
  double r, P;
};

/// Device- or host-resident view of a table (indices are grid indices j).
struct trap_view {
  const trap_node* node = nullptr;  ///< node[j − node_first]
  const double* Q = nullptr;        ///< Q[j − node_first]
  const double* prefix = nullptr;   ///< prefix[m nodes + j − node_first]
  const double* tail = nullptr;     ///< tail[(set trap_terms + k) tails + j − tail_first]
  int node_first = 0, tail_first = 0, nodes = 0, tails = 0;
};

/// s_j = j/16, exact.
PMX_MATERN_HD inline double trap_s(int j) { return j * trap_delta; }

/// Index of the first node with a r_j ≤ ln 2 (the start of the Taylor tail), unclamped.
PMX_MATERN_HD inline int trap_right_index(double a) {
  return static_cast<int>(ceil((log(a) - (-0.36651292058166432)) * trap_per_unit));  // ln ln 2
}

/// The grid range a distance reads: explicit nodes [lo, hi), tail at hi when hi ≤ grid_hi.
struct trap_range {
  int lo, hi, right;  ///< right: the tail's node (> trap_grid_hi: no tail)
};
PMX_MATERN_HD inline trap_range trap_range_of(double a) {
  const int right = trap_right_index(a), width = a <= trap_small_a ? trap_window_small : trap_window;
  const int lo = right - width < trap_grid_lo ? trap_grid_lo : right - width;
  return {lo, right > trap_grid_hi + 1 ? trap_grid_hi + 1 : right, right};
}

/// Host storage of one call's table.
struct trap_table {
  std::vector<trap_node> node;
  std::vector<double> Q, prefix, tail;
  int node_first = 0, tail_first = 0;
  trap_view view() const {
    const int nodes = static_cast<int>(node.size());
    return {node.data(), Q.data(), prefix.data(), tail.data(), node_first, tail_first, nodes,
            nodes ? static_cast<int>(tail.size() / (trap_sets * trap_terms)) : 0};
  }
};

/// The table for smoothness ν, covering the distances with a = νh²/(2ρ²) in [a_lo, a_hi]
/// (0 < a_lo ≤ a_hi; each must satisfy trap_applies).
trap_table build_trap_table(double nu, double a_lo, double a_hi);

/// The table for the distances in [h_lo, h_hi] whose a = a_per_h2 h² the route serves
/// (trap_applies); empty (no nodes) when none does.
trap_table build_trap_table_for(double nu, double a_per_h2, double h_lo, double h_hi);
/// The same for the positive finite distances among h[0..n) (host memory).
trap_table build_trap_table_for(double nu, double a_per_h2, const double* h, int64_t n);

}  // namespace pmx::detail
