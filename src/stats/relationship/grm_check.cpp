// A GRM checked (and repaired when asked) before a mixed model uses it (grm_check.hpp).
#include "panoramix/grm_check.hpp"

#include <algorithm>
#include <cmath>

#include "core/checked_number.hpp"
#include "panoramix/error.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/shifted_solve.hpp"

namespace pmx {
namespace {

using detail::number_for_message;

const char* const repair_hint =
    "; a GRM must be a covariance matrix. Rebuild it, or ask for a repair: --grm-add-diagonal X "
    "(adds X to the diagonal) or --grm-bend (raises the eigenvalues below 1e-4 x their mean)";

double mean_diagonal(int64_t n, const double* G) {
  long double s = 0;
  for (int64_t i = 0; i < n; ++i) s += G[i * n + i];
  return static_cast<double>(s / n);
}

// G ← U max(Λ, floor) s Uᵀ with s keeping the trace; returns the log line.
std::string bend(const executor& exec, int64_t n, double* G) {
  matrix_buffer<double> work(static_cast<size_t>(n * n)), U(static_cast<size_t>(n * n));
  std::copy(G, G + n * n, work.data());
  std::vector<double> lambda(static_cast<size_t>(n));
  symmetric_eigen(exec, n, work.data(), n, n, lambda.data(), U.data(), n);
  long double trace = 0;
  for (double l : lambda) trace += l;
  const double mean = static_cast<double>(trace / n);
  if (!(mean > 0))
    throw input_error("--grm-bend: the mean eigenvalue of G is " + number_for_message(mean) +
                      " (not positive): nothing to bend towards");
  const double floor = grm_bend_floor * mean;
  const double smallest = lambda.back();  // descending order
  int64_t raised = 0;
  long double bent_trace = 0;
  for (double& l : lambda) {
    if (l < floor) l = floor, ++raised;
    bent_trace += l;
  }
  if (raised == 0)
    return "--grm-bend: no eigenvalue of G is below " + number_for_message(floor) +
           " (1e-4 x the mean eigenvalue): G unchanged";
  const double scale = static_cast<double>(trace / bent_trace);
  // W = U diag(λ s), G' = W Uᵀ (column-major n × n; G is symmetric, so row-major is the same).
  for (int64_t c = 0; c < n; ++c)
    for (int64_t i = 0; i < n; ++i) work[c * n + i] = U[c * n + i] * lambda[c] * scale;
  matrix_buffer<double> bent(static_cast<size_t>(n * n));
  dense_gemm(exec.host(), false, true, n, n, n, 1.0, work.data(), n, U.data(), n, 0.0, bent.data(), n);
  double change = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      const double v = 0.5 * (bent[i * n + j] + bent[j * n + i]);
      change = std::max(change, std::fabs(v - G[i * n + j]));
      G[i * n + j] = G[j * n + i] = v;
    }
  return "--grm-bend: " + std::to_string(raised) + " of " + std::to_string(n) + " eigenvalues of G below " +
         number_for_message(floor) + " (1e-4 x the mean eigenvalue; the smallest was " + number_for_message(smallest) +
         ") raised to it, then all scaled by " +
         number_for_message(scale) + " to keep the trace; largest change of an entry " + number_for_message(change);
}

}  // namespace

std::vector<std::string> check_grm_for_model(const executor& exec, int64_t n, double* G,
                                             const std::vector<std::string>& fid,
                                             const std::vector<std::string>& iid,
                                             const grm_repair_options& repair, const std::string& source,
                                             grm_indefinite indefinite) {
  std::vector<std::string> notes;
  if (n == 0) return notes;
  if (repair.bend && repair.add_diagonal)
    throw input_error("give at most one of --grm-bend and --grm-add-diagonal");
  if (repair.add_diagonal)
    detail::require_number(*repair.add_diagonal, "--grm-add-diagonal", detail::number_range::above(0));
  bool all_zero = true;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      const double v = G[i * n + j];
      if (!std::isfinite(v))
        throw input_error(source + ": entry (row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1) +
                          ") is " + number_for_message(v) + " (sample '" + fid[i] + " " + iid[i] +
                          "'): a GRM must hold finite numbers");
      all_zero = all_zero && v == 0;
    }
  if (all_zero)
    throw input_error(source + ": every entry of the " + std::to_string(n) + " x " + std::to_string(n) +
                      " GRM is 0: it carries no relationship to fit");
  if (repair.add_diagonal) {
    for (int64_t i = 0; i < n; ++i) G[i * n + i] += *repair.add_diagonal;
    notes.push_back("--grm-add-diagonal: " + number_for_message(*repair.add_diagonal) + " added to each of the " +
                    std::to_string(n) + " diagonal entries of G");
  }
  if (repair.bend) notes.push_back(bend(exec, n, G));
  const double md = mean_diagonal(n, G);
  const std::string repaired = repair.bend || repair.add_diagonal ? " (after the repair asked for)" : "";
  if (!(md > 0))
    throw input_error(source + ": G" + repaired + " is not positive semi-definite: the mean of its diagonal is " +
                      number_for_message(md) + repair_hint);
  const double delta = grm_psd_tolerance * md;
  try {
    const shifted_operand op(exec, n, G, n);
    shifted_cholesky_solve(op, 1.0, delta, 0, nullptr, n);
  } catch (const numeric_error& e) {
    std::string smallest;
    if (n <= 4000) {  // the smallest eigenvalue, where it costs seconds at most
      matrix_buffer<double> work(static_cast<size_t>(n * n));
      std::copy(G, G + n * n, work.data());
      std::vector<double> lambda(static_cast<size_t>(n));
      symmetric_eigen(exec, n, work.data(), n, n, lambda.data(), nullptr, n);
      smallest = "its smallest eigenvalue is " + number_for_message(lambda.back()) + " (largest " +
                 number_for_message(lambda.front()) + "); ";
    }
    const std::string what = source + ": G" + repaired + " is not positive semi-definite: " + smallest + "G + " +
                             number_for_message(delta) + " I (1e-6 x the mean diagonal) has no Cholesky factor (" +
                             e.what() + ")";
    if (indefinite == grm_indefinite::refuse) throw input_error(what + repair_hint);
    notes.push_back("Note: " + what +
                    ". REML keeps h2 G + (1-h2) I positive definite by bounding h2 below 1/(1 - smallest "
                    "eigenvalue); --method vanraden gives a positive semi-definite G, --grm-bend or "
                    "--grm-add-diagonal X repair this one");
  }
  return notes;
}

}  // namespace pmx
