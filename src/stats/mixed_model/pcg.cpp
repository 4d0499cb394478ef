// Preconditioned conjugate gradients (Hestenes & Stiefel; Saad, Iterative Methods, Alg. 9.1).
// Reductions are split into fixed chunks summed in order, so results do not depend on threads.
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
#include "panoramix/single_step_pcg.hpp"

extern "C" void dstebz_(const char* range, const char* order, const int* n, const double* vl, const double* vu,
                        const int* il, const int* iu, const double* abstol, const double* d, const double* e, int* m,
                        int* nsplit, double* w, int* iblock, int* isplit, double* work, int* iwork, int* info,
                        size_t range_len, size_t order_len);

namespace pmx {
namespace {

constexpr int64_t chunk = 4096;
// Vector updates below this length run on one thread: a parallel region costs microseconds on an
// idle machine but up to a scheduler time slice (milliseconds) when the cores are shared, far
// more than updating a few hundred kilobytes.
constexpr int64_t parallel_length = 1 << 16;

// Σ a_i b_i over fixed chunks added in chunk order (thread-count independent).
double dot(int64_t n, const double* a, const double* b, std::vector<double>& part, int threads) {
  const int64_t chunks = (n + chunk - 1) / chunk;
  part.assign(chunks, 0.0);
#pragma omp parallel for num_threads(threads) schedule(static) if (n >= parallel_length)
  for (int64_t c = 0; c < chunks; ++c) {
    double s = 0;
    const int64_t end = std::min(n, (c + 1) * chunk);
    for (int64_t i = c * chunk; i < end; ++i) s += a[i] * b[i];
    part[c] = s;
  }
  double s = 0;
  for (double v : part) s += v;
  return s;
}

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
  const double tol = stop.residual;
  const int64_t max_iterations = stop.max_iterations;
  PMX_EXPECTS(N >= 0 && tol > 0 && stop.solution >= 0 && max_iterations >= 0, "valid sizes and tolerances");
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  pcg_result res;
  std::vector<double> r(N), z(N), p(N), q(N), part;
  part.reserve((N + chunk - 1) / chunk);
  const double bb = dot(N, b, b, part, nt);
  if (!std::isfinite(bb)) throw numeric_error("PCG: the right-hand side holds a non-finite value (or overflows)");
  if (bb == 0) {
    std::fill(x, x + N, 0.0);
    res.converged = true;
    res.history.push_back({0, 0.0, seconds()});
    return res;
  }
  // r = b − C x
  apply(x, q.data());
#pragma omp parallel for num_threads(nt) schedule(static) if (N >= parallel_length)
  for (int64_t i = 0; i < N; ++i) r[i] = b[i] - q[i];
  double rr = dot(N, r.data(), r.data(), part, nt);
  res.history.push_back({0, rr / bb, seconds()});
  if (observe) observe(res.history.back());
  precondition(b, z.data());  // bᵀM⁻¹b: the scale of the error estimate
  const double bz = dot(N, b, z.data(), part, nt);
  precondition(r.data(), z.data());
  std::copy(z.begin(), z.end(), p.begin());
  double rz = dot(N, r.data(), z.data(), part, nt);
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
    const double pq = dot(N, p.data(), q.data(), part, nt);
    if (!(pq > 0))
      throw numeric_error("PCG: the mixed model equations are not positive definite (pᵀCp = " +
                          std::to_string(pq) + " at iteration " + std::to_string(it + 1) + ")");
    const double alpha = rz / pq;
#pragma omp parallel for num_threads(nt) schedule(static) if (N >= parallel_length)
    for (int64_t i = 0; i < N; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    precondition(r.data(), z.data());
    const double rz_new = dot(N, r.data(), z.data(), part, nt);
    rr = dot(N, r.data(), r.data(), part, nt);
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
#pragma omp parallel for num_threads(nt) schedule(static) if (N >= parallel_length)
    for (int64_t i = 0; i < N; ++i) p[i] = z[i] + beta * p[i];
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
#pragma omp parallel for num_threads(nt) schedule(static) if (N >= parallel_length)
  for (int64_t i = 0; i < N; ++i) r[i] = b[i] - q[i];
  res.true_relative_residual = dot(N, r.data(), r.data(), part, nt) / bb;
  return res;
}

}  // namespace pmx
