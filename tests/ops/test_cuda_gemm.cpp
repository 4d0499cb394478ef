// The cuda backend of genotype_gemm (Y = Z Λ, W = Zᵀ Λ̃) against the reference backend (long
// double): random and adversarial shapes (n, k not multiples of anything, an all-missing and a
// monomorphic variant, 0–60 % missing calls), l = 1, 3, 10, 32, 64 (and 17, 67), observed and
// arbitrary p (outside [0, 1] too), with and without scales, β = 0 with NaN in the output and
// β ≠ 0, leading dimensions larger than l, host and device pointers, a reused gemm_operand, a
// device budget so small that the genotypes are streamed in chunks, and every kernel family:
// sm_90 m16n8k16 (Zᵀ·Λ̃ with 128 variants per warp, and with 64: PMX_GEMM_ZTL=mt4) and the
// sm_80 m8n8k4 kernels (forced with PMX_GEMM_MMA=m8); l = 1 on the narrow kernels and, with
// PMX_GEMM_NARROW=0, on the MMA kernels.
//
// Tolerance (genotype_gemm.hpp, cuda): componentwise |got − ref| ≤ 1e-12 · (Σ |Z_ij Λ_jc| + |β Y0|).
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "panoramix/error.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "gemm_cases.hpp"
#include "test_support.hpp"

using namespace pmx;
using namespace pmx::gemm_cases;

namespace {

const executor ref = executor::reference();

// Σ |terms| (+ |β out0|) per output element, row-major with l columns.
std::vector<long double> bounds(const data& d, bool transposed, double beta, const std::vector<double>& out0,
                                int64_t ld_out) {
  const int64_t rows = transposed ? d.k : d.n;
  std::vector<long double> b(static_cast<size_t>(rows * d.l), 0.0L);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t j = 0; j < d.k; ++j) {
      const long double z = std::fabs(z_of(d, i, j));
      if (z == 0) continue;
      for (int64_t c = 0; c < d.l; ++c) {
        if (transposed) b[j * d.l + c] += z * std::fabs((long double)d.lambda_t[i * d.ld_b + c]);
        else b[i * d.l + c] += z * std::fabs((long double)d.lambda[j * d.ld_a + c]);
      }
    }
  if (beta != 0)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < d.l; ++c) b[r * d.l + c] += std::fabs(beta * out0[r * ld_out + c]);
  return b;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::vector<long double>& bound,
                  int64_t rows, int64_t l, int64_t ld, const std::string& what) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < l; ++c) {
      const double g = got[r * ld + c], w = want[r * ld + c];
      ASSERT_FALSE(std::isnan(g)) << what << " (" << r << "," << c << ")";
      ASSERT_LE(std::fabs(static_cast<long double>(g) - w), 1e-12L * bound[r * l + c])
          << what << " (" << r << "," << c << ") got " << g << " want " << w;
    }
    for (int64_t c = l; c < ld; ++c)  // padding columns untouched
      ASSERT_EQ(std::memcmp(&got[r * ld + c], &want[r * ld + c], 8), 0) << what << " padding (" << r << "," << c << ")";
  }
}

#ifdef PMX_HAVE_CUDA
struct device_array {
  double* p = nullptr;
  explicit device_array(const std::vector<double>& h) {
    if (cudaMalloc(&p, std::max<size_t>(8, h.size() * 8)) != cudaSuccess) throw std::bad_alloc();
    cudaMemcpy(p, h.data(), h.size() * 8, cudaMemcpyHostToDevice);
  }
  ~device_array() { cudaFree(p); }
  void get(std::vector<double>& h) const { cudaMemcpy(h.data(), p, h.size() * 8, cudaMemcpyDeviceToHost); }
};
#endif

enum class memory { host, device };

