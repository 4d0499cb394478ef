// The thesis' Table 5.2 case: the Whittle–Matérn covariance C_{1,0.1,1} at the pairwise Euclidean
// distances of N uniform points in [0,1]² (N(N−1)/2 evaluations; N = 20,000 gives 2·10⁸).
//
//   bench_matern [N=20000] [nu=0.1] [cpu_sample=1000000] [threads=1]
//
// One run prints, side by side:
//   cpu, per core (`threads` threads on a sample of `cpu_sample` of the distances; 0 skips it):
//     each route for C alone and for C + dC/dν + d²C/dν² — quadrature (the exp-sinh reference),
//     trapezoid, Boost cyl_bessel_k (with 5-point finite differences in ν: what a user would
//     write), the host-device closed form that the cuda `bessel` route runs (C only) — the ratios
//     against Boost, and each one's largest relative difference from the quadrature on the sample
//     (the routes' own errors against Arb are what tests/stats/matern/test_matern_accuracy shows);
//   cuda (when a device is visible): all N(N−1)/2 distances resident on the device, each route
//     for C and for C with both ν-derivatives (best of 3 calls, one for calls above 0.5 s; a call's whole time, its per-call
//     table included), evaluations/s, the targets (≤ 0.1 s for C, ≤ 0.2 s with the
//     ν-derivatives, on one H200) met or not, and each route's largest relative difference from the
//     cpu on 65,536 distances spread over the whole array.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "ops/matern_covariance/bessel_k.hpp"
#include "panoramix/ops/matern_covariance.hpp"

using namespace pmx;

