// The thesis' Table 5.2 case: the Whittle–Matérn covariance C_{1,0.1,1} at the pairwise Euclidean
// distances of N uniform points in [0,1]² (N(N−1)/2 evaluations; N = 20,000 gives 2·10⁸).
//
//   bench_matern [N=20000] [nu=0.1] [cpu_sample=1000000] [threads=1]
//
// One run prints, side by side:
//   cpu, per core (`threads` threads on a sample of `cpu_sample` of the distances):
//     quadrature C; quadrature C + dC/dν + d²C/dν²; Boost cyl_bessel_k C; Boost C with 5-point
//     finite differences in ν (what a user would write) — and the ratios Boost/quadrature;
//   the error of each against the quadrature on that sample (max relative; the quadrature's own
//     error against Arb is what tests/stats/matern/test_matern_accuracy shows: ≤ 5e-15 for C);
//   cuda (when a device is visible): all N(N−1)/2 distances resident on the device, C alone and
//     C with both ν-derivatives, at δ = 1/256 (stride 1) and the thesis' δ = 1/64 (stride 4),
//     kernel wall time only (the distances are made and kept on the device).
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

  // CPU on a random sample of the pairs.
  const int64_t m = std::min(sample, pairs);
  std::vector<double> h(m);
  std::uniform_int_distribution<int64_t> pick(0, N - 1);
  for (auto& v : h) {
    int64_t i = pick(rng), j = pick(rng);
    while (j == i) j = pick(rng);
    v = std::hypot(x[i] - x[j], y[i] - y[j]);
  }
  const executor cpu(backend::cpu, threads);
  std::vector<double> qc(m), q1(m), q2(m), bc(m), b1(m), b2(m), tmp(m);
  const double t_qc = seconds_of([&] { matern_covariance(cpu, p, matern_method::quadrature, h.data(), m, {.C = qc.data()}); });
  const double t_qd = seconds_of([&] {
    matern_covariance(cpu, p, matern_method::quadrature, h.data(), m, {.C = tmp.data(), .dnu = q1.data(), .d2nu = q2.data()});
  });
  const double t_bc = seconds_of([&] { matern_covariance(cpu, p, matern_method::bessel, h.data(), m, {.C = bc.data()}); });
  const double t_bd = seconds_of([&] {
    matern_covariance(cpu, p, matern_method::bessel, h.data(), m, {.C = tmp.data(), .dnu = b1.data(), .d2nu = b2.data()});
  });
  std::vector<double> s4c(m), s41(m), s42(m);
  const double t_s4 = seconds_of([&] {
    matern_covariance(cpu, p, matern_method::quadrature, h.data(), m, {.C = s4c.data(), .dnu = s41.data(), .d2nu = s42.data()}, 4);
  });
  const double per = 1e9 / double(m) * threads;  // ns per evaluation per core
  std::printf("cpu (%d thread%s, %lld sampled distances), ns per evaluation per core:\n", threads, threads > 1 ? "s" : "",
              static_cast<long long>(m));
  std::printf("  quadrature C               %8.1f\n", t_qc * per);
  std::printf("  quadrature C + dnu + d2nu  %8.1f\n", t_qd * per);
  std::printf("  Boost bessel C             %8.1f   (Boost / quadrature: %.2f)\n", t_bc * per, t_bc / t_qc);
  std::printf("  Boost C + 5-point FD in nu %8.1f   (Boost / quadrature: %.2f)\n", t_bd * per, t_bd / t_qd);
  std::printf("  quadrature delta = 1/64 (every 4th node), C + dnu + d2nu %8.1f   (Boost+FD / this: %.2f); max rel. vs "
              "delta = 1/256: C %.2e, dnu %.2e, d2nu %.2e\n",
              t_s4 * per, t_bd / t_s4, max_rel(s4c, tmp.size() ? qc : qc), max_rel(s41, q1), max_rel(s42, q2));
  std::printf("  projected cpu time for all %lld evaluations on one core: quadrature C %.1f s, with derivatives %.1f s\n",
              static_cast<long long>(pairs), t_qc * threads * double(pairs) / double(m),
              t_qd * threads * double(pairs) / double(m));
  std::printf("differences on the sample (max relative): Boost C vs quadrature %.2e; FD dC/dnu %.2e; FD d2C/dnu2 %.2e\n",
              max_rel(bc, qc), max_rel(b1, q1), max_rel(b2, q2));

#ifdef PMX_HAVE_CUDA
  if (!cuda_available()) {
    std::printf("cuda: no device visible\n");
    return 0;
  }
  // All pairs on the device (row-major upper triangle, i < j), made on the host in pieces.
  double *d_h = nullptr, *d_c = nullptr, *d_1 = nullptr, *d_2 = nullptr;
  const size_t bytes = static_cast<size_t>(pairs) * sizeof(double);
  if (cudaMalloc(&d_h, bytes) || cudaMalloc(&d_c, bytes) || cudaMalloc(&d_1, bytes) || cudaMalloc(&d_2, bytes)) {
    std::printf("cuda: cannot allocate 4 x %.1f GB\n", bytes / 1e9);
    return 1;
  }
  {
    std::vector<double> row;
    int64_t at = 0;
    for (int64_t i = 0; i < N; ++i) {
      row.clear();
      for (int64_t j = i + 1; j < N; ++j) row.push_back(std::hypot(x[i] - x[j], y[i] - y[j]));
      cudaMemcpy(d_h + at, row.data(), row.size() * sizeof(double), cudaMemcpyHostToDevice);
      at += static_cast<int64_t>(row.size());
    }
  }
  const executor gpu(backend::cuda);
  matern_covariance(gpu, p, matern_method::quadrature, d_h, 1024, {.C = d_c});  // warm-up: context, table
  for (int stride : {1, 4}) {
    const double tc = seconds_of([&] { matern_covariance(gpu, p, matern_method::quadrature, d_h, pairs, {.C = d_c}, stride); });
    const double td = seconds_of([&] {
      matern_covariance(gpu, p, matern_method::quadrature, d_h, pairs, {.C = d_c, .dnu = d_1, .d2nu = d_2}, stride);
    });
    // Check a sample of the device values against the cpu quadrature at stride 1.
    std::vector<double> hh(4096), cc(4096), want(4096), w1(4096), g1(4096);
    cudaMemcpy(hh.data(), d_h, hh.size() * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(cc.data(), d_c, cc.size() * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(g1.data(), d_1, g1.size() * 8, cudaMemcpyDeviceToHost);
    matern_covariance(cpu, p, matern_method::quadrature, hh.data(), 4096, {.C = want.data(), .dnu = w1.data()});
    std::printf("cuda, delta = 1/%d: C %.4f s, C + dnu + d2nu %.4f s (%.2e and %.2e evaluations/s); max rel. vs cpu (4096): "
                "C %.2e, dnu %.2e\n",
                256 / stride, tc, td, pairs / tc, pairs / td, max_rel(cc, want), max_rel(g1, w1));
  }
  cudaFree(d_h), cudaFree(d_c), cudaFree(d_1), cudaFree(d_2);
#endif
  return 0;
}