// Both products of one case on `cuda` (one-shot op and, if given, a prepared operand) against the
// reference, with host or device pointers.
void check(const data& d, const executor& cuda, bool beta_nonzero, memory mem, const std::string& tag,
           const gemm_operand* op = nullptr) {
  const gemm_centring c{d.p, d.s};
  const double beta = beta_nonzero ? -0.75 : 0.0;
  const int64_t ld_y = d.l + 1, ld_w = d.l + 3;
  std::mt19937_64 rng(d.n * 31 + d.k);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> Y0(static_cast<size_t>(d.n * ld_y)), W0(static_cast<size_t>(d.k * ld_w));
  for (auto& v : Y0) v = beta_nonzero ? u(rng) : qnan;
  for (auto& v : W0) v = beta_nonzero ? u(rng) : qnan;
  std::vector<double> Yr = Y0, Wr = W0, Yc = Y0, Wc = W0;
  gemm(ref, d.g.view(), c, d.l, d.lambda.data(), d.ld_a, beta, Yr.data(), ld_y);
  gemm_transposed(ref, d.g.view(), c, d.l, d.lambda_t.data(), d.ld_b, beta, Wr.data(), ld_w);
  const std::string what = tag + " n=" + std::to_string(d.n) + " k=" + std::to_string(d.k) +
                           " l=" + std::to_string(d.l) + (beta_nonzero ? " beta" : " beta=0") +
                           (mem == memory::device ? " device" : " host") + (d.s.empty() ? "" : " scaled") +
                           (op ? " operand" : " one-shot");
  if (mem == memory::host) {
    if (op) {
      gemm(*op, c, d.l, d.lambda.data(), d.ld_a, beta, Yc.data(), ld_y);
      gemm_transposed(*op, c, d.l, d.lambda_t.data(), d.ld_b, beta, Wc.data(), ld_w);
    } else {
      gemm(cuda, d.g.view(), c, d.l, d.lambda.data(), d.ld_a, beta, Yc.data(), ld_y);
      gemm_transposed(cuda, d.g.view(), c, d.l, d.lambda_t.data(), d.ld_b, beta, Wc.data(), ld_w);
    }
  } else {
#ifdef PMX_HAVE_CUDA
    device_array L(d.lambda), Lt(d.lambda_t), Y(Yc), W(Wc);
    if (op) {
      gemm(*op, c, d.l, L.p, d.ld_a, beta, Y.p, ld_y);
      gemm_transposed(*op, c, d.l, Lt.p, d.ld_b, beta, W.p, ld_w);
    } else {
      gemm(cuda, d.g.view(), c, d.l, L.p, d.ld_a, beta, Y.p, ld_y);
      gemm_transposed(cuda, d.g.view(), c, d.l, Lt.p, d.ld_b, beta, W.p, ld_w);
    }
    Y.get(Yc);
    W.get(Wc);
#endif
  }
  expect_close(Yc, Yr, bounds(d, false, beta, Y0, ld_y), d.n, d.l, ld_y, "Z*L " + what);
  expect_close(Wc, Wr, bounds(d, true, beta, W0, ld_w), d.k, d.l, ld_w, "Zt*L " + what);
}

