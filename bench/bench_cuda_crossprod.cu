// Benchmark of the CUDA crossprod (M·Mᵀ over samples, the GRM's product) against the binary
// tensor-core ceiling and against the "naive GPU" way: unpack to int8 and cublasGemmEx.
//
// For each size n x k (samples x variants, random genotypes generated on the GPU, no missing):
//   * the multiply stage alone (planes already on the device): S only (4 AND+POPC products per
//     pair and 256 columns) and S + N (5), lower triangle, median of --reps runs (CUDA events);
//   * achieved binary bit-ops/s = 2 * (n²/2) * k * products / t   (2 ops per bit multiply-add, as
//     tensor-core peaks are quoted) against the ceiling measured in the same run by a
//     register-only mma.sync.m16n8k256.and.popc loop and against the quoted 15.7 P;
//   * genotype-ops/s = (n²/2) * k / t  (pairs x variants per second);
//   * naive: dosages unpacked to int8 (n x k, k contiguous), cublasGemmEx CUDA_R_8I, TN, int32
//     (CUBLAS_COMPUTE_32I) over the full square; on k' <= k columns when memory asks (time scaled
//     by k / k'); its result is compared with S where k' = k.
// Then once, end to end through the public op (host rows in, host S out): crossprod_symmetric.
//
// With --ld VxS: the multiply stage of LD (Mᵀ·M over variants: V rows of S samples, the .bed rows
// as they are), once for S alone (no missing calls) and once for every sum LD needs with missing
// calls (S, N lower triangle; U and V = U + 2D full square), after one warm-up run each.
//
// Usage: bench_cuda_crossprod [--sizes 4096x100000,22016x1000000] [--reps 5] [--naive-k K]
//                             [--e2e 22016x1000000 | --e2e 0] [--ld 50241x3101000]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>
#include <string>
#include <vector>

#include "device_random.cuh"
#include "core/cuda_context.hpp"
#include "ops/crossprod/cuda_planes.cuh"
#include "ops/crossprod/cuda_wgmma.cuh"
#include "panoramix/executor.hpp"
#include "panoramix/ops/crossprod.hpp"

using namespace pmx;
using namespace pmx::kernels::cuda_detail;

namespace {

constexpr double quoted_binary_peak = 15.7e15;  // bit-ops/s (DESIGN.md §4)

// Random 2-bit codes, no missing: the missing code 01 becomes 11 (x = 0).
__global__ void random_codes(uint64_t* raw, int64_t words, uint64_t seed) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < words; t += int64_t{gridDim.x} * blockDim.x) {
    uint64_t x = mix64(seed ^ mix64(t));
    const uint64_t lo = x & 0x5555555555555555ull, hi = (x >> 1) & 0x5555555555555555ull;
    x |= (lo & ~hi) << 1;  // 01 -> 11
    raw[t] = x;
  }
}

// X[r * ldx + j] = dosage of row r, column j (int8), j < k; 0 beyond.
__global__ void unpack_int8(const uint64_t* raw, int64_t raw_words, int64_t rows, int64_t k, int64_t ldx, int8_t* X) {
  const int64_t total = rows * ldx;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = t / ldx, j = t - r * ldx;
    int8_t v = 0;
    if (j < k) {
      const unsigned code = (raw[r * raw_words + (j >> 5)] >> (2 * (j & 31))) & 3u;
      v = static_cast<int8_t>(code == 0 ? 2 : code == 2 ? 1 : 0);
    }
    X[t] = v;
  }
}

// Mismatches between S (row-major, lower triangle) and C(i, j) = C[i * c_row + j * c_col].
__global__ void compare_lower(const int32_t* S, int64_t lds, const int32_t* C, int64_t c_row, int64_t c_col,
                              int64_t n, unsigned long long* bad) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < n * n; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = t / n, j = t - i * n;
    if (j <= i && S[i * lds + j] != C[i * c_row + j * c_col]) atomicAdd(bad, 1ull);
  }
}