namespace {
double seconds_of(const auto& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (b[i] != 0) m = std::max(m, std::fabs(a[i] - b[i]) / std::fabs(b[i]));
  return m;
}

// C and, with `deriv`, both ν-derivatives of one route at h (host memory).
struct values {
  std::vector<double> C, d1, d2;
  explicit values(size_t n) : C(n), d1(n), d2(n) {}
  matern_outputs out(bool deriv) { return deriv ? matern_outputs{.C = C.data(), .dnu = d1.data(), .d2nu = d2.data()} : matern_outputs{.C = C.data()}; }
};

void cpu_part(const matern_params& p, const std::vector<double>& h, int threads, int64_t pairs) {
  const int64_t m = static_cast<int64_t>(h.size());
  const executor cpu(backend::cpu, threads);
  const double per = 1e6 / double(m) * threads;  // µs per evaluation per core
  values q(h.size()), t(h.size()), b(h.size()), s4(h.size()), tc(h.size()), bc(h.size()), qc(h.size());
  auto run = [&](matern_method meth, values& v, bool deriv, int stride = 1) {
    return seconds_of([&] { matern_covariance(cpu, p, meth, h.data(), m, v.out(deriv), stride); }) * per;
  };
  const double q_c = run(matern_method::quadrature, qc, false), q_d = run(matern_method::quadrature, q, true);
  const double t_c = run(matern_method::trapezoid, tc, false), t_d = run(matern_method::trapezoid, t, true);
  const double b_c = run(matern_method::bessel, bc, false), b_d = run(matern_method::bessel, b, true);
  const double s4_d = run(matern_method::quadrature, s4, true, 4);
  std::vector<double> hd(h.size());
  const detail::bessel_consts k = detail::make_bessel_consts(p.sigma2, p.rho, p.nu);
  const double hd_c = seconds_of([&] {
                        for (int64_t i = 0; i < m; ++i) hd[i] = detail::matern_bessel_k_point(k, h[i]).C;
                      }) * 1e6 / double(m);
  std::printf("cpu (%d thread%s, %lld sampled distances), us per evaluation per core; max rel. difference from the "
              "quadrature on the sample (C, dC/dnu, d2C/dnu2):\n",
              threads, threads > 1 ? "s" : "", static_cast<long long>(m));
  std::printf("  quadrature C                       %7.3f\n", q_c);
  std::printf("  quadrature C + dnu + d2nu          %7.3f\n", q_d);
  std::printf("  trapezoid C                        %7.3f   Boost C / this %5.2f   %.1e\n", t_c, b_c / t_c,
              max_rel(tc.C, qc.C));
  std::printf("  trapezoid C + dnu + d2nu           %7.3f   Boost+FD / this %5.2f  %.1e %.1e %.1e\n", t_d, b_d / t_d,
              max_rel(t.C, q.C), max_rel(t.d1, q.d1), max_rel(t.d2, q.d2));
  std::printf("  Boost bessel C                     %7.3f   %.1e\n", b_c, max_rel(bc.C, qc.C));
  std::printf("  Boost C + 5-point FD in nu         %7.3f   %.1e %.1e %.1e   (FD's error)\n", b_d, max_rel(b.C, q.C),
              max_rel(b.d1, q.d1), max_rel(b.d2, q.d2));
  std::printf("  host-device Bessel K C (cuda code) %7.3f   Boost C / this %5.2f   %.1e\n", hd_c, b_c / hd_c,
              max_rel(hd, qc.C));
  std::printf("  quadrature delta = 1/64, C + both  %7.3f   Boost+FD / this %5.2f  %.1e %.1e %.1e\n", s4_d, b_d / s4_d,
              max_rel(s4.C, q.C), max_rel(s4.d1, q.d1), max_rel(s4.d2, q.d2));
  std::printf("  target (issue #21): C + both nu-derivatives >= 2x faster than Boost + FD a core: trapezoid %.2fx (%s)\n",
              b_d / t_d, b_d / t_d >= 2 ? "met" : "NOT met");
  std::printf("  projected one-core time for all %lld evaluations: trapezoid C %.1f s, with derivatives %.1f s\n",
              static_cast<long long>(pairs), t_c * 1e-6 * double(pairs), t_d * 1e-6 * double(pairs));
}

#ifdef PMX_HAVE_CUDA
// All pairs on the device (row-major upper triangle, i < j), made on the host a row at a time.
void cuda_part(const matern_params& p, const std::vector<double>& x, const std::vector<double>& y, int64_t pairs) {
  const int64_t N = static_cast<int64_t>(x.size());
  double *d_h = nullptr, *d_c = nullptr, *d_1 = nullptr, *d_2 = nullptr;
  const size_t bytes = static_cast<size_t>(pairs) * sizeof(double);
  if (cudaMalloc(&d_h, bytes) || cudaMalloc(&d_c, bytes) || cudaMalloc(&d_1, bytes) || cudaMalloc(&d_2, bytes)) {
    std::printf("cuda: cannot allocate 4 x %.1f GB\n", bytes / 1e9);
    return;
  }
  std::vector<double> row;
  for (int64_t i = 0, at = 0; i < N; ++i) {
    row.clear();
    for (int64_t j = i + 1; j < N; ++j) row.push_back(std::hypot(x[i] - x[j], y[i] - y[j]));
    cudaMemcpy(d_h + at, row.data(), row.size() * sizeof(double), cudaMemcpyHostToDevice);
    at += static_cast<int64_t>(row.size());
  }
  // The check sample: 65,536 distances spread over the array, and the cpu values there.
  const int64_t ns = std::min<int64_t>(65536, pairs), step = pairs / ns;
  auto sample = [&](const double* d, std::vector<double>& v) {  // every step-th value
    v.resize(ns);
    cudaMemcpy2D(v.data(), 8, d, static_cast<size_t>(step) * 8, 8, ns, cudaMemcpyDeviceToHost);
  };
  std::vector<double> hs;
  sample(d_h, hs);
  const executor cpu(backend::cpu, 0), gpu(backend::cuda);
  values want(ns), want_t(ns);
  matern_covariance(cpu, p, matern_method::quadrature, hs.data(), ns, want.out(true));
  matern_covariance(cpu, p, matern_method::trapezoid, hs.data(), ns, want_t.out(true));
  matern_covariance(gpu, p, matern_method::quadrature, d_h, 1024, {.C = d_c});  // warm-up: context, table
  std::printf("cuda, all %lld distances on the device (best of 3 calls, 1 above 0.5 s), max rel. difference from the cpu on %lld of "
              "them:\n",
              static_cast<long long>(pairs), static_cast<long long>(ns));
  double best_c = INFINITY, best_d = INFINITY;
  const char *name_c = "", *name_d = "";
  auto time = [&](matern_method meth, bool deriv, int stride) {
    double t = INFINITY;
    for (int r = 0; r < 3 && (r == 0 || t <= 0.5); ++r)  // (one call of the slow ones is enough)
      t = std::min(t, seconds_of([&] {
                     matern_covariance(gpu, p, meth, d_h, pairs,
                                       deriv ? matern_outputs{.C = d_c, .dnu = d_1, .d2nu = d_2} : matern_outputs{.C = d_c},
                                       stride);
                   }));
    std::vector<double> c, g1, g2;
    sample(d_c, c);
    const values& w = meth == matern_method::trapezoid ? want_t : want;
    std::printf("  %-10s %-14s %s %8.4f s  %.2e /s   C %.1e (vs quadrature %.1e)", matern_method_name(meth),
                stride == 4 ? "delta = 1/64" : "", deriv ? "C + dnu + d2nu" : "C alone       ", t, pairs / t,
                max_rel(c, w.C), max_rel(c, want.C));
    if (deriv) {
      sample(d_1, g1), sample(d_2, g2);
      std::printf("  dnu %.1e  d2nu %.1e (vs quadrature %.1e %.1e)", max_rel(g1, w.d1), max_rel(g2, w.d2),
                  max_rel(g1, want.d1), max_rel(g2, want.d2));
    }
    std::printf("\n");
    if (stride == 1 && !deriv && t < best_c) best_c = t, name_c = matern_method_name(meth);
    if (stride == 1 && deriv && t < best_d) best_d = t, name_d = matern_method_name(meth);
  };
  for (int stride : {1, 4}) time(matern_method::quadrature, false, stride), time(matern_method::quadrature, true, stride);
  time(matern_method::trapezoid, false, 1);
  time(matern_method::trapezoid, true, 1);
  time(matern_method::bessel, false, 1);
  std::printf("  target (issue #21, one H200): C <= 0.100 s: %s %.4f s (%s); C + both nu-derivatives <= 0.200 s: %s "
              "%.4f s (%s)\n",
              name_c, best_c, best_c <= 0.1 ? "met" : "NOT met", name_d, best_d, best_d <= 0.2 ? "met" : "NOT met");
  cudaFree(d_h), cudaFree(d_c), cudaFree(d_1), cudaFree(d_2);
}
#endif
}  // namespace

