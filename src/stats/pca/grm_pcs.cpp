// Top eigenpairs of a dense GRM behind a shifted_operand (grm_pcs.hpp): Chebyshev-filtered block
// subspace iteration with Rayleigh–Ritz after every step, the scheme of `pca`'s randomized path
// with the dense product G·X in place of the genotype operator.
#include "panoramix/grm_pcs.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "subspace_iteration.hpp"

namespace pmx {

grm_pcs_result grm_top_eigenpairs(const shifted_operand& G, const grm_pcs_options& opt, progress_sink* progress) {
  const int64_t n = G.n(), m = opt.pcs;
  if (m < 1) throw input_error("--pcs must be at least 1 (got " + std::to_string(m) + ")");
  if (m > n)
    throw input_error("--pcs " + std::to_string(m) + " exceeds the number of samples (" + std::to_string(n) + ")");
  if (!(opt.tolerance > 0)) throw input_error("the PC tolerance must be positive");
  if (opt.max_iterations < 1) throw input_error("the PC iteration limit must be at least 1");
  if (opt.oversample < 0) throw input_error("the PC oversampling must not be negative");
  const int64_t l = std::min(n, m + opt.oversample);
  const executor host = G.exec().host();  // the n × l algebra stays on the host
  grm_pcs_result res;
  res.n = n, res.pcs = m;
  auto apply = [&](const double* X, double* Y) {
    shifted_multiply(G, 1.0, 0.0, l, X, n, Y, n);
    ++res.products;
  };

  detail::subspace_iteration_options so;
  so.n = n, so.block = l, so.wanted = m, so.tolerance = opt.tolerance, so.max_iterations = opt.max_iterations;
  so.seed = opt.seed, so.progress_stage = "principal components of G";
  auto it = detail::top_eigenpairs(host, so, apply, progress);
  res.values = std::move(it.values), res.vectors = std::move(it.vectors);
  res.iterations = it.iterations, res.max_residual = it.max_residual, res.converged = it.converged;
  return res;
}

}  // namespace pmx