// Lower-triangle entries of N (row-major) that differ from `value`.
__global__ void lower_equals(const int32_t* N, int64_t ld, int64_t n, int32_t value, unsigned long long* bad) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < n * n; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = t / n, j = t - i * n;
    if (j <= i && N[i * ld + j] != value) atomicAdd(bad, 1ull);
  }
}

// Register-only AND+POPC loop: the binary tensor-core ceiling of this GPU, this run.
__global__ void __launch_bounds__(256) bmma_peak(int iters, int* sink) {
  uint32_t a[4] = {0x9E3779B9u ^ threadIdx.x, 0x7F4A7C15u, 0x94D049BBu, 0x133111EBu}, b0 = 0xBF58476Du, b1 = threadIdx.x;
  int d[16][4] = {};
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < 16; ++j)
      asm volatile(
          "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+r"(d[j][0]), "+r"(d[j][1]), "+r"(d[j][2]), "+r"(d[j][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  int s = 0;
  for (int j = 0; j < 16; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  if (s == 0x7FFFFFFF) *sink = s;
}

// The same for wgmma (sm_90a): two warpgroups issue m64n256k256 AND+POPC on operands that stay in
// shared memory (48 KiB, as one stage of the product kernel), 8 per commit group.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint64_t peak_desc(uint32_t a) {
  return (uint64_t{(a & 0x3FFFFu) >> 4}) | (uint64_t{1} << 16) | (uint64_t{512 >> 4} << 32) | (uint64_t{2} << 62);
}
#endif
__global__ void __launch_bounds__(256, 1) wgmma_peak(int iters, int* sink) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = (static_cast<uint32_t>(__cvta_generic_to_shared(smem)) + 1023u) & ~1023u;
  uint32_t* words = reinterpret_cast<uint32_t*>(smem + (base - static_cast<uint32_t>(__cvta_generic_to_shared(smem))));
  for (int i = threadIdx.x; i < 48 * 1024 / 4; i += 256) words[i] = 0x9E3779B9u * (i + 1) ^ (i >> 3);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const int wg = threadIdx.x >> 7;
  int d[128];
  for (int i = 0; i < 128; ++i) d[i] = 0;
  for (int it = 0; it < iters; ++it) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int j = 0; j < 8; ++j)
      pmx::kernels::cuda_detail::wgmma_and_popc(d, peak_desc(base + (j & 1) * 8192 + wg * 4096 + (j >> 2) * 32),
                 peak_desc(base + 16384 + ((j >> 1) & 1) * 16384 + (j >> 2) * 32));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  int s = 0;
  for (int i = 0; i < 128; ++i) s += d[i];
  if (s == 0x7FFFFFFF) *sink = s;
#endif
}

// n random rows of k columns (2-bit codes, no missing) and their three bit planes, on the device;
// the caller frees raw and base.
struct device_rows {
  uint64_t* raw;
  void* base;
  plane_set planes;
};
device_rows random_rows_with_planes(int64_t n, int64_t k, uint64_t seed) {
  const int64_t words = (k + 31) / 32;
  device_rows d{};
  PMX_CUDA_CHECK(cudaMalloc(&d.raw, n * words * 8));
  random_codes<<<132 * 16, 256>>>(d.raw, n * words, seed);
  PMX_CUDA_CHECK(cudaGetLastError());
  PMX_CUDA_CHECK(cudaMalloc(&d.base, plane_bytes(7, n, k)));
  d.planes = make_plane_set(d.base, 7, n, k);
  build_planes(d.raw, words, n, 0, k, d.planes, nullptr);
  zero_padding_rows(d.planes, n, nullptr);
  return d;
}