// Runs `body` once per kernel family this GPU has (the sm_80 kernels run on sm_90 too), each on a
// cuda executor whose tuning selects it: the default, the m8n8k4 kernels, the other sm_90 Zᵀ·Λ̃
// kernel, and the MMA kernels for narrow products.
template <class Body>
void for_each_path(Body body) {
  struct path {
    const char* name;
    void (*select)(tuning&);
  };
  const path paths[] = {{"default", [](tuning&) {}},
                        {"m8", [](tuning& t) { t.gemm_m8 = true; }},
                        {"ztl_mt4", [](tuning& t) { t.gemm_ztl_mt4 = true; }},
                        {"mma_for_l<=3", [](tuning& t) { t.gemm_narrow = false; }}};
  for (const path& p : paths) {
    tuning t;
    p.select(t);
    body(std::string(p.name), executor(backend::cuda, 4, t));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace

TEST(CudaGemm, MatchesReferenceOnOddShapes) {
  PMX_REQUIRE_GPU();
  const executor cuda(backend::cuda, 4);
  struct shape {
    int64_t n, k, l;
  };
  const shape shapes[] = {{1, 1, 1},      {3, 5, 3},       {33, 65, 10},    {127, 129, 32},  {129, 7, 64},
                          {1025, 63, 10}, {2049, 517, 3},  {130, 1100, 17}, {513, 1537, 10}, {4097, 301, 1},
                          {70, 2000, 67}, {3001, 1001, 10}, {777, 1100, 9}, {1100, 1300, 26}, {9000, 77, 10}};
  for_each_path([&](const std::string& path, const executor& cuda) {
    uint64_t seed = 11;
    for (const auto& s : shapes) {
      const bool observed = seed % 2 == 0, scaled = seed % 3 != 0;
      const data d = make(s.n, s.k, s.l, seed % 4 == 0 ? 0.6 : 0.05, observed, scaled, seed);
      check(d, cuda, seed % 2 == 1, seed % 3 == 0 ? memory::device : memory::host, path);
      if (::testing::Test::HasFatalFailure()) return;
      ++seed;
    }
  });
}

// Zᵀ·Λ̃ with l ≥ 256 (mixed-model rotations) runs as decoded blocks of 1,024 variants times
// cuBLAS dgemm: one-shot (streamed genotypes) and resident operands, host and device pointers, β.
TEST(CudaGemm, WideTransposedMatchesReference) {
  PMX_REQUIRE_GPU();
  const executor cuda(backend::cuda, 4);
  const data d = make(700, 2300, 300, 0.05, true, false, 31);
  check(d, cuda, false, memory::host, "wide");
  if (HasFatalFailure()) return;
  check(d, cuda, true, memory::device, "wide");
  if (HasFatalFailure()) return;
  const gemm_operand op(cuda, d.g.view());
  check(d, cuda, true, memory::host, "wide resident", &op);
  if (HasFatalFailure()) return;
  const data e = make(1500, 1030, 256, 0.05, false, true, 32);  // a last block of 6 variants
  check(e, cuda, false, memory::device, "wide, l = 256");
}

TEST(CudaGemm, HostAndDevicePointersBetaAndNaN) {
  PMX_REQUIRE_GPU();
  const executor cuda(backend::cuda, 4);
  const data d = make(1500, 700, 10, 0.1, false, true, 5);
  for (memory m : {memory::host, memory::device})
    for (bool beta : {false, true}) {
      check(d, cuda, beta, m, "pointers");
      if (HasFatalFailure()) return;
    }
}

TEST(CudaGemm, OperandReuseIsDeterministic) {
  PMX_REQUIRE_GPU();
  const executor cuda(backend::cuda, 4);
  const data d = make(2000, 900, 10, 0.05, true, false, 8);
  const gemm_operand op(cuda, d.g.view());
  ASSERT_NE(op.device(), nullptr);
  for (int rep = 0; rep < 2; ++rep) {
    check(d, cuda, rep == 1, rep == 0 ? memory::host : memory::device, "reuse", &op);
    if (HasFatalFailure()) return;
  }
  // Same call twice: the same bits (fixed split and reduction order).
  const gemm_centring c{d.p, d.s};
  std::vector<double> a(static_cast<size_t>(d.k * d.l)), b(a.size());
  gemm_transposed(op, c, d.l, d.lambda_t.data(), d.ld_b, 0.0, a.data(), d.l);
  gemm_transposed(op, c, d.l, d.lambda_t.data(), d.ld_b, 0.0, b.data(), d.l);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * 8));
  for (int l : {1, 3, 32, 64}) {
    const data e = make(2000, 900, l, 0.05, true, l == 3, 8);  // same genotypes (same seed)
    check(e, cuda, l == 32, l == 64 ? memory::device : memory::host, "reuse l", &op);
    if (HasFatalFailure()) return;
  }
}

