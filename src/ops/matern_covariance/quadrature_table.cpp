// The exp-sinh node table of the Matérn quadrature, by the thesis' truncation rule (the header
// says what is stored and why).
#include "ops/matern_covariance/quadrature_table.hpp"

#include <cfloat>
#include <cmath>
#include <memory>
#include <string>

#include "panoramix/error.hpp"

namespace pmx::detail {
namespace {

constexpr long double half_pi = 1.570796326794896619231321691639751442L;

long double psi(long double t) { return std::exp(half_pi * std::sinh(t)); }
long double psi_prime(long double t) { return half_pi * std::cosh(t) * psi(t); }

std::unique_ptr<matern_table> build() {
  const long double delta = 1.0L / 256, eps = DBL_EPSILON, big = DBL_MAX;
  int n1 = 0, n2 = 0;
  while (!(psi(-(n1 + 1) * delta) < eps || psi_prime(-(n1 + 1) * delta) < eps)) ++n1;
  while (!(psi((n2 + 1) * delta) > big || psi_prime((n2 + 1) * delta) > big)) ++n2;
  if (n1 != matern_origin || n1 + n2 + 1 != matern_nodes)
    throw logic_error("Matérn quadrature table: the truncation rule gave n1 = " + std::to_string(n1) +
                      ", n2 = " + std::to_string(n2) + " (expected 979, 1740)");
  auto t = std::make_unique<matern_table>();
  for (int i = 0; i < matern_nodes; ++i) {
    const long double u = (i - matern_origin) * delta;
    const long double s = half_pi * std::sinh(u);
    const long double x = std::exp(s);
    t->s[i] = static_cast<double>(s);
    t->r[i] = static_cast<double>(1 / x);
    t->q[i] = static_cast<double>(std::log(delta * half_pi * std::cosh(u)) - x);
  }
  return t;
}

}  // namespace

const matern_table& matern_quadrature_table() {
  static const std::unique_ptr<matern_table> table = build();
  return *table;
}

}  // namespace pmx::detail