struct timer {
  cudaEvent_t a, b;
  timer() {
    PMX_CUDA_CHECK(cudaEventCreate(&a));
    PMX_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  template <class F>
  double median_ms(int reps, F f) {  // one warm-up, then the median of reps
    f();
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
      PMX_CUDA_CHECK(cudaEventRecord(a));
      f();
      PMX_CUDA_CHECK(cudaEventRecord(b));
      PMX_CUDA_CHECK(cudaEventSynchronize(b));
      float ms = 0;
      PMX_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

std::vector<std::pair<int64_t, int64_t>> parse_sizes(const std::string& s) {
  std::vector<std::pair<int64_t, int64_t>> out;
  size_t at = 0;
  while (at < s.size()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    const std::string one = s.substr(at, comma - at);
    const size_t x = one.find('x');
    if (x == std::string::npos) {
      if (one != "0") std::fprintf(stderr, "bad size '%s' (want NxK)\n", one.c_str()), std::exit(2);
    } else {
      out.emplace_back(std::atoll(one.substr(0, x).c_str()), std::atoll(one.substr(x + 1).c_str()));
    }
    at = comma + 1;
  }
  return out;
}

// Register-only mma.sync ceiling and shared-memory-operand wgmma ceiling, bit-ops/s.
std::pair<double, double> measure_peaks(timer& tm) {
  int* sink = nullptr;
  PMX_CUDA_CHECK(cudaMalloc(&sink, sizeof(int)));
  int sms = 0, dev = 0, major = 0;
  PMX_CUDA_CHECK(cudaGetDevice(&dev));
  PMX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  PMX_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  const int blocks = sms * 4, iters = 8192;
  const double ms = tm.median_ms(5, [&] { bmma_peak<<<blocks, 256>>>(iters, sink); });
  PMX_CUDA_CHECK(cudaGetLastError());
  const double sync_peak = double(blocks) * 8 * iters * 16 * 2.0 * 16 * 8 * 256 / (ms * 1e-3);
  double wg_peak = 0;
  if (major == 9) {
    const int smem = 48 * 1024 + 1024, wg_iters = 4096;
    PMX_CUDA_CHECK(cudaFuncSetAttribute(wgmma_peak, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const double wms = tm.median_ms(5, [&] { wgmma_peak<<<sms, 256, smem>>>(wg_iters, sink); });
    PMX_CUDA_CHECK(cudaGetLastError());
    wg_peak = double(sms) * 2 * wg_iters * 8 * 2.0 * 64 * 256 * 256 / (wms * 1e-3);
  }
  PMX_CUDA_CHECK(cudaFree(sink));
  return {sync_peak, wg_peak};
}

}  // namespace

int run(int argc, char** argv) {
  std::string sizes_arg = "4096x100000,8192x262144,22016x1000000", e2e_arg = "22016x1000000", ld_arg;
  int reps = 5;
  int64_t naive_k_arg = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--sizes") sizes_arg = argv[i + 1];
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--naive-k") naive_k_arg = std::atoll(argv[i + 1]);
    else if (a == "--e2e") e2e_arg = argv[i + 1];
    else if (a == "--ld") ld_arg = argv[i + 1];
    else return std::fprintf(stderr, "unknown option %s\n", a.c_str()), 2;
  }
  cudaDeviceProp prop{};
  PMX_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount,
              prop.totalGlobalMem / 1073741824.0);
  timer tm;
  const auto peaks = measure_peaks(tm);
  const double peak = std::max(peaks.first, peaks.second);
  std::printf("binary ceilings measured now: mma.sync m16n8k256 (register operands) %.2f P bit-ops/s, "
              "wgmma m64n256k256 (shared-memory operands) %.2f P; quoted %.1f P\n",
              peaks.first / 1e15, peaks.second / 1e15, quoted_binary_peak / 1e15);
  std::printf("(%%meas below = against the larger measured ceiling)\n");
  cublasHandle_t blas;
  PMX_CUBLAS_CHECK(cublasCreate(&blas));

  std::printf("\n%-16s %-11s %10s %12s %8s %8s %14s\n", "n x k", "what", "ms", "T bit-ops/s", "%meas", "%15.7P",
              "genotype-op/s");
  for (const auto& size : parse_sizes(sizes_arg)) {
    const int64_t n = size.first, k = size.second;
    const int64_t words = (k + 31) / 32;
    const device_rows rows = random_rows_with_planes(n, k, 12345 + n + k);
    uint64_t* raw = rows.raw;
    void* pbase = rows.base;
    plane_set ps = rows.planes;
    const int64_t ldo = (n + 255) / 256 * 256;
    int32_t *S = nullptr, *N = nullptr;
    PMX_CUDA_CHECK(cudaMalloc(&S, ldo * ldo * 4));
    PMX_CUDA_CHECK(cudaMalloc(&N, ldo * ldo * 4));
    PMX_CUDA_CHECK(cudaDeviceSynchronize());

    const double pairs_k = 0.5 * double(n) * double(n) * double(k);
    const product_target ts{S, 1}, tn{N, 1};
    auto report = [&](const std::string& what, double ms, int products) {
      const double bitops = 2.0 * pairs_k * products / (ms * 1e-3);
      std::printf("%7lldx%-8lld %-11s %10.3f %12.1f %7.1f%% %7.1f%% %14.3e\n", (long long)n, (long long)k, what.c_str(),
                  ms, bitops / 1e12, 100 * bitops / peak, 100 * bitops / quoted_binary_peak, pairs_k / (ms * 1e-3));
    };
    unsigned long long* bad = nullptr;
    PMX_CUDA_CHECK(cudaMalloc(&bad, 8));
    auto mismatches = [&](auto launch_compare) {
      PMX_CUDA_CHECK(cudaMemset(bad, 0, 8));
      launch_compare();
      PMX_CUDA_CHECK(cudaGetLastError());
      unsigned long long h = 0;
      PMX_CUDA_CHECK(cudaMemcpy(&h, bad, 8, cudaMemcpyDeviceToHost));
      return h;
    };
    int32_t* S_sync = nullptr;
    PMX_CUDA_CHECK(cudaMalloc(&S_sync, ldo * ldo * 4));
    double t_s = 0;
    for (mma_kind kind : {mma_kind::sync, mma_kind::wgmma}) {
      const std::string name = kind == mma_kind::sync ? "mma.sync" : "wgmma";
      const double ts_ms = tm.median_ms(reps, [&] {
        PMX_CUDA_CHECK(cudaMemsetAsync(S, 0, ldo * ldo * 4));
        run_product(product::S, ps, 0, n, ps, 0, n, true, 0, 0, &ts, 1, ldo, nullptr, kind);
      });
      report(name + " S", ts_ms, 4);
      const double tsn_ms = tm.median_ms(reps, [&] {
        PMX_CUDA_CHECK(cudaMemsetAsync(S, 0, ldo * ldo * 4));
        PMX_CUDA_CHECK(cudaMemsetAsync(N, 0, ldo * ldo * 4));
        run_product(product::S, ps, 0, n, ps, 0, n, true, 0, 0, &ts, 1, ldo, nullptr, kind);
        run_product(product::N, ps, 0, n, ps, 0, n, true, 0, 0, &tn, 1, ldo, nullptr, kind);
      });
      report(name + " S+N", tsn_ms, 5);
      // Without missing calls every lower entry of N is k.
      const auto bad_n = mismatches([&] { lower_equals<<<132 * 16, 256>>>(N, ldo, n, static_cast<int32_t>(k), bad); });
      if (kind == mma_kind::sync) {
        t_s = ts_ms;
        PMX_CUDA_CHECK(cudaMemcpy(S_sync, S, ldo * ldo * 4, cudaMemcpyDeviceToDevice));
        std::printf("  check %s: N == k on every lower pair: %s (%llu mismatches)\n", name.c_str(),
                    bad_n ? "NO" : "yes", bad_n);
      } else {
        const auto bad_s = mismatches([&] { compare_lower<<<132 * 16, 256>>>(S, ldo, S_sync, ldo, 1, n, bad); });
        std::printf("  check %s: N == k: %s (%llu); S == mma.sync S on every lower pair: %s (%llu mismatches)\n",
                    name.c_str(), bad_n ? "NO" : "yes", bad_n, bad_s ? "NO" : "yes", bad_s);
        t_s = std::min(t_s, ts_ms);
      }
    }
    PMX_CUDA_CHECK(cudaFree(N));
    PMX_CUDA_CHECK(cudaFree(pbase));

    // Naive GPU: int8 unpack + cublasGemmEx (full square, TN, int32).
    size_t free_b = 0, total_b = 0;
    PMX_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const int64_t np = (n + 15) / 16 * 16;
    int64_t kn = naive_k_arg > 0 ? std::min(naive_k_arg, k) : k;
    while (double(np) * ((kn + 15) / 16 * 16) + double(np) * np * 4 > 0.8 * double(free_b)) kn /= 2;
    const int64_t ldx = (kn + 15) / 16 * 16;
    int8_t* X = nullptr;
    int32_t* C = nullptr;
    PMX_CUDA_CHECK(cudaMalloc(&X, np * ldx));
    PMX_CUDA_CHECK(cudaMalloc(&C, np * np * 4));
    unpack_int8<<<132 * 16, 256>>>(raw, words, n, kn, ldx, X);
    PMX_CUDA_CHECK(cudaMemset(X + n * ldx, 0, (np - n) * ldx));
    PMX_CUDA_CHECK(cudaGetLastError());
    const int32_t one = 1, zero = 0;
    auto gemm = [&] {
      PMX_CUBLAS_CHECK(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(np), int(np), int(ldx), &one, X, CUDA_R_8I,
                                    int(ldx), X, CUDA_R_8I, int(ldx), &zero, C, CUDA_R_32I, int(np),
                                    CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    };
    const double t_naive = tm.median_ms(std::max(1, reps / 2), gemm) * double(k) / double(kn);
    const double int8_tops = 2.0 * double(np) * np * ldx / (t_naive * 1e-3 * double(kn) / double(k));
    std::printf("%7lldx%-8lld %-11s %10.3f   int8 GEMM %.1f TOPS (full square%s); genotype-op/s %.3e; best binary S is "
                "%.1fx faster\n",
                (long long)n, (long long)k, "naive", t_naive, int8_tops / 1e12,
                kn < k ? (", k'=" + std::to_string(kn) + ", time scaled").c_str() : "", pairs_k / (t_naive * 1e-3),
                t_naive / t_s);
    if (kn == k) {
      gemm();  // C(i, j) at C[i + j * np]
      const auto h = mismatches([&] { compare_lower<<<132 * 16, 256>>>(S_sync, ldo, C, 1, np, n, bad); });
      std::printf("  check: mma.sync S == int8 GEMM on all %lld lower-triangle pairs: %s (%llu mismatches)\n",
                  (long long)(n * (n + 1) / 2), h == 0 ? "yes" : "NO", h);
    }
    PMX_CUDA_CHECK(cudaFree(bad));
    PMX_CUDA_CHECK(cudaFree(S_sync));
    PMX_CUDA_CHECK(cudaFree(X));
    PMX_CUDA_CHECK(cudaFree(C));
    PMX_CUDA_CHECK(cudaFree(S));
    PMX_CUDA_CHECK(cudaFree(raw));
  }

  // LD multiply stage: rows are variants, columns samples.
  for (const auto& size : parse_sizes(ld_arg)) {
    const int64_t n = size.first, k = size.second;
    const device_rows rows = random_rows_with_planes(n, k, 777 + n + k);
    uint64_t* raw = rows.raw;
    void* pbase = rows.base;
    plane_set ps = rows.planes;
    PMX_CUDA_CHECK(cudaDeviceSynchronize());
    PMX_CUDA_CHECK(cudaFree(raw));  // the planes are all the LD products read
    const int64_t ldo = (n + 255) / 256 * 256;
    int32_t* out[4] = {};
    for (auto& o : out) PMX_CUDA_CHECK(cudaMalloc(&o, ldo * ldo * 4));
    // U = H + D, V = H + 3D (as the op plans it): two single-pair products over the full square.
    const product_target tS{out[0], 1}, tN{out[1], 1}, tH[2] = {{out[2], 1}, {out[3], 1}},
                         tD[2] = {{out[2], 1}, {out[3], 3}};
    const double pairs_k = 0.5 * double(n) * double(n) * double(k);
    const double t_s = tm.median_ms(1, [&] {
      PMX_CUDA_CHECK(cudaMemsetAsync(out[0], 0, ldo * ldo * 4));
      run_product(product::S, ps, 0, n, ps, 0, n, true, 0, 0, &tS, 1, ldo, nullptr);
    });
    const double t_all = tm.median_ms(1, [&] {
      for (auto& o : out) PMX_CUDA_CHECK(cudaMemsetAsync(o, 0, ldo * ldo * 4));
      run_product(product::S, ps, 0, n, ps, 0, n, true, 0, 0, &tS, 1, ldo, nullptr);
      run_product(product::N, ps, 0, n, ps, 0, n, true, 0, 0, &tN, 1, ldo, nullptr);
      run_product(product::H, ps, 0, n, ps, 0, n, false, 0, 0, tH, 2, ldo, nullptr);
      run_product(product::D, ps, 0, n, ps, 0, n, false, 0, 0, tD, 2, ldo, nullptr);
    });
    // Bit products per pair-column: S 4 + N 1 (lower triangle), H 1 + D 1 (full square = 2x).
    const double bitops_s = 2.0 * pairs_k * 4, bitops_all = 2.0 * pairs_k * (5 + 2 * 2);
    std::printf("LD multiply stage %lld variants x %lld samples (planes %.1f GB on the device):\n", (long long)n,
                (long long)k, plane_bytes(7, n, k) / 1e9);
    std::printf("  S only (no missing calls):      %9.1f ms  %.2f P bit-ops/s  %.3e variant-pair-ops/s\n", t_s,
                bitops_s / (t_s * 1e-3) / 1e15, pairs_k / (t_s * 1e-3));
    std::printf("  S, N, U, V (with missing calls): %9.1f ms  %.2f P bit-ops/s\n", t_all,
                bitops_all / (t_all * 1e-3) / 1e15);
    for (auto& o : out) PMX_CUDA_CHECK(cudaFree(o));
    PMX_CUDA_CHECK(cudaFree(pbase));
  }

  // End to end through the public op: host 2-bit rows in, host int32 S out (+=).
  for (const auto& size : parse_sizes(e2e_arg)) {
    const int64_t n = size.first, k = size.second;
    const int64_t words = (k + 31) / 32;
    uint64_t* raw = nullptr;
    PMX_CUDA_CHECK(cudaMalloc(&raw, n * words * 8));
    random_codes<<<132 * 16, 256>>>(raw, n * words, 999 + n);
    std::vector<uint64_t> host(static_cast<size_t>(n * words));
    PMX_CUDA_CHECK(cudaMemcpy(host.data(), raw, n * words * 8, cudaMemcpyDeviceToHost));
    PMX_CUDA_CHECK(cudaFree(raw));
    const packed_rows_view v{host.data(), n, k, words};
    std::vector<int32_t> S(static_cast<size_t>(n * n), 0), N(static_cast<size_t>(n * n), 0);
    const executor gpu(backend::cuda);
    const packed_rows_view small{host.data(), std::min<int64_t>(n, 300), std::min<int64_t>(k, 512), words};
    crossprod_outputs warm{};
    warm.S = S.data();
    warm.ld = n;
    crossprod_symmetric(gpu, small, warm);  // starts the executor's resources
    for (int with_n = 0; with_n < 2; ++with_n) {
      const auto t0 = std::chrono::steady_clock::now();
      crossprod_outputs out{};
      out.S = S.data();
      out.N = with_n ? N.data() : nullptr;
      out.ld = n;
      crossprod_symmetric(gpu, v, out);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("end to end crossprod_symmetric %lldx%lld (%s, host in -> host out): %.3f s, %.3e genotype-op/s "
                  "(upload %.2f GB, download+add %.2f GB)\n",
                  (long long)n, (long long)k, with_n ? "S+N" : "S", s, 0.5 * double(n) * n * k / s,
                  n * words * 8 / 1e9, (with_n ? 2 : 1) * double(n) * n * 4 / 1e9);
    }
  }
  cublasDestroy(blas);
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_crossprod: %s\n", e.what());
    return 1;
  }
}
