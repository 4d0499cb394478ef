// Benchmark of the CUDA genotype × dense products (issue #5): Y = Z Λ and W = Zᵀ Λ̃ with Λ of l
// columns (thesis Table 4.1: 50,241 variants, l = 10, 102k / 751k / 3.1M samples).
//
// For each n: random genotypes (2 % missing) generated on the device in the resident layout,
// Λ / Λ̃ / Y / W on the device; both products through cuda_detail::genotype_gemm (the op's entry,
// table build + kernels + reduction + stream sync included), one warm-up, median of --reps (host
// wall clock). Printed per product: time, genotype bytes / time against the read bandwidth
// measured in the same run, FP64 op rate (2·n·k·l useful flops; the hardware also does the
// padding of its instruction shapes) against cuBLAS DGEMM's rate measured in the same run, max
// error relative to Σ|terms| and to |ref| on sampled rows against a long-double host computation,
// one timing with host Λ/Y (transfers included), cuBLAS DGEMM on the inflated Z (double): whole
// where it fits in device memory, else (n ≤ --dgemm-tiled-max-n) in chunks of variants that fit,
// inflated one after the other and only the DGEMMs timed (sum over chunks of each chunk's median),
// and the cpu backend on the same genotypes (n ≤ --cpu-max-n; --cpu-reps timed runs, median,
// after one warm-up unless --cpu-reps is 1). --sweep also times the kernel variants that the
// environment selects (PMX_GEMM_ZTL=mt4, PMX_GEMM_MMA=m8, PMX_GEMM_NARROW=0) and the INT8 route of
// normwise operands (cuda_int8.hpp; l <= 4) against the default's results. --normwise 1 makes the
// INT8 route the default of the run (the error columns then compare it with long double).
//
// Usage: bench_cuda_gemm [--sizes 102000,751000,3101000] [--k 50241] [--l 10] [--reps 5]
//                        [--cpu-max-n 102000] [--cpu-reps 2] [--cpu-threads 0]
//                        [--dgemm-tiled-max-n 751000] [--sweep 0|1] [--normwise 0|1]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "device_random.cuh"
#include "core/cuda_context.hpp"
#include "ops/genotype_gemm/cuda_mma.cuh"
#include "ops/genotype_gemm/cuda_resident.cuh"
#include "panoramix/executor.hpp"

using namespace pmx;
using namespace pmx::kernels::cuda_detail;

// bench_cuda_gemm_cpu.cpp (C++20).
double bench_cpu_gemm_seconds(bool transposed, const uint8_t* data, int64_t n, int64_t k, int64_t pitch,
                              const double* p, int64_t l, const double* in, double* out, int threads, int reps,
                              bool warm_up);

namespace {

// Random codes: per call 2 % missing, else 00/10/11 with roughly HWE-like odds.
__global__ void random_codes(uint64_t* raw, int64_t words, uint64_t seed) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < words; t += int64_t{gridDim.x} * blockDim.x) {
    uint64_t r = mix64(seed ^ mix64(t)), r2 = mix64(r + 1), out = 0;
    for (int q = 0; q < 32; ++q) {
      const unsigned u = static_cast<unsigned>((q < 16 ? r >> (4 * q) : r2 >> (4 * (q - 16))) & 15u);
      const unsigned u2 = static_cast<unsigned>((mix64(r ^ q) >> 7) % 100);
      const uint64_t code = u2 < 2 ? 1u : (u < 4 ? 0u : u < 11 ? 2u : 3u);
      out |= code << (2 * q);
    }
    raw[t] = out;
  }
}

__global__ void random_doubles(double* x, int64_t count, uint64_t seed) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < count; t += int64_t{gridDim.x} * blockDim.x)
    x[t] = static_cast<double>(mix64(seed ^ mix64(t)) >> 11) * 0x1.0p-52 - 1.0;  // [-1, 1)
}

// Read-bandwidth probe: sums 16-byte words (the result only defeats dead-code elimination).
__global__ void read_all(const uint4* p, int64_t count, unsigned* sink) {
  unsigned s = 0;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < count; t += int64_t{gridDim.x} * blockDim.x) {
    const uint4 v = __ldg(p + t);
    s ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x12345678u) *sink = s;
}

