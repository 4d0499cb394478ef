// Preconditioned conjugate gradients (Hestenes & Stiefel; Saad, Iterative Methods, Alg. 9.1).
// Reductions are split into fixed chunks summed in order, so results do not depend on threads.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "panoramix/error.hpp"
#include "panoramix/single_step_pcg.hpp"

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

}  // namespace

pcg_result pcg_solve(int64_t N, const pcg_operator& apply, const pcg_operator& precondition,
                     const double* b, double* x, double tol, int64_t max_iterations, int threads,
                     progress_sink* progress, const pcg_observer& observe) {
  PMX_EXPECTS(N >= 0 && tol > 0 && max_iterations >= 0, "valid sizes and tolerance");
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  pcg_result res;
  std::vector<double> r(N), z(N), p(N), q(N), part;
  part.reserve((N + chunk - 1) / chunk);
  const double bb = dot(N, b, b, part, nt);
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
  precondition(r.data(), z.data());
  std::copy(z.begin(), z.end(), p.begin());
  double rz = dot(N, r.data(), z.data(), part, nt);
  const double log_start = std::log(std::max(rr / bb, tol));
  int64_t it = 0;
  while (rr / bb >= tol && it < max_iterations) {
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
    const double beta = rz_new / rz;
    rz = rz_new;
#pragma omp parallel for num_threads(nt) schedule(static) if (N >= parallel_length)
    for (int64_t i = 0; i < N; ++i) p[i] = z[i] + beta * p[i];
    ++it;
    res.history.push_back({it, rr / bb, seconds()});
    if (observe) observe(res.history.back());
    // Progress: how far log(‖r‖²/‖b‖²) has come towards log(tol).
    if (progress && log_start > std::log(tol))
      report(progress, "PCG",
             std::clamp((log_start - std::log(std::max(rr / bb, tol))) / (log_start - std::log(tol)),
                        0.0, 1.0));
  }
  res.iterations = it;
  res.converged = rr / bb < tol;
  apply(x, q.data());
#pragma omp parallel for num_threads(nt) schedule(static) if (N >= parallel_length)
  for (int64_t i = 0; i < N; ++i) r[i] = b[i] - q[i];
  res.true_relative_residual = dot(N, r.data(), r.data(), part, nt) / bb;
  return res;
}

}  // namespace pmx