TEST(CudaGemm, TinyBudgetStreamsTheGenotypes) {
  PMX_REQUIRE_GPU();
  executor cuda(backend::cuda, 4);
  cuda.set_device_memory_budget(int64_t{3} << 20);
  const data d = make(5003, 2011, 10, 0.05, false, true, 21);
  for_each_path([&](const std::string& path, const executor& cuda) {
    const gemm_operand op(cuda, d.g.view());
    check(d, cuda, false, memory::host, "streamed " + path, &op);
    if (::testing::Test::HasFatalFailure()) return;
    check(d, cuda, true, memory::device, "streamed " + path, &op);
    if (::testing::Test::HasFatalFailure()) return;
    check(d, cuda, true, memory::host, "streamed one-shot " + path);
  });
}

// l = 1 runs on the narrow (FP64 CUDA-core) kernels, l = 2, 3 on the MMA kernels: shapes with
// several sample blocks (4,096) and tiles, partial last words, odd variant counts (an unpaired
// last variant), several variant blocks (128) and splits, resident and streamed.
TEST(CudaGemm, NarrowColumnsMatchReference) {
  PMX_REQUIRE_GPU();
  const executor cuda(backend::cuda, 4);
  struct shape {
    int64_t n, k, l;
  };
  const shape shapes[] = {{4095, 129, 1}, {4097, 300, 1}, {9001, 517, 3}, {20011, 261, 1}, {17, 1301, 1},
                          {12289, 2049, 1}, {8192, 128, 1}, {31, 31, 2},   {40000, 333, 1}};
  uint64_t seed = 101;
  for (const auto& s : shapes) {
    const data d = make(s.n, s.k, s.l, seed % 3 == 0 ? 0.5 : 0.03, seed % 2 == 0, seed % 3 != 1, seed);
    check(d, cuda, seed % 2 == 1, seed % 4 < 2 ? memory::host : memory::device, "narrow");
    if (HasFatalFailure()) return;
    ++seed;
  }
  executor small(backend::cuda, 4);
  small.set_device_memory_budget(int64_t{3} << 20);
  const data d = make(9001, 3001, 1, 0.05, false, true, 7);
  const gemm_operand op(small, d.g.view());
  check(d, small, true, memory::host, "narrow streamed", &op);
}

