// Preconditioned conjugate gradients (Hestenes & Stiefel; Saad, Iterative Methods, Alg. 9.1).
// The vector algebra is the solver_vectors op (dot products over fixed chunks summed in order, so
// results do not depend on threads), on the host or with every vector on a GPU.
// The error estimate uses the Lanczos tridiagonal matrix hidden in PCG's coefficients (Saad §6.7.3;
// Golub & Van Loan §11.3): T_jj = 1/α_j + β_{j−1}/α_{j−1}, T_j,j+1 = √β_j/α_j, whose extreme
// eigenvalues (LAPACK dstebz, O(k) each) estimate those of M⁻¹C.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/solver_vectors.hpp"
#include "panoramix/single_step_pcg.hpp"

extern "C" void dstebz_(const char* range, const char* order, const int* n, const double* vl, const double* vu,
                        const int* il, const int* iu, const double* abstol, const double* d, const double* e, int* m,
                        int* nsplit, double* w, int* iblock, int* isplit, double* work, int* iwork, int* info,
                        size_t range_len, size_t order_len);

namespace pmx {
namespace {

// Lanczos tridiagonal matrix of PCG: its extreme eigenvalues (Ritz values) estimate those of M⁻¹C.
class lanczos_spectrum {
 public:
  void add(double alpha, double beta_before) {
    d_.push_back(1 / alpha + (d_.empty() ? 0.0 : beta_before / last_alpha_));
    if (d_.size() > 1) e_.push_back(std::sqrt(beta_before) / last_alpha_);
    last_alpha_ = alpha;
  }
  /// λ_max / λ_min of the tridiagonal matrix so far (0 when empty).
  double condition() const {
    const int n = static_cast<int>(d_.size());
    if (n == 0) return 0;
    const double lo = extreme(1), hi = extreme(n);
    return lo > 0 ? hi / lo : std::numeric_limits<double>::infinity();
  }

