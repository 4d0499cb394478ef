// KRR Build on one GPU: the Gaussian kernel K (n × n, FP64, device memory) of n samples × m
// variants without missing calls, from the 2-bit calls. sample_sums keeps the exact integer
// S = X Xᵀ on the device (binary tensor cores) across variant blocks; finish_gaussian_kernel turns
// it into K_ij = exp(−γ (S_ii + S_jj − 2 S_ij)) there. Nothing n × n crosses to the host.
// Prints the stages, the rate in genotype pairs × variants per second (n²m/2 / time), and the
// largest relative error of 2,000 random entries against the definition computed on the host.
//   bench_krr_build [--n 65536] [--m 50000] [--gamma G] [--reps 3] [--block 16384]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "panoramix/executor_array.hpp"
#include "panoramix/ops/sample_sums.hpp"
#include "panoramix/packed_genotypes.hpp"

using namespace pmx;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int dosage(const packed_genotypes& g, int64_t i, int64_t l) {
  const uint8_t c = g.view().code(i, l);  // .bed: 00 hom A1 (2), 10 het (1), 11 hom A2 (0); no 01 here
  return c == 0 ? 2 : c == 2 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 65536, m = 50000, block = 16384;
  int reps = 3;
  double gamma = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--n") n = std::stoll(argv[a + 1]);
    else if (k == "--m") m = std::stoll(argv[a + 1]);
    else if (k == "--gamma") gamma = std::stod(argv[a + 1]);
    else if (k == "--reps") reps = std::stoi(argv[a + 1]);
    else if (k == "--block") block = std::stoll(argv[a + 1]);
  }
  if (gamma == 0) gamma = 1.0 / double(m);  // squared distances ~ m: kernel values away from 0 and 1
  // Random calls without missing ones: every byte one of the 81 of codes {00, 10, 11}.
  packed_genotypes g(n, m);
  {
    uint8_t valid[81];
    int k = 0;
    const uint8_t codes[3] = {0, 2, 3};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c)
          for (int d = 0; d < 3; ++d) valid[k++] = uint8_t(codes[a] | codes[b] << 2 | codes[c] << 4 | codes[d] << 6);
#pragma omp parallel for schedule(static)
    for (int64_t l = 0; l < m; ++l) {
      uint64_t x = 0x9e3779b97f4a7c15ull * uint64_t(l + 1);
      uint8_t* row = g.row(l);
      for (int64_t b = 0; b < g.row_bytes(); ++b) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        row[b] = valid[(x >> 20) % 81];
      }
    }
  }
  const executor gpu(backend::cuda, 16);
  std::printf("n %lld, m %lld, gamma %.3g, variant blocks of %lld\n", (long long)n, (long long)m, gamma, (long long)block);
  auto t0 = std::chrono::steady_clock::now();
  executor_array<double> K(gpu, size_t(n) * size_t(n));
  std::printf("allocate K (%.1f GB of device memory): %.3f s (once)\n", 8.0 * double(n) * double(n) * 1e-9, seconds_since(t0));
  std::vector<double> total, sums_s, kernel_s;
  for (int r = -1; r < reps; ++r) {  // r = -1: warm-up
    t0 = std::chrono::steady_clock::now();
    sample_sums s(gpu, n, {.ld = n, .S_on_device_only = true});
    const double t_open = seconds_since(t0);
    for (int64_t first = 0; first < m; first += block) {
      const int64_t count = std::min(block, m - first);
      const variant_major_view v{g.row(first), n, count, g.row_bytes()};
      s.add(v, {}, {}, false);
    }
    const double t_sums = seconds_since(t0);
    s.finish_gaussian_kernel(gamma, nullptr, 0, K.data(), n);
    const double t_all = seconds_since(t0);
    if (r < 0) continue;
    total.push_back(t_all), sums_s.push_back(t_sums), kernel_s.push_back(t_all - t_sums);
    std::printf("  rep %d: open (S on the device) %.3f s, sums %.3f s, kernel %.3f s, total %.3f s\n", r, t_open, t_sums,
                t_all - t_sums, t_all);
  }
  std::sort(total.begin(), total.end()), std::sort(sums_s.begin(), sums_s.end()), std::sort(kernel_s.begin(), kernel_s.end());
  const double med = total[total.size() / 2];
  std::printf("Build median %.3f s (sums %.3f s, kernel %.3f s): %.3g genotype pairs x variants / s\n", med,
              sums_s[sums_s.size() / 2], kernel_s[kernel_s.size() / 2], double(n) * double(n) / 2 * double(m) / med);
  // 2,000 random entries against the definition.
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  double worst = 0;
  for (int t = 0; t < 2000; ++t) {
    const int64_t i = pick(rng), j = t % 10 == 0 ? i : pick(rng);
    long long d = 0;
    for (int64_t l = 0; l < m; ++l) {
      const int e = dosage(g, i, l) - dosage(g, j, l);
      d += e * e;
    }
    const long double want = std::exp(-static_cast<long double>(gamma) * d);
    double got = 0;
    K.copy_to_host(&got, size_t(i) * size_t(n) + size_t(j), 1);
    worst = std::max(worst, double(std::fabs(got - want) / want));
  }
  std::printf("largest relative error of 2000 entries against the definition (long double): %.2e\n", worst);
  return 0;
}