// Zs[i * k + j] = table[4j + code(i, j)] for samples [i0, i0 + rows): the inflated matrix.
__global__ void inflate(const uint8_t* geno, int64_t pitch, int64_t k, int64_t i0, int64_t rows, const double* table,
                        double* Zs) {
  const int64_t total = rows * k;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = t / k, j = t - i * k, s = i0 + i;
    const unsigned code = (geno[j * pitch + (s >> 2)] >> (2 * (s & 3))) & 3u;
    Zs[t] = table[4 * j + code];
  }
}

// Zc[i * kc + (j − j0)] = table[4j + code(i, j)] for all samples i and variants j0 <= j < j0 + kc:
// a chunk of variants of the inflated matrix.
__global__ void inflate_cols(const uint8_t* geno, int64_t pitch, int64_t n, int64_t j0, int64_t kc,
                             const double* table, double* Zc) {
  const int64_t total = n * kc;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = t / kc, j = j0 + (t - i * kc);
    const unsigned code = (geno[j * pitch + (i >> 2)] >> (2 * (i & 3))) & 3u;
    Zc[t] = table[4 * j + code];
  }
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
template <class F>
double median_s(int reps, F f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_s();
    f();
    t.push_back(now_s() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<int64_t> parse_list(const char* s) {
  std::vector<int64_t> v;
  for (const char* p = s; *p;) {
    v.push_back(std::strtoll(p, const_cast<char**>(&p), 10));
    if (*p == ',') ++p;
  }
  return v;
}

long double zval(unsigned code, double p) {
  return code == 0 ? 2.0L - 2.0L * p : code == 2 ? 1.0L - 2.0L * p : code == 3 ? -2.0L * p : 0.0L;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {102000, 751000, 3101000};
  int64_t k = 50241, l = 10, cpu_max_n = 102000, tiled_max_n = 751000;
  int reps = 5, cpu_threads = 0, cpu_reps = 2;
  bool sweep = false, normwise = false;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string o = argv[a];
    if (o == "--sizes") sizes = parse_list(argv[a + 1]);
    else if (o == "--k") k = std::atoll(argv[a + 1]);
    else if (o == "--l") l = std::atoll(argv[a + 1]);
    else if (o == "--reps") reps = std::atoi(argv[a + 1]);
    else if (o == "--cpu-max-n") cpu_max_n = std::atoll(argv[a + 1]);
    else if (o == "--cpu-threads") cpu_threads = std::atoi(argv[a + 1]);
    else if (o == "--cpu-reps") cpu_reps = std::max(1, std::atoi(argv[a + 1]));
    else if (o == "--dgemm-tiled-max-n") tiled_max_n = std::atoll(argv[a + 1]);
    else if (o == "--sweep") sweep = std::atoi(argv[a + 1]) != 0;
    else if (o == "--normwise") normwise = std::atoi(argv[a + 1]) != 0;
  }
  try {
    cudaDeviceProp prop{};
    PMX_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const tuning settings = tuning::from_environment();
    const executor cuda(backend::cuda, 16, settings);
    detail::cuda_context& ctx = cuda.cuda_context();
    {
      detail::cuda_scope scope(cuda);  // starts the context (stream, cuBLAS)
    }
    cudaStream_t st = ctx.stream;
    std::printf("device: %s, %d SMs, CC %d.%d; MMA path: %s\n", prop.name, prop.multiProcessorCount, prop.major,
                prop.minor, settings.gemm_m8 ? "m8 (PMX_GEMM_MMA=m8)" : "default (m16n8k16 on sm_90)");

    // Ceilings of this run: read bandwidth (8 GB read), device copy, cuBLAS DGEMM 8192^3.
    double read_bw = 0, copy_bw = 0, dgemm_rate = 0;
    {
      const size_t bytes = size_t{8} << 30;
      void *a = nullptr, *b = nullptr;
      unsigned* sink = nullptr;
      PMX_CUDA_CHECK(cudaMalloc(&a, bytes));
      PMX_CUDA_CHECK(cudaMalloc(&b, bytes / 2));
      PMX_CUDA_CHECK(cudaMalloc(&sink, 4));
      PMX_CUDA_CHECK(cudaMemsetAsync(a, 1, bytes, st));
      const double tr = median_s(5, [&] {
        read_all<<<prop.multiProcessorCount * 8, 512, 0, st>>>(static_cast<const uint4*>(a), int64_t(bytes / 16), sink);
        PMX_CUDA_CHECK(cudaStreamSynchronize(st));
      });
      read_bw = bytes / tr;
      const double tc = median_s(5, [&] {
        PMX_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes / 2, cudaMemcpyDeviceToDevice, st));
        PMX_CUDA_CHECK(cudaStreamSynchronize(st));
      });
      copy_bw = bytes / tc;  // read + write bytes
      PMX_CUDA_CHECK(cudaFree(a));
      PMX_CUDA_CHECK(cudaFree(b));
      PMX_CUDA_CHECK(cudaFree(sink));
      const int m = 8192;
      double* d = nullptr;
      PMX_CUDA_CHECK(cudaMalloc(&d, size_t{3} * m * m * 8));
      random_doubles<<<1024, 256, 0, st>>>(d, int64_t{3} * m * m, 7);
      const double one = 1, zero = 0;
      const double tg = median_s(3, [&] {
        PMX_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, d, m, d + size_t{m} * m, m,
                                     &zero, d + size_t{2} * m * m, m));
        PMX_CUDA_CHECK(cudaStreamSynchronize(st));
      });
      dgemm_rate = 2.0 * m * m * double(m) / tg;
      PMX_CUDA_CHECK(cudaFree(d));
    }
    std::printf("ceilings this run: read %.2f TB/s, device copy %.2f TB/s (read+write), DGEMM 8192^3 %.1f TFLOP/s\n\n",
                read_bw / 1e12, copy_bw / 1e12, dgemm_rate / 1e12);
    std::printf("%9s %6s %3s | %-8s %9s %8s %7s %9s %8s %10s %10s | %9s %9s %8s | %9s %8s\n", "n", "k", "l", "product",
                "time_ms", "GB/s", "%read", "TFLOP/s", "%dgemm", "err/bound", "err/|ref|", "host_ms", "dgemm_ms",
                "speedup", "cpu_ms", "cpu/gpu");

    for (int64_t n : sizes) {
      const int64_t pitch = resident_pitch(n);
      const int64_t gbytes = pitch * k;
      resident_genotypes r;
      r.n_samples = n, r.n_variants = k, r.pitch = pitch, r.owned = false;
      PMX_CUDA_CHECK(cudaMalloc(&r.data, static_cast<size_t>(gbytes)));
      random_codes<<<4096, 256, 0, st>>>(reinterpret_cast<uint64_t*>(r.data), gbytes / 8, 1234 + n);
      std::vector<double> p(k);
      std::mt19937_64 rng(n);
      std::uniform_real_distribution<double> up(0.05, 0.95);
      for (auto& v : p) v = up(rng);
      double *L = nullptr, *Lt = nullptr, *Y = nullptr, *W = nullptr;
      PMX_CUDA_CHECK(cudaMalloc(&L, k * l * 8));
      PMX_CUDA_CHECK(cudaMalloc(&Lt, n * l * 8));
      PMX_CUDA_CHECK(cudaMalloc(&Y, n * l * 8));
      PMX_CUDA_CHECK(cudaMalloc(&W, k * l * 8));
      random_doubles<<<1024, 256, 0, st>>>(L, k * l, 11);
      random_doubles<<<1024, 256, 0, st>>>(Lt, n * l, 12);
      PMX_CUDA_CHECK(cudaStreamSynchronize(st));
      const variant_major_view view{nullptr, n, k, (n + 3) / 4};

      bool nw = normwise;
      executor active = cuda;  // the sweep below swaps in executors with other kernel settings
      auto zl = [&] { genotype_gemm(active, &r, view, false, p.data(), nullptr, l, L, l, 0.0, Y, l, nw); };
      auto ztl = [&] { genotype_gemm(active, &r, view, true, p.data(), nullptr, l, Lt, l, 0.0, W, l, nw); };
      const double t_zl = median_s(reps, zl), t_ztl = median_s(reps, ztl);

      // Kernel variants (environment switches of cuda.cu), each against the default's results.
      if (sweep) {
        std::vector<double> dY(n * l), dW(k * l), vY(n * l), vW(k * l);
        PMX_CUDA_CHECK(cudaMemcpy(dY.data(), Y, n * l * 8, cudaMemcpyDeviceToHost));
        PMX_CUDA_CHECK(cudaMemcpy(dW.data(), W, k * l * 8, cudaMemcpyDeviceToHost));
        struct variant {
          const char* name;
          void (*select)(tuning&);
          bool normwise;
        };
        const variant vs[] = {{"PMX_GEMM_ZTL=mt4 (64 variants/warp)", [](tuning& t) { t.gemm_ztl_mt4 = true; }, false},
                              {"PMX_GEMM_MMA=m8 (sm_80 kernels)", [](tuning& t) { t.gemm_m8 = true; }, false},
                              {"PMX_GEMM_NARROW=0 (MMA for l <= 3)", [](tuning& t) { t.gemm_narrow = false; }, false},
                              {"componentwise (FP64 routes)", [](tuning&) {}, false},
                              {"normwise (INT8 tensor cores)", [](tuning&) {}, true}};
        for (const variant& v : vs) {
          tuning t = settings;
          v.select(t);
          active = executor(backend::cuda, 16, t);
          nw = v.normwise;
          const double a = median_s(reps, zl), b = median_s(reps, ztl);
          PMX_CUDA_CHECK(cudaMemcpy(vY.data(), Y, n * l * 8, cudaMemcpyDeviceToHost));
          PMX_CUDA_CHECK(cudaMemcpy(vW.data(), W, k * l * 8, cudaMemcpyDeviceToHost));
          double dy = 0, dw = 0, sy = 0, sw = 0;
          for (int64_t e = 0; e < n * l; ++e) dy = std::max(dy, std::fabs(vY[e] - dY[e])), sy = std::max(sy, std::fabs(dY[e]));
          for (int64_t e = 0; e < k * l; ++e) dw = std::max(dw, std::fabs(vW[e] - dW[e])), sw = std::max(sw, std::fabs(dW[e]));
          std::printf("  sweep n=%lld %-36s Z*L %8.3f ms  Zt*L~ %8.3f ms  max|diff|/max|default| %.1e / %.1e\n",
                      (long long)n, v.name, a * 1e3, b * 1e3, dy / sy, dw / sw);
          active = cuda;
          nw = normwise;
        }
        std::fflush(stdout);
      }

      // Host-pointer timing (Λ, Y in pageable host memory; transfers included).
      std::vector<double> hL(k * l), hY(n * l), hLt(n * l), hW(k * l);
      PMX_CUDA_CHECK(cudaMemcpy(hL.data(), L, k * l * 8, cudaMemcpyDeviceToHost));
      PMX_CUDA_CHECK(cudaMemcpy(hLt.data(), Lt, n * l * 8, cudaMemcpyDeviceToHost));
      const double th_zl = median_s(1, [&] {
        genotype_gemm(cuda, &r, view, false, p.data(), nullptr, l, hL.data(), l, 0.0, hY.data(), l, nw);
      });
      const double th_ztl = median_s(1, [&] {
        genotype_gemm(cuda, &r, view, true, p.data(), nullptr, l, hLt.data(), l, 0.0, hW.data(), l, nw);
      });

      // Check sampled rows against long double on the host.
      zl();
      ztl();
      std::vector<double> gY(n * l), gW(k * l);
      PMX_CUDA_CHECK(cudaMemcpy(gY.data(), Y, n * l * 8, cudaMemcpyDeviceToHost));
      PMX_CUDA_CHECK(cudaMemcpy(gW.data(), W, k * l * 8, cudaMemcpyDeviceToHost));
      double err_b[2] = {0, 0}, err_r[2] = {0, 0};
      std::vector<uint8_t> col(k), row(pitch);
      for (int q = 0; q < 12; ++q) {
        const int64_t i = static_cast<int64_t>(rng() % n);
        PMX_CUDA_CHECK(cudaMemcpy2D(col.data(), 1, r.data + i / 4, pitch, 1, k, cudaMemcpyDeviceToHost));
        for (int64_t c = 0; c < l; ++c) {
          long double s = 0, b = 0;
          for (int64_t j = 0; j < k; ++j) {
            const long double t = zval((col[j] >> (2 * (i & 3))) & 3u, p[j]) * hL[j * l + c];
            s += t, b += std::fabs(t);
          }
          const double e = std::fabs(static_cast<double>(gY[i * l + c] - s));
          err_b[0] = std::max(err_b[0], static_cast<double>(e / b));
          err_r[0] = std::max(err_r[0], static_cast<double>(e / std::fabs(s)));
        }
        const int64_t j = static_cast<int64_t>(rng() % k);
        PMX_CUDA_CHECK(cudaMemcpy(row.data(), r.data + j * pitch, pitch, cudaMemcpyDeviceToHost));
        for (int64_t c = 0; c < l; ++c) {
          long double s = 0, b = 0;
          for (int64_t ii = 0; ii < n; ++ii) {
            const long double t = zval((row[ii / 4] >> (2 * (ii & 3))) & 3u, p[j]) * hLt[ii * l + c];
            s += t, b += std::fabs(t);
          }
          const double e = std::fabs(static_cast<double>(gW[j * l + c] - s));
          err_b[1] = std::max(err_b[1], static_cast<double>(e / b));
          err_r[1] = std::max(err_r[1], static_cast<double>(e / std::fabs(s)));
        }
      }
      bool host_ok = true;
      for (int64_t e = 0; e < n * l; ++e) host_ok = host_ok && hY[e] == gY[e];
      for (int64_t e = 0; e < k * l; ++e) host_ok = host_ok && hW[e] == gW[e];

      // cuBLAS DGEMM on the inflated matrix (sample-major doubles) where it fits.
      double t_dg[2] = {0, 0};
      {
        size_t free_b = 0, total_b = 0;
        PMX_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const size_t zbytes = size_t(n) * size_t(k) * 8;
        if (zbytes + (size_t{2} << 30) < free_b) {
          double *Zs = nullptr, *table = nullptr, *dp = nullptr, *Y2 = nullptr, *W2 = nullptr;
          PMX_CUDA_CHECK(cudaMalloc(&Zs, zbytes));
          PMX_CUDA_CHECK(cudaMalloc(&table, k * 32));
          PMX_CUDA_CHECK(cudaMalloc(&dp, k * 8));
          PMX_CUDA_CHECK(cudaMalloc(&Y2, n * l * 8));
          PMX_CUDA_CHECK(cudaMalloc(&W2, k * l * 8));
          PMX_CUDA_CHECK(cudaMemcpy(dp, p.data(), k * 8, cudaMemcpyHostToDevice));
          gemm_dev::build_tables<<<256, 256, 0, st>>>(dp, nullptr, k, table);
          inflate<<<8192, 256, 0, st>>>(r.data, pitch, k, 0, n, table, Zs);
          PMX_CUDA_CHECK(cudaStreamSynchronize(st));
          const double one = 1, zero = 0;
          t_dg[0] = median_s(reps, [&] {  // Yᵀ (l × n) = Λᵀ (l × k) · Zᵀ (k × n)
            PMX_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, int(l), int(n), int(k), &one, L, int(l),
                                         Zs, int(k), &zero, Y2, int(l)));
            PMX_CUDA_CHECK(cudaStreamSynchronize(st));
          });
          t_dg[1] = median_s(reps, [&] {  // Wᵀ (l × k) = Λ̃ᵀ (l × n) · Z (n × k)
            PMX_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_T, int(l), int(k), int(n), &one, Lt, int(l),
                                         Zs, int(k), &zero, W2, int(l)));
            PMX_CUDA_CHECK(cudaStreamSynchronize(st));
          });
          PMX_CUDA_CHECK(cudaFree(Zs));
          PMX_CUDA_CHECK(cudaFree(table));
          PMX_CUDA_CHECK(cudaFree(dp));
          PMX_CUDA_CHECK(cudaFree(Y2));
          PMX_CUDA_CHECK(cudaFree(W2));
        } else if (n <= tiled_max_n) {
          // Chunks of kc variants: Zc (n × kc doubles, row-major) inflated, then Yᵀ += Λcᵀ Zcᵀ and
          // W[j0 .. j0 + kc) = Zcᵀ Λ̃ timed; the sum of the chunks' medians is the product's time.
          const int64_t room = static_cast<int64_t>(free_b) - (int64_t{4} << 30);
          const int64_t kc = room > 0 ? std::min<int64_t>(k, room / (n * 8)) : 0;
          if (kc >= 1) {
            double *Zc = nullptr, *table = nullptr, *dp = nullptr, *Y2 = nullptr, *W2 = nullptr;
            PMX_CUDA_CHECK(cudaMalloc(&Zc, size_t(n) * size_t(kc) * 8));
            PMX_CUDA_CHECK(cudaMalloc(&table, k * 32));
            PMX_CUDA_CHECK(cudaMalloc(&dp, k * 8));
            PMX_CUDA_CHECK(cudaMalloc(&Y2, n * l * 8));
            PMX_CUDA_CHECK(cudaMalloc(&W2, k * l * 8));
            PMX_CUDA_CHECK(cudaMemcpy(dp, p.data(), k * 8, cudaMemcpyHostToDevice));
            gemm_dev::build_tables<<<256, 256, 0, st>>>(dp, nullptr, k, table);
            const double one = 1, zero = 0;
            int chunks = 0;
            for (int64_t j0 = 0; j0 < k; j0 += kc, ++chunks) {
              const int64_t kk = std::min(kc, k - j0);
              inflate_cols<<<8192, 256, 0, st>>>(r.data, pitch, n, j0, kk, table, Zc);
              PMX_CUDA_CHECK_LAUNCH();
              PMX_CUDA_CHECK(cudaStreamSynchronize(st));
              // Timed into Y (overwritten by our product below), then accumulated once into Y2.
              t_dg[0] += median_s(reps, [&] {
                PMX_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, int(l), int(n), int(kk), &one,
                                             L + j0 * l, int(l), Zc, int(kk), &zero, Y, int(l)));
                PMX_CUDA_CHECK(cudaStreamSynchronize(st));
              });
              PMX_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, int(l), int(n), int(kk), &one,
                                           L + j0 * l, int(l), Zc, int(kk), j0 == 0 ? &zero : &one, Y2, int(l)));
              t_dg[1] += median_s(reps, [&] {
                PMX_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_T, int(l), int(kk), int(n), &one, Lt,
                                             int(l), Zc, int(kk), &zero, W2 + j0 * l, int(l)));
                PMX_CUDA_CHECK(cudaStreamSynchronize(st));
              });
            }
            // The tiled products must equal ours to rounding (a check of the baseline itself).
            std::vector<double> cY(n * l), cW(k * l), oY(n * l), oW(k * l);
            zl();
            ztl();
            PMX_CUDA_CHECK(cudaMemcpy(cY.data(), Y2, n * l * 8, cudaMemcpyDeviceToHost));
            PMX_CUDA_CHECK(cudaMemcpy(cW.data(), W2, k * l * 8, cudaMemcpyDeviceToHost));
            PMX_CUDA_CHECK(cudaMemcpy(oY.data(), Y, n * l * 8, cudaMemcpyDeviceToHost));
            PMX_CUDA_CHECK(cudaMemcpy(oW.data(), W, k * l * 8, cudaMemcpyDeviceToHost));
            double dy = 0, sy = 0, dw = 0, sw = 0;
            for (int64_t e = 0; e < n * l; ++e) dy = std::max(dy, std::fabs(cY[e] - oY[e])), sy = std::max(sy, std::fabs(oY[e]));
            for (int64_t e = 0; e < k * l; ++e) dw = std::max(dw, std::fabs(cW[e] - oW[e])), sw = std::max(sw, std::fabs(oW[e]));
            std::printf("  tiled cuBLAS DGEMM n=%lld: %d chunks of <= %lld variants (%.1f GB inflated each); "
                        "Z*L %.2f ms, Zt*L~ %.2f ms (DGEMMs only); max|diff|/max|ours| %.1e / %.1e\n",
                        (long long)n, chunks, (long long)kc, double(n) * double(kc) * 8 / 1e9, t_dg[0] * 1e3,
                        t_dg[1] * 1e3, dy / sy, dw / sw);
            PMX_CUDA_CHECK(cudaFree(Zc));
            PMX_CUDA_CHECK(cudaFree(table));
            PMX_CUDA_CHECK(cudaFree(dp));
            PMX_CUDA_CHECK(cudaFree(Y2));
            PMX_CUDA_CHECK(cudaFree(W2));
          }
        }
      }

      // cpu backend on the same genotypes (host copy, all threads).
      double t_cpu[2] = {0, 0};
      double cpu_diff[2] = {0, 0};
      if (n <= cpu_max_n) {
        std::unique_ptr<uint8_t[]> host(new uint8_t[static_cast<size_t>(gbytes)]);  // not zero-filled
        PMX_CUDA_CHECK(cudaMemcpy(host.get(), r.data, gbytes, cudaMemcpyDeviceToHost));
        std::vector<double> cY(n * l), cW(k * l);
        t_cpu[0] = bench_cpu_gemm_seconds(false, host.get(), n, k, pitch, p.data(), l, hL.data(), cY.data(),
                                          cpu_threads, cpu_reps, cpu_reps > 1);
        t_cpu[1] = bench_cpu_gemm_seconds(true, host.get(), n, k, pitch, p.data(), l, hLt.data(), cW.data(),
                                          cpu_threads, cpu_reps, cpu_reps > 1);
        double sy = 0, sw = 0;
        for (int64_t e = 0; e < n * l; ++e) cpu_diff[0] = std::max(cpu_diff[0], std::fabs(cY[e] - gY[e])), sy = std::max(sy, std::fabs(gY[e]));
        for (int64_t e = 0; e < k * l; ++e) cpu_diff[1] = std::max(cpu_diff[1], std::fabs(cW[e] - gW[e])), sw = std::max(sw, std::fabs(gW[e]));
        cpu_diff[0] /= sy, cpu_diff[1] /= sw;
      }

      const double t[2] = {t_zl, t_ztl}, th[2] = {th_zl, th_ztl};
      const char* name[2] = {"Z*L", "Zt*L~"};
      for (int w = 0; w < 2; ++w) {
        const double gbs = gbytes / t[w], flops = 2.0 * n * k * l / t[w];
        std::printf("%9lld %6lld %3lld | %-8s %9.3f %8.0f %6.1f%% %9.2f %7.1f%% %10.2e %10.2e | %9.2f ", (long long)n,
                    (long long)k, (long long)l, name[w], t[w] * 1e3, gbs / 1e9, 100 * gbs / read_bw, flops / 1e12,
                    100 * flops / dgemm_rate, err_b[w], err_r[w], th[w] * 1e3);
        if (t_dg[w] > 0) std::printf("%9.2f %7.2fx ", t_dg[w] * 1e3, t_dg[w] / t[w]);
        else std::printf("%9s %8s ", "-", "-");
        if (t_cpu[w] > 0) std::printf("| %9.1f %7.1fx\n", t_cpu[w] * 1e3, t_cpu[w] / t[w]);
        else std::printf("| %9s %8s\n", "-", "-");
      }
      std::printf("%31s host-pointer results identical to device-pointer results: %s", "", host_ok ? "yes" : "NO");
      if (t_cpu[0] > 0) std::printf("; cpu vs cuda max|diff|/max|cuda| %.1e / %.1e", cpu_diff[0], cpu_diff[1]);
      std::printf("\n");
      std::fflush(stdout);
      PMX_CUDA_CHECK(cudaFree(L));
      PMX_CUDA_CHECK(cudaFree(Lt));
      PMX_CUDA_CHECK(cudaFree(Y));
      PMX_CUDA_CHECK(cudaFree(W));
      PMX_CUDA_CHECK(cudaFree(r.data));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_gemm: %s\n", e.what());
    return 1;
  }
  return 0;
}