 private:
  std::vector<double> d_, e_;
  double last_alpha_ = 0;
  double extreme(int which) const {
    const int n = static_cast<int>(d_.size());
    int m = 0, nsplit = 0, info = 0;
    const double zero = 0, abstol = 0;
    double w[1];
    std::vector<int> iblock(n), isplit(n), iwork(3 * n);
    std::vector<double> work(4 * n);
    dstebz_("I", "E", &n, &zero, &zero, &which, &which, &abstol, d_.data(), e_.data(), &m, &nsplit, w, iblock.data(),
            isplit.data(), work.data(), iwork.data(), &info, 1, 1);
    if (info != 0 || m != 1) throw numeric_error("PCG: tridiagonal eigenvalue (dstebz) failed, info " + std::to_string(info));
    return w[0];
  }
};

}  // namespace

pcg_result pcg_solve(int64_t N, const pcg_operator& apply, const pcg_operator& precondition,
                     const double* b, double* x, const pcg_stopping& stop, int threads,
                     progress_sink* progress, const pcg_observer& observe) {
  return pcg_solve(executor(backend::cpu, threads), N, apply, precondition, b, x, stop, progress, observe);
}

pcg_result pcg_solve(const executor& exec, int64_t N, const pcg_operator& apply, const pcg_operator& precondition,
                     const double* b_host, double* x_host, const pcg_stopping& stop, progress_sink* progress,
                     const pcg_observer& observe) {
  const double tol = stop.residual;
  const int64_t max_iterations = stop.max_iterations;
  PMX_EXPECTS(N >= 0 && tol > 0 && stop.solution >= 0 && max_iterations >= 0, "valid sizes and tolerances");
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  pcg_result res;
  const double bb_host = dot(executor(backend::cpu, exec.threads()), N, b_host, b_host);
  if (!std::isfinite(bb_host)) throw numeric_error("PCG: the right-hand side holds a non-finite value (or overflows)");
  if (bb_host == 0) {
    std::fill(x_host, x_host + N, 0.0);
    res.converged = true;
    res.history.push_back({0, 0.0, seconds()});
    return res;
  }
  // The vectors in the executor's memory; b and x are copied there unless it is the host's.
  const size_t n = static_cast<size_t>(N);
  executor_array<double> r(exec, n), z(exec, n), p(exec, n), q(exec, n), b_dev, x_dev;
  const double* b = b_host;
  double* x = x_host;
  if (r.on_device()) {
    b_dev = executor_array<double>(exec, n);
    x_dev = executor_array<double>(exec, n);
    b_dev.copy_from_host(b_host, 0, n);
    x_dev.copy_from_host(x_host, 0, n);
    b = b_dev.data();
    x = x_dev.data();
  }
  const double bb = r.on_device() ? dot(exec, N, b, b) : bb_host;
  // r = b − C x
  apply(x, q.data());
  axpby(exec, N, 1, 1.0, b, 1, 0.0, r.data(), 1);
  axpby(exec, N, 1, -1.0, q.data(), 1, 1.0, r.data(), 1);
  double rr = dot(exec, N, r.data(), r.data());
  res.history.push_back({0, rr / bb, seconds()});
  if (observe) observe(res.history.back());
  precondition(b, z.data());  // bᵀM⁻¹b: the scale of the error estimate
  const double bz = dot(exec, N, b, z.data());
  precondition(r.data(), z.data());
  axpby(exec, N, 1, 1.0, z.data(), 1, 0.0, p.data(), 1);
  double rz = dot(exec, N, r.data(), z.data());
  // Stop on the residual, or on the estimated error (κ̂ from the Lanczos matrix so far).
  lanczos_spectrum lanczos;
  double beta = 0;
  const bool on_error = stop.solution > 0;
  auto estimate = [&] { return res.condition_estimate * std::sqrt(std::max(0.0, rz / bz)); };
  auto done = [&] { return on_error ? res.estimated_error <= stop.solution && res.condition_estimate > 0 : rr / bb < tol; };
  // Progress: how far the log of the stopping quantity has come towards the log of its target.
  const double target = on_error ? stop.solution * stop.solution : tol;
  auto measure = [&] {
    return on_error ? (res.condition_estimate > 0 ? res.estimated_error * res.estimated_error : rz / bz) : rr / bb;
  };
  const double log_start = std::log(std::max(measure(), target));
  int64_t it = 0;
  while (!done() && it < max_iterations) {
    apply(p.data(), q.data());
    const double pq = dot(exec, N, p.data(), q.data());
    if (!(pq > 0))
      throw numeric_error("PCG: the mixed model equations are not positive definite (pᵀCp = " +
                          std::to_string(pq) + " at iteration " + std::to_string(it + 1) + ")");
    const double alpha = rz / pq;
    pcg_update(exec, N, alpha, p.data(), q.data(), x, r.data());
    precondition(r.data(), z.data());
    const double rz_new = dot(exec, N, r.data(), z.data());
    rr = dot(exec, N, r.data(), r.data());
    // A NaN never meets the stopping rule: without this PCG would run to max_iterations on it.
    if (!std::isfinite(rr) || !std::isfinite(rz_new))
      throw numeric_error("PCG: the residual became non-finite at iteration " + std::to_string(it + 1) +
                          " (a NaN or infinity in the equations or the preconditioner)");
    lanczos.add(alpha, beta);
    beta = rz_new / rz;
    rz = rz_new;
    if (on_error) {
      res.condition_estimate = lanczos.condition();
      res.estimated_error = estimate();
    }
    axpby(exec, N, 1, 1.0, z.data(), 1, beta, p.data(), 1);
    ++it;
    res.history.push_back({it, rr / bb, seconds()});
    if (observe) observe(res.history.back());
    if (progress && log_start > std::log(target))
      report(progress, "PCG",
             std::clamp((log_start - std::log(std::max(measure(), target))) / (log_start - std::log(target)),
                        0.0, 1.0));
  }
  res.iterations = it;
  if (!on_error && it > 0) {
    res.condition_estimate = lanczos.condition();
    res.estimated_error = estimate();
  }
  res.converged = done();
  apply(x, q.data());
  axpby(exec, N, 1, 1.0, b, 1, 0.0, r.data(), 1);
  axpby(exec, N, 1, -1.0, q.data(), 1, 1.0, r.data(), 1);
  res.true_relative_residual = dot(exec, N, r.data(), r.data()) / bb;
  if (x_dev.on_device()) x_dev.copy_to_host(x_host, 0, n);
  return res;
}

}  // namespace pmx
