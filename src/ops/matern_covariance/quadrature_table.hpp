// The fixed exp-sinh node table of the Matérn quadrature (thesis §5.2).
//
// Nodes x_l = ψ(lδ), weights w_l = δ ψ′(lδ), ψ(t) = exp(π/2 · sinh t), δ = 1/256, for
// l = −n1 … n2 with the thesis' rule for doubles: n1 the least n with ψ(−(n+1)δ) or ψ′(−(n+1)δ)
// below the machine epsilon 2^−52, n2 the least n with ψ((n+1)δ) or ψ′((n+1)δ) above the largest
// double. That gives n1 = 979, n2 = 1740: 2,720 nodes (the thesis' count).
//
// Stored for the log-form integrand (why: the integrand's factors overflow and underflow far
// apart, their logarithms do not), three doubles per node, 65,280 bytes (fits the 64 KiB of CUDA
// constant memory):
//   s_l = ln x_l = π/2 · sinh(lδ)      r_l = 1/x_l      q_l = ln(δ π/2 cosh(lδ)) − x_l
// so that the weighted direct integrand is f(x_l) w_l = exp(ν s_l − a r_l + q_l) (w_l = x_l ·
// δ π/2 cosh(lδ) folds one power of x_l in). Built once in long double, rounded to double.
#pragma once
#include <cstdint>

namespace pmx::detail {

inline constexpr int matern_nodes = 2720;
inline constexpr int matern_origin = 979;      ///< index of t = 0 (l = 0)
inline constexpr double matern_delta = 1.0 / 256;

struct matern_table {
  double s[matern_nodes];
  double r[matern_nodes];
  double q[matern_nodes];
};

/// The table (built on first use, thread-safe). Throws logic_error if the truncation rule does
/// not give the sizes above (a changed libm would show here, not as wrong numbers).
const matern_table& matern_quadrature_table();

}  // namespace pmx::detail