int main(int argc, char** argv) {
  const int64_t N = argc > 1 ? std::atoll(argv[1]) : 20000;
  const double nu = argc > 2 ? std::atof(argv[2]) : 0.1;
  const int64_t sample = argc > 3 ? std::atoll(argv[3]) : 1000000;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 1;
  const int64_t pairs = N * (N - 1) / 2;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> x(N), y(N);
  for (int64_t i = 0; i < N; ++i) x[i] = u(rng), y[i] = u(rng);
  const matern_params p{1.0, 1.0, nu};
  std::printf("Matern C_{1,%g,1} on pairwise distances of N = %lld uniform points in [0,1]^2 (%lld evaluations)\n", nu,
              static_cast<long long>(N), static_cast<long long>(pairs));
  const int64_t m = std::min(sample, pairs);
  if (m > 0) {
    std::vector<double> h(m);
    std::uniform_int_distribution<int64_t> pick(0, N - 1);
    for (auto& v : h) {
      int64_t i = pick(rng), j = pick(rng);
      while (j == i) j = pick(rng);
      v = std::hypot(x[i] - x[j], y[i] - y[j]);
    }
    cpu_part(p, h, threads, pairs);
  }
#ifdef PMX_HAVE_CUDA
  if (!cuda_available()) {
    std::printf("cuda: no device visible\n");
    return 0;
  }
  cuda_part(p, x, y, pairs);
#else
  std::printf("cuda: not compiled in\n");
#endif
  return 0;
}