TEST(CudaGemm, EmptyShapes) {
  PMX_REQUIRE_GPU();
  const executor cuda(backend::cuda, 2);
  const std::vector<double> p = {0.3, 0.4}, lam(8, 1.0);
  packed_genotypes g0(0, 2);
  std::vector<double> W(4, 5.0);
  gemm_transposed(cuda, g0.view(), gemm_centring{p, {}}, 2, lam.data(), 2, 0.0, W.data(), 2);
  for (double v : W) EXPECT_EQ(v, 0.0);
  std::vector<double> W2(4, 5.0);
  gemm_transposed(cuda, g0.view(), gemm_centring{p, {}}, 2, lam.data(), 2, 2.0, W2.data(), 2);
  for (double v : W2) EXPECT_EQ(v, 10.0);
  packed_genotypes g1(3, 0);
  std::vector<double> Y(6, qnan);
  gemm(cuda, g1.view(), gemm_centring{{}, {}}, 2, lam.data(), 2, 0.0, Y.data(), 2);
  for (double v : Y) EXPECT_EQ(v, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Normwise operands (gemm_accuracy::normwise): for l <= 4 the INT8 tensor-core route
// (cuda_int8.hpp), required here through PMX_GEMM_INT8=require so that a silent fallback to the
// FP64 kernels fails the test. Oracle: the reference backend, with the route's documented bound
// taken 4x looser (bounds_normwise in gemm_cases.hpp).
namespace {

// A cuda executor whose normwise products must take the INT8 route (or fail).
executor int8_cuda() {
  tuning t;
  t.gemm_int8 = tuning::int8::require;
  return executor(backend::cuda, 4, t);
}

// Both products of one case on a normwise operand against the reference.
void check_normwise(const data& d, const gemm_operand& op, bool beta_nonzero, memory mem, const std::string& tag) {
  const gemm_centring c{d.p, d.s};
  const std::string what = "normwise " + tag + (mem == memory::device ? " device" : " host");
  check_normwise_case(d, beta_nonzero ? 0.625 : 0.0, what,
                      [&](double beta, std::vector<double>& Y, int64_t ld_y, std::vector<double>& W, int64_t ld_w) {
                        if (mem == memory::host) {
                          gemm(op, c, d.l, d.lambda.data(), d.ld_a, beta, Y.data(), ld_y);
                          gemm_transposed(op, c, d.l, d.lambda_t.data(), d.ld_b, beta, W.data(), ld_w);
                          return;
                        }
#ifdef PMX_HAVE_CUDA
                        device_array L(d.lambda), Lt(d.lambda_t), Yd(Y), Wd(W);
                        gemm(op, c, d.l, L.p, d.ld_a, beta, Yd.p, ld_y);
                        gemm_transposed(op, c, d.l, Lt.p, d.ld_b, beta, Wd.p, ld_w);
                        Yd.get(Y);
                        Wd.get(W);
#endif
                      });
}

}  // namespace

// Shapes: partial sample blocks (1,024 for Z·Λ) and k-steps (32 variants, 128 samples), variant
// blocks of 512 for Zᵀ·Λ̃, several splits; no, some and many missing calls (the missing-call
// products run only where a warp's tile has one); l = 1..4; λ with mixed magnitudes (make()).
TEST(CudaGemm, NormwiseOperandMeetsItsBound) {
  PMX_REQUIRE_GPU();
  const executor cuda = int8_cuda();
  struct shape {
    int64_t n, k, l;
    double missing;
  };
  const shape shapes[] = {{1, 1, 1, 0.0},      {5, 3, 2, 0.3},      {129, 33, 3, 0.0},   {1023, 31, 4, 0.05},
                          {1025, 65, 1, 0.6},  {3000, 513, 3, 0.0}, {4097, 1100, 2, 0.02}, {20011, 700, 3, 0.01},
                          {777, 3001, 4, 0.0}, {9000, 2049, 1, 0.0}};
  uint64_t seed = 301;
  for (const auto& s : shapes) {
    const data d = make(s.n, s.k, s.l, s.missing, seed % 2 == 0, seed % 3 != 1, seed);
    const gemm_operand op(cuda, d.g.view(), gemm_accuracy::normwise);
    check_normwise(d, op, seed % 2 == 1, seed % 3 == 0 ? memory::device : memory::host, "int8");
    if (HasFatalFailure()) return;
    ++seed;
  }
}

// Same operand, same call: the same bits (integer sums do not depend on the order of the atomics).
// Wider products leave the INT8 route: l = 5 must meet the componentwise bound, and with
// PMX_GEMM_INT8=require it is refused.
TEST(CudaGemm, NormwiseIsDeterministicAndWideProductsStayComponentwise) {
  PMX_REQUIRE_GPU();
  const executor cuda(backend::cuda, 4);
  const data d = make(5000, 1500, 3, 0.02, true, true, 77);
  const gemm_operand op(cuda, d.g.view(), gemm_accuracy::normwise);
  const gemm_centring c{d.p, d.s};
  {
    const gemm_operand op8(int8_cuda(), d.g.view(), gemm_accuracy::normwise);
    std::vector<double> a(static_cast<size_t>(d.k * d.l)), b(a.size()), y1(static_cast<size_t>(d.n * d.l)), y2(y1.size());
    for (int rep = 0; rep < 2; ++rep) {
      gemm_transposed(op8, c, d.l, d.lambda_t.data(), d.ld_b, 0.0, (rep ? b : a).data(), d.l);
      gemm(op8, c, d.l, d.lambda.data(), d.ld_a, 0.0, (rep ? y2 : y1).data(), d.l);
    }
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * 8));
    EXPECT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * 8));
  }
  const data e = make(5000, 1500, 5, 0.02, true, true, 77);  // same genotypes
  check(e, cuda, true, memory::host, "normwise l=5", &op);
  const gemm_operand op8(int8_cuda(), d.g.view(), gemm_accuracy::normwise);
  std::vector<double> W(static_cast<size_t>(e.k * e.l));
  EXPECT_THROW(gemm_transposed(op8, c, e.l, e.lambda_t.data(), e.ld_b, 0.0, W.data(), e.l), unsupported_error);
}
