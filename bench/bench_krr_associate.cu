// KRR Associate on one GPU, or over the ranks of an MPI launch (one GPU each: `mpirun -np P`, the
// tile Cholesky over ranks, K's tile-cyclic columns made on each rank's GPU): (K + αI) W = Y for
// `traits` phenotypes at order n, in one run:
//   fp64      cuSOLVER Dpotrf + Dpotrs (the baseline the issue names), timed on a device copy of K;
//   fp32      the tile Cholesky with every tile FP32, then FP64 refinement (solve_kernel_ridge);
//   adaptive  the paper's tile rule (FP8/BF16/FP16/FP32 tiles), then FP64 refinement;
// with each one's normwise backward error from the same FP64 residual, the tile counts, and the
// effective rate n³/3 / time against the ~163 TFLOP/s per GH200 the KRR paper sustained.
// K is a Gaussian kernel of clustered random points made on the device (no host copy of n² numbers).
// Over ranks the fp64 baseline is not run (cuSOLVER's is one GPU's) and times are rank 0's, from a
// barrier to the solution on every rank.
//   bench_krr_associate [--n 65536] [--traits 10] [--tile 2048] [--alpha 1] [--gamma G] [--dims 16]
//                       [--tile-accuracy 1e-4] [--accuracy 1e-8] [--reps 3] [--skip-fp32] [--skip-fp64]
//                       [--contiguous] [--refinement auto|classical|gmres]
#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "panoramix/communicator.hpp"
#include "panoramix/kernel_ridge.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/tile_cholesky.hpp"

using namespace pmx;

namespace {

#define CHECK(x)                                                                      \
  do {                                                                                \
    if ((x) != 0) {                                                                   \
      std::fprintf(stderr, "%s failed at %s:%d\n", #x, __FILE__, __LINE__);            \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// Points: 16 clusters around random centres, plus noise; X is n × d, row-major. Sample i is in
// cluster i % 16 (interleaved: every tile alike) or, `contiguous`, i·16/n (tiles between clusters
// small, as in a kernel of samples sorted by population).
__global__ void points_kernel(int64_t n, int d, bool contiguous, float* X) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n * d; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = t / d, k = t % d;
    uint64_t h = (uint64_t(i) * 0x9e3779b97f4a7c15ull) ^ (uint64_t(k) * 0xbf58476d1ce4e5b9ull);
    h ^= h >> 31, h *= 0x94d049bb133111ebull, h ^= h >> 29;
    const double u = double(h >> 11) * 0x1.0p-53;
    const int64_t cluster = contiguous ? i * 16 / n : i % 16;
    uint64_t c = (uint64_t(cluster) * 0x9e3779b97f4a7c15ull) ^ (uint64_t(k) * 0xd1b54a32d192ed03ull);
    c ^= c >> 31, c *= 0x94d049bb133111ebull, c ^= c >> 29;
    X[t] = float(2.0 * (double(c >> 11) * 0x1.0p-53) + 0.5 * (u - 0.5));
  }
}

// This rank's columns of K in the tile-cyclic layout (n × width, column-major): local column lc is
// global column ((lc / tile)·ranks + rank)·tile + lc mod tile; one rank: all of K.
__global__ void kernel_matrix(int64_t n, int64_t width, int64_t tile, int rank, int ranks, int d, const float* X,
                              double gamma, double* K) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n * width; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t lc = t / n, j = t % n, i = ((lc / tile) * ranks + rank) * tile + lc % tile;
    float s = 0;  // the same operations for (i, j) and (j, i): K is exactly symmetric
    for (int k = 0; k < d; ++k) {
      const float e = X[i * d + k] - X[j * d + k];
      s += e * e;
    }
    K[t] = exp(-gamma * double(s));
  }
}

__global__ void add_diagonal(int64_t n, double alpha, double* A) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    A[i * n + i] += alpha;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// max_c ‖y_c − (K + αI) w_c‖∞ / (‖K + αI‖∞ ‖w_c‖∞ + ‖y_c‖∞), residual on the device.
double backward_error(cublasHandle_t h, int64_t n, const double* dK, double alpha, double a_norm, int64_t t,
                      const std::vector<double>& W, const std::vector<double>& Y) {
  double *dW, *dR;
  CHECK(cudaMalloc(&dW, 8 * n * t));
  CHECK(cudaMalloc(&dR, 8 * n * t));
  cudaMemcpy(dW, W.data(), 8 * n * t, cudaMemcpyHostToDevice);
  cudaMemcpy(dR, Y.data(), 8 * n * t, cudaMemcpyHostToDevice);
  const double m1 = -1, one = 1, ma = -alpha;
  CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(t), int(n), &m1, dK, int(n), dW, int(n), &one, dR, int(n)));
  CHECK(cublasDaxpy(h, int(n * t), &ma, dW, 1, dR, 1));
  std::vector<double> R(n * t);
  cudaMemcpy(R.data(), dR, 8 * n * t, cudaMemcpyDeviceToHost);
  cudaFree(dW), cudaFree(dR);
  double worst = 0;
  for (int64_t c = 0; c < t; ++c) {
    double r = 0, w = 0, y = 0;
    for (int64_t i = 0; i < n; ++i)
      r = std::max(r, std::fabs(R[c * n + i])), w = std::max(w, std::fabs(W[c * n + i])), y = std::max(y, std::fabs(Y[c * n + i]));
    worst = std::max(worst, r / (a_norm * w + y));
  }
  return worst;
}

