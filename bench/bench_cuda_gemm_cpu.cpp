// C++20 half of bench_cuda_gemm (the .cu side is C++17, where std::span and so the op's public
// header are not available): the cpu backend's time on the same genotypes.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/ops/genotype_gemm.hpp"

/// Median seconds of `reps` runs (after one warm-up when `warm_up`) of the cpu backend's product on the
/// variant-major rows at `data` (`pitch` bytes apart), p as centring, Λ / Λ̃ at `in` (ld = l).
double bench_cpu_gemm_seconds(bool transposed, const uint8_t* data, int64_t n, int64_t k, int64_t pitch,
                              const double* p, int64_t l, const double* in, double* out, int threads, int reps,
                              bool warm_up) {
  const pmx::executor cpu(pmx::backend::cpu, threads);
  const pmx::variant_major_view v{data, n, k, pitch};
  const pmx::gemm_centring c{std::span<const double>(p, static_cast<size_t>(k)), {}};
  auto once = [&] {
    if (transposed) pmx::gemm_transposed(cpu, v, c, l, in, l, 0.0, out, l);
    else pmx::gemm(cpu, v, c, l, in, l, 0.0, out, l);
  };
  if (warm_up) once();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    once();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
