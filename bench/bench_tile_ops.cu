// The building blocks of the KRR Associate (tile Cholesky + FP64 refinement), each timed alone on
// one GPU, so that the stage times of bench_krr_associate can be read against what the library
// calls themselves reach:
//   tile ops at T × T × T: SGEMM, SSYRK, FP16/BF16 GemmEx, TF32 GemmEx (one pass, and the three
//   passes of a split-FP32 product as one call with K = 3T), FP8 E4M3 cuBLASLt, panel STRSM
//   (below × T) against TRTRI + SGEMM;
//   refinement ops at order n with m right-hand sides: DGEMM (residual), STRSM left (solve),
//   and the ∞-norm of an n × n FP64 matrix read by rows against by columns.
//   bench_tile_ops [--tile 2048] [--n 65536] [--m 10] [--reps 5]
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

#define CHECK(x)                                                                                  \
  do {                                                                                            \
    if (static_cast<int>(x) != 0) {                                                               \
      std::fprintf(stderr, "%s failed (%d) at %s:%d\n", #x, static_cast<int>(x), __FILE__, __LINE__); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

template <class T>
__global__ void fill(T* x, size_t count, float scale, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t h = (i + seed) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31, h *= 0x94d049bb133111ebull, h ^= h >> 29;
    x[i] = T(scale * (float(h >> 40) * 0x1.0p-24f - 0.5f));
  }
}

// L (ld × ld, lower) well conditioned: a dominant diagonal.
__global__ void make_lower(float* L, int64_t n, int64_t ld) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n * n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = t / n, r = t % n;
    if (r == c) L[c * ld + r] = 4.0f;
    else if (r < c) L[c * ld + r] = 0.0f;
  }
}

__global__ void row_sums_by_rows(const double* A, int64_t n, double* out) {  // thread per row: strided reads
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += fabs(A[i * n + j]);
    out[i] = s;
  }
}