// A crash prints where it happened (the bench is linked with -rdynamic for the names).
void on_crash(int sig) {
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  _exit(128 + sig);
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGSEGV, on_crash);
  int64_t n = 65536, traits = 10, tile = 2048;
  int dims = 16, reps = 3;
  double alpha = 1, gamma = 0, tile_accuracy = 1e-4, accuracy = 1e-8;
  bool skip_fp32 = false, skip_fp64 = false, contiguous = false;
  std::string refinement = "auto";
  for (int a = 1; a < argc; ++a) {
    const std::string k = argv[a];
    auto next = [&] { return std::string(a + 1 < argc ? argv[++a] : ""); };
    if (k == "--n") n = std::stoll(next());
    else if (k == "--traits") traits = std::stoll(next());
    else if (k == "--tile") tile = std::stoll(next());
    else if (k == "--alpha") alpha = std::stod(next());
    else if (k == "--gamma") gamma = std::stod(next());
    else if (k == "--dims") dims = std::stoi(next());
    else if (k == "--tile-accuracy") tile_accuracy = std::stod(next());
    else if (k == "--accuracy") accuracy = std::stod(next());
    else if (k == "--reps") reps = std::stoi(next());
    else if (k == "--skip-fp32") skip_fp32 = true;
    else if (k == "--skip-fp64") skip_fp64 = true;
    else if (k == "--contiguous") contiguous = true;
    else if (k == "--refinement") refinement = next();
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  // Expected squared distance between clusters ≈ d·(2·(1/3 … )) — γ = 1/d gives kernel values
  // from near 1 (same cluster) to e^-(a few) (other clusters) when not given.
  if (gamma == 0) gamma = 1.0 / dims;
  const communicator& world = communicator::world();
  const int ranks = world.size(), rank = world.rank();
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  CHECK(cudaSetDevice(world.local_rank() % std::max(devices, 1)));  // the GPU the executor takes
  executor gpu(backend::cuda, std::max(1, int(std::thread::hardware_concurrency()) / std::max(1, world.local_size())));
  gpu.set_communicator(world);
  if (ranks > 1) skip_fp64 = true;
  const int64_t width = tile_cyclic_width(n, tile, rank, ranks);
  float* dX;
  double* dK;
  CHECK(cudaMalloc(&dX, sizeof(float) * n * dims));
  CHECK(cudaMalloc(&dK, sizeof(double) * n * std::max<int64_t>(width, 1)));
  points_kernel<<<4096, 256>>>(n, dims, contiguous, dX);
  kernel_matrix<<<65535, 256>>>(n, width, tile, rank, ranks, dims, dX, gamma, dK);
  CHECK(cudaDeviceSynchronize());
  cudaFree(dX);
  auto say = [&](const char* format, auto... args) {
    if (rank == 0) std::printf(format, args...);
  };
  std::vector<double> Y(n * traits);
  for (int64_t i = 0; i < n * traits; ++i) Y[i] = std::sin(0.001 * double(i)) + 0.1 * std::cos(double(i));
  cublasHandle_t blas;
  CHECK(cublasCreate(&blas));
  say("n %lld, traits %lld, tile %lld, gamma %.3g, alpha %.3g, tile accuracy %.1e, accuracy %.1e, clusters %s, "
      "ranks %d (GPU memory of K per rank %.1f GB)\n",
      (long long)n, (long long)traits, (long long)tile, gamma, alpha, tile_accuracy, accuracy,
      contiguous ? "contiguous" : "interleaved", ranks, 8e-9 * double(n) * double(width));

  // ---- fp64: cuSOLVER Dpotrf + Dpotrs on a copy of K + αI (one GPU)
  std::vector<double> t64;
  std::vector<double> W64(n * traits);
  if (!skip_fp64) {
    cusolverDnHandle_t sol;
    CHECK(cusolverDnCreate(&sol));
    double *dA, *dB, *work;
    int* info;
    CHECK(cudaMalloc(&dA, sizeof(double) * n * n));
    CHECK(cudaMalloc(&dB, sizeof(double) * n * traits));
    CHECK(cudaMalloc(&info, sizeof(int)));
    int lwork = 0;
    CHECK(cusolverDnDpotrf_bufferSize(sol, CUBLAS_FILL_MODE_LOWER, int(n), dA, int(n), &lwork));
    CHECK(cudaMalloc(&work, sizeof(double) * std::max(lwork, 1)));
    for (int r = -1; r < reps; ++r) {  // r = -1: warm-up, not timed
      cudaMemcpy(dA, dK, sizeof(double) * n * n, cudaMemcpyDeviceToDevice);
      add_diagonal<<<(n + 255) / 256, 256>>>(n, alpha, dA);
      cudaMemcpy(dB, Y.data(), sizeof(double) * n * traits, cudaMemcpyHostToDevice);
      CHECK(cudaDeviceSynchronize());
      const auto t0 = std::chrono::steady_clock::now();
      CHECK(cusolverDnDpotrf(sol, CUBLAS_FILL_MODE_LOWER, int(n), dA, int(n), work, lwork, info));
      CHECK(cusolverDnDpotrs(sol, CUBLAS_FILL_MODE_LOWER, int(n), int(traits), dA, int(n), dB, int(n), info));
      CHECK(cudaDeviceSynchronize());
      if (r >= 0) t64.push_back(seconds_since(t0));
    }
    cudaMemcpy(W64.data(), dB, sizeof(double) * n * traits, cudaMemcpyDeviceToHost);
    cudaFree(dA), cudaFree(dB), cudaFree(work), cudaFree(info);
    cusolverDnDestroy(sol);
  }
  auto report = [&](const char* name, double seconds, double be, const std::string& extra) {
    const double flops = double(n) * double(n) * double(n) / 3.0;
    char ratio[32] = "(fp64 not run)";
    if (!t64.empty()) std::snprintf(ratio, sizeof ratio, "%5.2fx vs fp64", median(t64) / seconds);
    say("%-9s %8.3f s  %7.1f TFLOP/s (n^3/3, all ranks)  %s  backward error %.2e  %s\n", name, seconds,
        flops / seconds * 1e-12, ratio, be, extra.c_str());
  };
  // ---- fp32 and adaptive through solve_kernel_ridge (K on the device, residuals on the device)
  for (const solve_precision p : {solve_precision::fp32, solve_precision::adaptive}) {
    if (p == solve_precision::fp32 && skip_fp32) continue;
    kernel_ridge_options o;
    o.precision = p;
    o.tile = tile;
    o.tile_accuracy = tile_accuracy;
    o.accuracy = accuracy;
    o.refinement = refinement == "classical" ? refinement_method::classical
                   : refinement == "gmres"   ? refinement_method::gmres
                                             : refinement_method::automatic;
    std::vector<double> times;
    kernel_ridge_solution s;
    for (int r = -1; r < reps; ++r) {  // r = -1: warm-up (handles, workspaces), not timed
      world.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      s = solve_kernel_ridge(gpu, over_ranks, n, dK, alpha, traits, Y.data(), o);
      if (r < 0) continue;
      times.push_back(seconds_since(t0));
    }
    char extra[256];
    std::snprintf(extra, sizeof extra, "refinements %d, tiles fp32/fp16/bf16/fp8 %lld/%lld/%lld/%lld%s%s", s.refinements,
                  (long long)s.map.count(tile_precision::fp32), (long long)s.map.count(tile_precision::fp16),
                  (long long)s.map.count(tile_precision::bf16), (long long)s.map.count(tile_precision::fp8),
                  s.fallback.empty() ? "" : ", FELL BACK: ", s.fallback.c_str());
    report(solve_precision_name(p), median(times), s.backward_error, extra);
    if (!t64.empty()) {
      double num = 0, den = 0;
      for (int64_t i = 0; i < n * traits; ++i) num += (s.W[i] - W64[i]) * (s.W[i] - W64[i]), den += W64[i] * W64[i];
      say("          ||W - W64||_F / ||W64||_F = %.2e\n", std::sqrt(num / den));
    }
    for (const auto& [name, sec] : s.stage_seconds) say("          %-32s %8.3f s\n", name.c_str(), sec);
    if (p == solve_precision::adaptive) {  // one refinement step's pieces, each alone (median of 5)
      const tile_cholesky f(gpu, over_ranks, n, dK, n, alpha, s.map);
      std::vector<double> R(n * traits), X(n * traits);
      auto piece = [&](const char* what, const std::function<void()>& run) {
        std::vector<double> t;
        for (int r = 0; r < 5; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          run();
          t.push_back(seconds_since(t0));
        }
        say("          step piece: %-28s %8.4f s\n", what, median(t));
      };
      piece("residual (FP64, host W/Y/R)", [&] { f.residual(s.W.data(), Y.data(), R.data(), traits); });
      piece("solve (FP32 factor, host B)", [&] { X = Y, f.solve(X.data(), n, traits); });
      piece("norm_inf (cached after first)", [&] { (void)f.norm_inf(); });
      if (ranks == 1)
        piece("backward error on the host", [&] { (void)kernel_ridge_backward_error(gpu, n, dK, alpha, traits, s.W.data(), Y.data()); });
    }
  }
  if (!t64.empty())
    std::printf("fp64      %8.3f s  (cuSOLVER Dpotrf + Dpotrs, median of %d)  backward error %.2e\n", median(t64), reps,
                backward_error(blas, n, dK, alpha, shifted_norm_inf(gpu, n, dK, n, alpha), traits, W64, Y));
  cublasDestroy(blas);
  cudaFree(dK);
  return 0;
}