__global__ void column_sums(const double* A, int64_t n, double* out) {  // block per column: coalesced
  const double* col = A + blockIdx.x * n;
  double s = 0;
  for (int64_t r = threadIdx.x; r < n; r += blockDim.x) s += fabs(col[r]);
  __shared__ double sh[256];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

template <class T>
T* alloc(size_t count) {
  void* p = nullptr;
  CHECK(cudaMalloc(&p, std::max<size_t>(count * sizeof(T), 16)));
  return static_cast<T*>(p);
}

double time_it(int reps, const std::function<void()>& f) {  // median seconds, after one warm-up
  cudaEvent_t a, b;
  cudaEventCreate(&a), cudaEventCreate(&b);
  std::vector<double> t;
  for (int r = -1; r < reps; ++r) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (r >= 0) t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(a), cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void line(const char* what, double sec, double flops, double bytes) {
  std::printf("%-52s %9.3f ms", what, sec * 1e3);
  if (flops > 0) std::printf("  %7.1f TFLOP/s", flops / sec * 1e-12);
  if (bytes > 0) std::printf("  %7.0f GB/s", bytes / sec * 1e-9);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  int64_t T = 2048, n = 65536, m = 10;
  int reps = 5;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--tile") T = std::stoll(argv[a + 1]);
    else if (k == "--n") n = std::stoll(argv[a + 1]);
    else if (k == "--m") m = std::stoll(argv[a + 1]);
    else if (k == "--reps") reps = std::stoi(argv[a + 1]);
  }
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  const float one = 1, minus_one = -1;
  const double tile_flops = 2.0 * double(T) * T * T;
  std::printf("tile %lld, n %lld, m %lld, median of %d\n", (long long)T, (long long)n, (long long)m, reps);

  // ---- tile ops
  float *A = alloc<float>(T * T * 3), *B = alloc<float>(T * T * 3), *C = alloc<float>(T * T);
  fill<<<1024, 256>>>(A, T * T * 3, 1.0f, 1);
  fill<<<1024, 256>>>(B, T * T * 3, 1.0f, 2);
  fill<<<1024, 256>>>(C, T * T, 1.0f, 3);
  const int t = int(T);
  line("SGEMM T x T x T", time_it(reps, [&] {
         CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, t, t, t, &minus_one, A, t, B, t, &one, C, t));
       }), tile_flops, 0);
  line("SSYRK T x T (k = T)", time_it(reps, [&] {
         CHECK(cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, t, t, &minus_one, A, t, &one, C, t));
       }), tile_flops / 2, 0);
  line("TF32 GemmEx T x T x T (one pass)", time_it(reps, [&] {
         CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, t, t, t, &minus_one, A, CUDA_R_32F, t, B, CUDA_R_32F, t, &one, C,
                            CUDA_R_32F, t, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
       }), tile_flops, 0);
  line("TF32 GemmEx T x T x 3T (split FP32, one call)", time_it(reps, [&] {
         CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, t, t, 3 * t, &minus_one, A, CUDA_R_32F, t, B, CUDA_R_32F, t, &one,
                            C, CUDA_R_32F, t, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
       }), 3 * tile_flops, 0);
  {
    __half *a16 = alloc<__half>(T * T), *b16 = alloc<__half>(T * T);
    fill<<<1024, 256>>>(a16, T * T, 1.0f, 4);
    fill<<<1024, 256>>>(b16, T * T, 1.0f, 5);
    line("FP16 GemmEx T x T x T (FP32 out)", time_it(reps, [&] {
           CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, t, t, t, &minus_one, a16, CUDA_R_16F, t, b16, CUDA_R_16F, t, &one,
                              C, CUDA_R_32F, t, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
         }), tile_flops, 0);
    __nv_bfloat16 *a, *b;
    a = reinterpret_cast<__nv_bfloat16*>(a16), b = reinterpret_cast<__nv_bfloat16*>(b16);
    line("BF16 GemmEx T x T x T (FP32 out)", time_it(reps, [&] {
           CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, t, t, t, &minus_one, a, CUDA_R_16BF, t, b, CUDA_R_16BF, t, &one,
                              C, CUDA_R_32F, t, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
         }), tile_flops, 0);
    // Many tiles in one call: the rows of 8 tiles (8T × T × T), as a grouped column would be.
    __half *p16 = alloc<__half>(8 * T * T);
    float* C8 = alloc<float>(8 * T * T);
    fill<<<1024, 256>>>(p16, 8 * T * T, 1.0f, 6);
    line("FP16 GemmEx 8T x T x T (8 tiles, one call)", time_it(reps, [&] {
           CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, 8 * t, t, t, &minus_one, p16, CUDA_R_16F, 8 * t, b16, CUDA_R_16F,
                              t, &one, C8, CUDA_R_32F, 8 * t, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
         }), 8 * tile_flops, 0);
    cudaFree(a16), cudaFree(b16), cudaFree(p16), cudaFree(C8);
  }
  {  // FP8 E4M3, TN (the layout cuBLASLt requires for FP8)
    cublasLtHandle_t lt;
    CHECK(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t desc;
    CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    cublasLtMatrixLayout_t la, lb, ld;
    CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, T, T, T));
    CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, T, T, T));
    CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, T, T, T));
    size_t ws = size_t{32} << 20;
    void* work = alloc<char>(ws);
    cublasLtMatmulPreference_t pref;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &heur, &found));
    __nv_fp8_e4m3 *a8 = alloc<__nv_fp8_e4m3>(T * T), *b8 = alloc<__nv_fp8_e4m3>(T * T);
    fill<<<1024, 256>>>(a8, T * T, 1.0f, 7);
    fill<<<1024, 256>>>(b8, T * T, 1.0f, 8);
    if (found)
      line("FP8 E4M3 cublasLtMatmul T x T x T (FP32 out)", time_it(reps, [&] {
             CHECK(cublasLtMatmul(lt, desc, &minus_one, a8, la, b8, lb, &one, C, ld, C, ld, &heur.algo, work, ws, 0));
           }), tile_flops, 0);
    cudaFree(a8), cudaFree(b8), cudaFree(work);
    cublasLtDestroy(lt);
  }
  cudaFree(A), cudaFree(B), cudaFree(C);

  // ---- panel: below × T solved against a T × T lower factor, as STRSM and as TRTRI + SGEMM
  {
    const int64_t below = n / 2;  // the average panel height
    float *L = alloc<float>(T * T), *P = alloc<float>(below * T), *Q = alloc<float>(below * T), *Linv = alloc<float>(T * T);
    fill<<<1024, 256>>>(L, T * T, 0.1f, 9);
    make_lower<<<1024, 256>>>(L, T, T);
    fill<<<1024, 256>>>(P, below * T, 1.0f, 10);
    const double flops = double(below) * T * T;
    line("panel STRSM (n/2 x T, right, lower, trans)", time_it(reps, [&] {
           CHECK(cublasStrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, int(below), t,
                             &one, L, t, P, int(below)));
         }), flops, 0);
    cusolverDnHandle_t sol;
    CHECK(cusolverDnCreate(&sol));
    size_t dev_bytes = 0, host_bytes = 0;
    CHECK(cusolverDnXtrtri_bufferSize(sol, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, T, CUDA_R_32F, Linv, T,
                                      &dev_bytes, &host_bytes));
    void* dwork = alloc<char>(dev_bytes);
    std::vector<char> hwork(std::max<size_t>(host_bytes, 1));
    int* info = alloc<int>(1);
    line("TRTRI of the T x T factor (cuSOLVER Xtrtri)", time_it(reps, [&] {
           CHECK(cudaMemcpyAsync(Linv, L, sizeof(float) * T * T, cudaMemcpyDeviceToDevice));
           CHECK(cusolverDnXtrtri(sol, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, T, CUDA_R_32F, Linv, T, dwork,
                                  dev_bytes, hwork.data(), host_bytes, info));
         }), double(T) * T * T / 3, 0);
    line("panel SGEMM with the inverse (n/2 x T x T)", time_it(reps, [&] {
           CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, int(below), t, t, &one, P, int(below), Linv, t, &minus_one, Q,
                             int(below)));
         }), 2 * flops, 0);
    line("panel TF32 GemmEx with the inverse (one pass)", time_it(reps, [&] {
           CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, int(below), t, t, &one, P, CUDA_R_32F, int(below), Linv,
                              CUDA_R_32F, t, &minus_one, Q, CUDA_R_32F, int(below), CUBLAS_COMPUTE_32F_FAST_TF32,
                              CUBLAS_GEMM_DEFAULT));
         }), 2 * flops, 0);
    cusolverDnDestroy(sol);
    cudaFree(L), cudaFree(P), cudaFree(Q), cudaFree(Linv), cudaFree(dwork), cudaFree(info);
  }

  // ---- refinement: order n, m right-hand sides
  {
    double* K = alloc<double>(n * n);
    fill<<<4096, 256>>>(K, size_t(n) * n, 1.0f, 11);
    double *W = alloc<double>(n * m), *R = alloc<double>(n * m), *sums = alloc<double>(n);
    fill<<<1024, 256>>>(W, n * m, 1.0f, 12);
    const double d1 = 1, dm1 = -1;
    const double kbytes = 8.0 * double(n) * n;
    line("residual DGEMM n x m x n", time_it(reps, [&] {
           CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(n), &dm1, K, int(n), W, int(n), &d1, R,
                             int(n)));
         }), 2.0 * n * n * m, kbytes);
    line("residual DSYMM n x m (lower triangle read)", time_it(reps, [&] {
           CHECK(cublasDsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, int(n), int(m), &dm1, K, int(n), W, int(n), &d1, R,
                             int(n)));
         }), 2.0 * n * n * m, kbytes / 2);
    line("norm: row sums, thread per row (strided)", time_it(reps, [&] { row_sums_by_rows<<<int((n + 255) / 256), 256>>>(K, n, sums); }),
         0, kbytes);
    line("norm: column sums, block per column (coalesced)", time_it(reps, [&] { column_sums<<<int(n), 256>>>(K, n, sums); }), 0,
         kbytes);
    cudaFree(K);
    float* L = alloc<float>(n * n);
    fill<<<4096, 256>>>(L, size_t(n) * n, 0.01f, 13);
    make_lower<<<4096, 256>>>(L, n, n);
    float* X = alloc<float>(n * m);
    fill<<<1024, 256>>>(X, n * m, 1.0f, 14);
    line("solve STRSM left lower n x m (forward)", time_it(reps, [&] {
           CHECK(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, int(n), int(m),
                             &one, L, int(n), X, int(n)));
         }), double(n) * n * m, 2.0 * double(n) * n);
    line("solve STRSM left lower-trans n x m (backward)", time_it(reps, [&] {
           CHECK(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, int(n), int(m),
                             &one, L, int(n), X, int(n)));
         }), double(n) * n * m, 2.0 * double(n) * n);
    std::vector<double> host(n * m);
    double* dev = alloc<double>(n * m);
    line("host -> device, n x m doubles (pageable)", time_it(reps, [&] {
           CHECK(cudaMemcpy(dev, host.data(), 8 * n * m, cudaMemcpyHostToDevice));
         }), 0, 8.0 * n * m);
    cudaFree(L), cudaFree(X), cudaFree(W), cudaFree(R), cudaFree(sums), cudaFree(dev);
  }
  cublasDestroy(h);
  return 0;
}
